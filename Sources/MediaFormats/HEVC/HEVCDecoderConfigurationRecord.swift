// ISO/IEC 14496-15 (2022) §8.3.3.1 HEVCDecoderConfigurationRecord ("hvcC"): 23 bytes of profile, chroma, bit depth
// and timing fields, then arrays of NAL units (VPS, SPS, PPS, SEI) each with a 16-bit count and 16-bit lengths.

/// The hvcC record: general profile fields, NAL unit length size and the parameter set arrays.
public struct HEVCDecoderConfigurationRecord: Sendable, Equatable {
    /// One array of NAL units of a single type.
    public struct NALUnitArray: Sendable, Equatable {
        /// array_completeness: every NAL unit of this type is in the array (none in the samples).
        public var completeness: Bool
        /// NAL_unit_type (VPS, SPS, PPS, prefix or suffix SEI).
        public var nalUnitType: HEVCNALUnitType
        /// The NAL units, 2-byte headers included.
        public var nalUnits: [[UInt8]]
    }

    /// configurationVersion (1).
    public var configurationVersion: UInt8 = Self.version
    /// general_profile_space, general_tier_flag, general_profile_idc, compatibility and constraint flags, level.
    public var profileTierLevel: HEVCProfileTierLevel
    /// min_spatial_segmentation_idc (12 bits).
    public var minSpatialSegmentationIdc: UInt16
    /// parallelismType (2 bits): 0 unknown or mixed, 1 slices, 2 tiles, 3 wavefront.
    public var parallelismType: UInt8
    /// chromaFormat (chroma_format_idc, 2 bits).
    public var chromaFormatIdc: UInt8
    /// bitDepthLumaMinus8 + 8 and bitDepthChromaMinus8 + 8 (3 bits each: 8...15).
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// avgFrameRate in frames per 256 s; 0 unspecified.
    public var averageFrameRate: UInt16
    /// constantFrameRate (2 bits): 0 unknown, 1 constant, 2 constant per temporal layer.
    public var constantFrameRate: UInt8
    /// numTemporalLayers (3 bits): 0 unknown.
    public var numTemporalLayers: UInt8
    /// temporalIdNested.
    public var temporalIdNested: Bool
    /// lengthSizeMinusOne + 1: 1, 2 or 4.
    public var nalUnitLengthSize: Int
    /// The NAL unit arrays, in record order.
    public var arrays: [NALUnitArray]

    /// The only configurationVersion.
    public static let version: UInt8 = 1
    /// Bytes before numOfArrays.
    public static let fixedSize = 22
    /// numOfArrays is 8 bits; numNalus and nalUnitLength are 16 bits.
    public static let maxArrays = 0xFF
    public static let maxNALUnitsPerArray = 0xFFFF
    public static let maxNALUnitLength = 0xFFFF
    /// Bit depths the 3-bit fields can carry.
    public static let bitDepthRange = 8...15

    private static let structure = "HEVCDecoderConfigurationRecord"

    /// A record from its fields.
    public init(
        profileTierLevel: HEVCProfileTierLevel, minSpatialSegmentationIdc: UInt16 = 0, parallelismType: UInt8 = 0,
        chromaFormatIdc: UInt8, bitDepthLuma: Int, bitDepthChroma: Int, averageFrameRate: UInt16 = 0,
        constantFrameRate: UInt8 = 0, numTemporalLayers: UInt8, temporalIdNested: Bool, nalUnitLengthSize: Int = 4,
        arrays: [NALUnitArray]
    ) {
        self.profileTierLevel = profileTierLevel
        self.minSpatialSegmentationIdc = minSpatialSegmentationIdc
        self.parallelismType = parallelismType
        self.chromaFormatIdc = chromaFormatIdc
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
        self.averageFrameRate = averageFrameRate
        self.constantFrameRate = constantFrameRate
        self.numTemporalLayers = numTemporalLayers
        self.temporalIdNested = temporalIdNested
        self.nalUnitLengthSize = nalUnitLengthSize
        self.arrays = arrays
    }

