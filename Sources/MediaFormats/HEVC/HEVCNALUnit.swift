// ITU-T H.265 (v8, 08/2021) §7.3.1.2 NAL unit header syntax, §7.4.2.2 semantics, Table 7-1 NAL unit type codes.

/// nal_unit_type (Table 7-1), 6 bits. A struct so reserved and unspecified values stay representable.
public struct HEVCNALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 6-bit code, 0...63.
    public let rawValue: UInt8

    /// A type from its 6-bit code; codes above 63 are a programmer error (headers mask the bits first).
    public init(rawValue: UInt8) {
        precondition(rawValue < 64, "nal_unit_type is a 6-bit field")
        self.rawValue = rawValue
    }

    /// 1: coded slice of a trailing picture (reference).
    public static let trailR = HEVCNALUnitType(rawValue: 1)
    /// 16: coded slice of a BLA picture with leading pictures.
    public static let blaWLP = HEVCNALUnitType(rawValue: 16)
    /// 19: coded slice of an IDR picture that may have RADL pictures.
    public static let idrWRADL = HEVCNALUnitType(rawValue: 19)
    /// 20: coded slice of an IDR picture without leading pictures.
    public static let idrNLP = HEVCNALUnitType(rawValue: 20)
    /// 21: coded slice of a CRA picture.
    public static let cra = HEVCNALUnitType(rawValue: 21)
    /// 32: video parameter set.
    public static let videoParameterSet = HEVCNALUnitType(rawValue: 32)
    /// 33: sequence parameter set.
    public static let sequenceParameterSet = HEVCNALUnitType(rawValue: 33)
    /// 34: picture parameter set.
    public static let pictureParameterSet = HEVCNALUnitType(rawValue: 34)
    /// 35: access unit delimiter.
    public static let accessUnitDelimiter = HEVCNALUnitType(rawValue: 35)
    /// 36: end of sequence.
    public static let endOfSequence = HEVCNALUnitType(rawValue: 36)
    /// 37: end of bitstream.
    public static let endOfBitstream = HEVCNALUnitType(rawValue: 37)
    /// 38: filler data.
    public static let fillerData = HEVCNALUnitType(rawValue: 38)
    /// 39: prefix SEI.
    public static let prefixSEI = HEVCNALUnitType(rawValue: 39)
    /// 40: suffix SEI.
    public static let suffixSEI = HEVCNALUnitType(rawValue: 40)

    /// VCL NAL units: coded slice segments, types 0...31 (24...31 reserved).
    public var isVCL: Bool { rawValue < 32 }
    /// Intra random access point pictures: BLA, IDR, CRA and the reserved IRAP types, 16...23.
    public var isIRAP: Bool { (16...23).contains(rawValue) }
    /// VPS, SPS or PPS.
    public var isParameterSet: Bool { (32...34).contains(rawValue) }

    /// The Table 7-1 name, for logs and test output.
    public var description: String {
        let names: [UInt8: String] = [
            0: "TRAIL_N", 1: "TRAIL_R", 2: "TSA_N", 3: "TSA_R", 4: "STSA_N", 5: "STSA_R", 6: "RADL_N", 7: "RADL_R",
            8: "RASL_N", 9: "RASL_R", 16: "BLA_W_LP", 17: "BLA_W_RADL", 18: "BLA_N_LP", 19: "IDR_W_RADL", 20: "IDR_N_LP",
            21: "CRA_NUT", 32: "VPS", 33: "SPS", 34: "PPS", 35: "AUD", 36: "EOS", 37: "EOB", 38: "FD", 39: "PREFIX_SEI",
            40: "SUFFIX_SEI",
        ]
        return names[rawValue] ?? (rawValue < 48 ? "reserved (\(rawValue))" : "unspecified (\(rawValue))")
    }
}

/// The two-byte NAL unit header: forbidden_zero_bit, nal_unit_type, nuh_layer_id, nuh_temporal_id_plus1.
public struct HEVCNALUnitHeader: Hashable, Sendable {
    /// The header's size in bytes.
    public static let size = 2

    /// forbidden_zero_bit: must be 0; kept so callers can decide how strict to be.
    public var forbiddenZeroBit: Bool
    /// nal_unit_type.
    public var nalUnitType: HEVCNALUnitType
    /// nuh_layer_id (0...63): 0 for single-layer streams.
    public var layerId: UInt8
    /// TemporalId = nuh_temporal_id_plus1 − 1 (0...6).
    public var temporalId: UInt8

    /// A header from its fields; values outside their bit widths are a programmer error.
    public init(nalUnitType: HEVCNALUnitType, layerId: UInt8 = 0, temporalId: UInt8 = 0) {
        precondition(layerId < 64 && temporalId < 7, "nuh_layer_id is 6 bits, TemporalId 0...6")
        forbiddenZeroBit = false
        self.nalUnitType = nalUnitType
        self.layerId = layerId
        self.temporalId = temporalId
    }

    /// The header of a NAL unit's bytes; fewer than 2 bytes throw `.truncated`, nuh_temporal_id_plus1 0 `.invalid`.
    public init(parsing nalUnit: some Collection<UInt8>) throws {
        var iterator = nalUnit.makeIterator()
        guard let first = iterator.next(), let second = iterator.next() else {
            throw MediaFormatError.truncated(needed: Self.size, available: nalUnit.count)
        }
        // 1 bit forbidden_zero_bit + 6 bits nal_unit_type + 6 bits nuh_layer_id + 3 bits nuh_temporal_id_plus1.
        let temporalIdPlus1 = second & 0x07
        guard temporalIdPlus1 != 0 else {
            throw MediaFormatError.invalid(structure: "HEVC NAL unit header", reason: "nuh_temporal_id_plus1 0")
        }
        forbiddenZeroBit = first & 0x80 != 0
        nalUnitType = HEVCNALUnitType(rawValue: (first >> 1) & 0x3F)
        layerId = (first & 0x01) << 5 | second >> 3
        temporalId = temporalIdPlus1 - 1
    }

    /// The two header bytes as written on the wire.
    public var bytes: [UInt8] {
        [(forbiddenZeroBit ? 0x80 : 0) | nalUnitType.rawValue << 1 | layerId >> 5, (layerId & 0x1F) << 3 | (temporalId + 1)]
    }

    /// The nal_unit_type of a NAL unit's first byte, without checking the second (hot paths).
    @inline(__always)
    static func type(ofFirstByte byte: UInt8) -> HEVCNALUnitType { HEVCNALUnitType(rawValue: (byte >> 1) & 0x3F) }
}
