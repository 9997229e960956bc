// ITU-T H.264 (08/2021) §7.3.1 NAL unit syntax, §7.4.1 NAL unit semantics, Table 7-1 NAL unit type codes.

/// nal_unit_type (Table 7-1). A struct rather than an enum so reserved and unspecified values stay representable.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 5-bit code, 0...31.
    public let rawValue: UInt8

    /// A type from its 5-bit code; codes above 31 are a programmer error (headers mask the byte first).
    public init(rawValue: UInt8) {
        precondition(rawValue < 32, "nal_unit_type is a 5-bit field")
        self.rawValue = rawValue
    }

    /// 0: unspecified.
    public static let unspecified = NALUnitType(rawValue: 0)
    /// 1: coded slice of a non-IDR picture.
    public static let codedSliceNonIDR = NALUnitType(rawValue: 1)
    /// 2: coded slice data partition A.
    public static let codedSliceDataPartitionA = NALUnitType(rawValue: 2)
    /// 3: coded slice data partition B.
    public static let codedSliceDataPartitionB = NALUnitType(rawValue: 3)
    /// 4: coded slice data partition C.
    public static let codedSliceDataPartitionC = NALUnitType(rawValue: 4)
    /// 5: coded slice of an IDR picture.
    public static let codedSliceIDR = NALUnitType(rawValue: 5)
    /// 6: supplemental enhancement information (SEI).
    public static let supplementalEnhancementInformation = NALUnitType(rawValue: 6)
    /// 7: sequence parameter set.
    public static let sequenceParameterSet = NALUnitType(rawValue: 7)
    /// 8: picture parameter set.
    public static let pictureParameterSet = NALUnitType(rawValue: 8)
    /// 9: access unit delimiter.
    public static let accessUnitDelimiter = NALUnitType(rawValue: 9)
    /// 10: end of sequence.
    public static let endOfSequence = NALUnitType(rawValue: 10)
    /// 11: end of stream.
    public static let endOfStream = NALUnitType(rawValue: 11)
    /// 12: filler data.
    public static let fillerData = NALUnitType(rawValue: 12)
    /// 13: sequence parameter set extension.
    public static let sequenceParameterSetExtension = NALUnitType(rawValue: 13)
    /// 14: prefix NAL unit (SVC/MVC).
    public static let prefixNALUnit = NALUnitType(rawValue: 14)
    /// 15: subset sequence parameter set (SVC/MVC).
    public static let subsetSequenceParameterSet = NALUnitType(rawValue: 15)
    /// 16: depth parameter set (3D-AVC).
    public static let depthParameterSet = NALUnitType(rawValue: 16)
    /// 19: coded slice of an auxiliary coded picture without partitioning.
    public static let codedSliceAuxiliary = NALUnitType(rawValue: 19)
    /// 20: coded slice extension (SVC/MVC).
    public static let codedSliceExtension = NALUnitType(rawValue: 20)
    /// 21: coded slice extension for a depth view component (3D-AVC).
    public static let codedSliceExtensionDepth = NALUnitType(rawValue: 21)

    /// VCL NAL units (Table 7-1, "Annex A" column): coded slices and slice data partitions, types 1...5.
    public var isVCL: Bool { (1...5).contains(rawValue) }

    /// An IDR slice: the picture resets reference and POC state.
    public var isIDR: Bool { rawValue == 5 }

    /// The Table 7-1 name, for logs and test output.
    public var description: String {
        switch rawValue {
        case 0: return "unspecified"
        case 1: return "non-IDR slice"
        case 2: return "slice data partition A"
        case 3: return "slice data partition B"
        case 4: return "slice data partition C"
        case 5: return "IDR slice"
        case 6: return "SEI"
        case 7: return "SPS"
        case 8: return "PPS"
        case 9: return "AUD"
        case 10: return "end of sequence"
        case 11: return "end of stream"
        case 12: return "filler data"
        case 13: return "SPS extension"
        case 14: return "prefix NAL unit"
        case 15: return "subset SPS"
        case 16: return "depth parameter set"
        case 19: return "auxiliary slice"
        case 20: return "slice extension"
        case 21: return "depth slice extension"
        case 17, 18, 22, 23: return "reserved (\(rawValue))"
        default: return "unspecified (\(rawValue))"
        }
    }
}

/// The one-byte NAL unit header (§7.3.1): forbidden_zero_bit, nal_ref_idc, nal_unit_type.
public struct NALUnitHeader: Hashable, Sendable {
    /// forbidden_zero_bit: must be 0; kept so callers can decide how strict to be.
    public var forbiddenZeroBit: Bool
    /// nal_ref_idc (0...3): nonzero when the NAL unit belongs to a reference picture or is a parameter set.
    public var nalRefIdc: UInt8
    /// nal_unit_type.
    public var nalUnitType: NALUnitType

    /// The header held in the first byte of a NAL unit (bit layout: 1 forbidden + 2 ref_idc + 5 type).
    public init(_ byte: UInt8) {
        forbiddenZeroBit = byte & 0x80 != 0
        nalRefIdc = (byte >> 5) & 0x03
        nalUnitType = NALUnitType(rawValue: byte & 0x1F)
    }

    /// A header from its fields; `nalRefIdc` above 3 is a programmer error.
    public init(nalRefIdc: UInt8, nalUnitType: NALUnitType) {
        precondition(nalRefIdc < 4, "nal_ref_idc is a 2-bit field")
        self.forbiddenZeroBit = false
        self.nalRefIdc = nalRefIdc
        self.nalUnitType = nalUnitType
    }

    /// The header of a NAL unit's bytes; empty input throws `.truncated`.
    public init(parsing nalUnit: some Collection<UInt8>) throws {
        guard let first = nalUnit.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        self.init(first)
    }

    /// The header byte as written on the wire.
    public var byte: UInt8 {
        (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc & 0x03) << 5 | nalUnitType.rawValue
    }

    /// True for a slice of an IDR picture.
    public var isIDR: Bool { nalUnitType.isIDR }
    /// True for VCL NAL units (coded slice data).
    public var isVCL: Bool { nalUnitType.isVCL }
}