    /// A record for in-band parameter sets: the general fields come from the first SPS (array_completeness 1).
    public init(videoParameterSets: [[UInt8]], sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]],
                nalUnitLengthSize: Int = 4) throws {
        guard let first = sequenceParameterSets.first else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no SPS")
        }
        let sps = try HEVCSequenceParameterSet(parsing: first)
        guard Self.bitDepthRange.contains(sps.bitDepthLuma), Self.bitDepthRange.contains(sps.bitDepthChroma) else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "bit depth \(sps.bitDepthLuma)/\(sps.bitDepthChroma)")
        }
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        self.init(
            profileTierLevel: sps.profileTierLevel, chromaFormatIdc: UInt8(sps.chromaFormatIdc),
            bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma,
            numTemporalLayers: UInt8(sps.maxSubLayers), temporalIdNested: sps.temporalIdNesting,
            nalUnitLengthSize: nalUnitLengthSize,
            arrays: [(HEVCNALUnitType.videoParameterSet, videoParameterSets), (.sequenceParameterSet, sequenceParameterSets),
                     (.pictureParameterSet, pictureParameterSets)]
                .filter { !$0.1.isEmpty }
                .map { NALUnitArray(completeness: true, nalUnitType: $0.0, nalUnits: $0.1) })
    }

    /// The NAL units of one type, in record order.
    public func nalUnits(ofType type: HEVCNALUnitType) -> [[UInt8]] {
        arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits)
    }

    /// The first SPS of the record, parsed (size, chroma, bit depth, frame rate); nil when the record has none.
    public func sequenceParameterSet() throws -> HEVCSequenceParameterSet? {
        try nalUnits(ofType: .sequenceParameterSet).first.map { try HEVCSequenceParameterSet(parsing: $0) }
    }

    /// True when `extradata` looks like an hvcC (configurationVersion 1) rather than Annex B (starting 00 00).
    public static func isHVCC(_ extradata: some Collection<UInt8>) -> Bool {
        extradata.count >= fixedSize + 1 && extradata.first == version
    }

    /// Parses a whole record.
    public init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        try self.init(parsing: &reader)
    }

    /// Parses a record from `reader`, which advances past it only on success.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        configurationVersion = try r.readUInt8()
        guard configurationVersion == Self.version else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "configurationVersion \(configurationVersion) (must be 1)")
        }
        // 2 bits general_profile_space + 1 bit general_tier_flag + 5 bits general_profile_idc.
        let profile = try r.readUInt8()
        let compatibility = try r.readUInt32()
        let constraints = try r.readUInt(byteCount: 6)
        profileTierLevel = HEVCProfileTierLevel(
            profileSpace: profile >> 6, tierFlag: profile & 0x20 != 0, profileIdc: profile & 0x1F,
            profileCompatibilityFlags: compatibility, constraintIndicatorFlags: constraints, levelIdc: try r.readUInt8())
        // 4 bits reserved (1111) + 12 bits min_spatial_segmentation_idc.
        minSpatialSegmentationIdc = try r.readUInt16() & 0x0FFF
        // 6 bits reserved (111111) + 2 bits parallelismType; the same for chromaFormat.
        parallelismType = try r.readUInt8() & 0x03
        chromaFormatIdc = try r.readUInt8() & 0x03
        // 5 bits reserved (11111) + 3 bits bitDepthLumaMinus8; the same for chroma.
        bitDepthLuma = Int(try r.readUInt8() & 0x07) + 8
        bitDepthChroma = Int(try r.readUInt8() & 0x07) + 8
        averageFrameRate = try r.readUInt16()
        // 2 bits constantFrameRate + 3 bits numTemporalLayers + 1 bit temporalIdNested + 2 bits lengthSizeMinusOne.
        let timing = try r.readUInt8()
        constantFrameRate = timing >> 6
        numTemporalLayers = (timing >> 3) & 0x07
        temporalIdNested = timing & 0x04 != 0
        nalUnitLengthSize = Int(timing & 0x03) + 1
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        let arrayCount = Int(try r.readUInt8())
        var arrays: [NALUnitArray] = []
        for _ in 0..<arrayCount {
            // 1 bit array_completeness + 1 bit reserved (0) + 6 bits NAL_unit_type.
            let type = try r.readUInt8()
            let count = Int(try r.readUInt16())
            var nalUnits: [[UInt8]] = []
            for _ in 0..<count {
                let length = Int(try r.readUInt16())
                guard length >= HEVCNALUnitHeader.size else {
                    throw MediaFormatError.invalid(structure: Self.structure, reason: "NAL unit of \(length) bytes")
                }
                nalUnits.append(Array(try r.readBytes(length)))
            }
            arrays.append(NALUnitArray(completeness: type & 0x80 != 0, nalUnitType: HEVCNALUnitType(rawValue: type & 0x3F),
                                       nalUnits: nalUnits))
        }
        self.arrays = arrays
        reader = r
    }

    /// Appends the record; counts, lengths and fields beyond their bit widths throw.
    public func write(into out: inout [UInt8]) throws {
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        guard Self.bitDepthRange.contains(bitDepthLuma), Self.bitDepthRange.contains(bitDepthChroma) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "bit depth \(bitDepthLuma)/\(bitDepthChroma)")
        }
        guard arrays.count <= Self.maxArrays else {
            throw MediaFormatError.limitExceeded(what: "hvcC arrays", value: arrays.count, limit: Self.maxArrays)
        }
        let ptl = profileTierLevel
        out.append(configurationVersion)
        // 2 bits general_profile_space + 1 bit general_tier_flag + 5 bits general_profile_idc.
        out.append((ptl.profileSpace & 0x03) << 6 | (ptl.tierFlag ? 0x20 : 0) | ptl.profileIdc & 0x1F)
        out.appendUInt32(ptl.profileCompatibilityFlags)
        out.appendUInt16(UInt16(truncatingIfNeeded: ptl.constraintIndicatorFlags >> 32))
        out.appendUInt32(UInt32(truncatingIfNeeded: ptl.constraintIndicatorFlags))
        out.append(ptl.levelIdc)
        out.appendUInt16(0xF000 | minSpatialSegmentationIdc & 0x0FFF)  // reserved 1111 + 12 bits
        out.append(0xFC | parallelismType & 0x03)  // reserved 111111 + 2 bits
        out.append(0xFC | chromaFormatIdc & 0x03)  // reserved 111111 + 2 bits
        out.append(0xF8 | UInt8(bitDepthLuma - 8))  // reserved 11111 + 3 bits
        out.append(0xF8 | UInt8(bitDepthChroma - 8))
        out.appendUInt16(averageFrameRate)
        out.append((constantFrameRate & 0x03) << 6 | (numTemporalLayers & 0x07) << 3 | (temporalIdNested ? 0x04 : 0)
                   | UInt8(nalUnitLengthSize - 1))
        out.append(UInt8(arrays.count))
        for array in arrays {
            guard array.nalUnits.count <= Self.maxNALUnitsPerArray else {
                throw MediaFormatError.limitExceeded(what: "hvcC NAL units in an array", value: array.nalUnits.count,
                                                     limit: Self.maxNALUnitsPerArray)
            }
            // 1 bit array_completeness + 1 bit reserved (0) + 6 bits NAL_unit_type.
            out.append((array.completeness ? 0x80 : 0) | array.nalUnitType.rawValue)
            out.appendUInt16(UInt16(array.nalUnits.count))
            for nalUnit in array.nalUnits {
                guard nalUnit.count <= Self.maxNALUnitLength else {
                    throw MediaFormatError.limitExceeded(what: "hvcC NAL unit length", value: nalUnit.count, limit: Self.maxNALUnitLength)
                }
                out.appendUInt16(UInt16(nalUnit.count))
                out.append(contentsOf: nalUnit)
            }
        }
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }
}
