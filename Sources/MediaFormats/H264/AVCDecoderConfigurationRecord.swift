// ISO/IEC 14496-15 (2019) §5.3.3.1 AVCDecoderConfigurationRecord (the `avcC` box payload, FLV's AVC sequence
// header, and FFmpeg's extradata for MP4/FLV input). Profile fields come from the SPS, ITU-T H.264 §7.3.2.1.1.

/// The decoder configuration record: profile, level, NAL unit length size and the parameter sets.
public struct AVCDecoderConfigurationRecord: Equatable, Sendable {
    /// configurationVersion (always 1).
    public var configurationVersion: UInt8 = 1
    /// AVCProfileIndication: profile_idc of the SPS.
    public var profileIndication: UInt8
    /// profile_compatibility: the SPS byte holding constraint_set0...5_flag.
    public var profileCompatibility: UInt8
    /// AVCLevelIndication: level_idc of the SPS.
    public var levelIndication: UInt8
    /// lengthSizeMinusOne + 1: 1, 2 or 4 bytes before each NAL unit of a sample.
    public var nalUnitLengthSize: Int
    /// sequenceParameterSetNALUnit entries (whole NAL units, at most 31).
    public var sequenceParameterSets: [[UInt8]]
    /// pictureParameterSetNALUnit entries (whole NAL units, at most 255).
    public var pictureParameterSets: [[UInt8]]
    /// The fields written for profiles other than Baseline, Main and Extended; nil when a file omits them.
    public var highProfileFields: HighProfileFields?

    /// The trailer written when the profile is not 66, 77 or 88.
    public struct HighProfileFields: Equatable, Sendable {
        /// chroma_format (chroma_format_idc of the SPS, 0...3).
        public var chromaFormat: UInt8
        /// bit_depth_luma_minus8 + 8.
        public var bitDepthLuma: Int
        /// bit_depth_chroma_minus8 + 8.
        public var bitDepthChroma: Int
        /// sequenceParameterSetExtNALUnit entries (at most 255).
        public var sequenceParameterSetExtensions: [[UInt8]]

        /// The trailer from its fields.
        public init(chromaFormat: UInt8, bitDepthLuma: Int, bitDepthChroma: Int, sequenceParameterSetExtensions: [[UInt8]] = []) {
            self.chromaFormat = chromaFormat
            self.bitDepthLuma = bitDepthLuma
            self.bitDepthChroma = bitDepthChroma
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }

    /// A parameter set's length is written in 16 bits.
    public static let maximumParameterSetLength = 0xFFFF
    /// numOfSequenceParameterSets is 5 bits.
    public static let maximumSequenceParameterSets = 31
    /// numOfPictureParameterSets and numOfSequenceParameterSetExt are 8 bits.
    public static let maximumPictureParameterSets = 255
    /// Bytes before the first parameter set (version, profile, compatibility, level, length size, SPS count).
    public static let fixedHeaderLength = 6

    /// A record from its fields.
    public init(
        profileIndication: UInt8,
        profileCompatibility: UInt8,
        levelIndication: UInt8,
        nalUnitLengthSize: Int = 4,
        sequenceParameterSets: [[UInt8]],
        pictureParameterSets: [[UInt8]],
        highProfileFields: HighProfileFields? = nil
    ) {
        self.profileIndication = profileIndication
        self.profileCompatibility = profileCompatibility
        self.levelIndication = levelIndication
        self.nalUnitLengthSize = nalUnitLengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.highProfileFields = highProfileFields
    }

    /// True when `profile` is followed by the chroma/bit-depth trailer (14496-15: every profile but 66, 77, 88).
    public static func hasHighProfileFields(profileIndication profile: UInt8) -> Bool {
        profile != 66 && profile != 77 && profile != 88
    }

    /// True when extradata is an AVCDecoderConfigurationRecord (configurationVersion 1) rather than Annex B,
    /// which always starts with a zero byte.
    public static func isAVCC(_ extradata: some Collection<UInt8>) -> Bool {
        extradata.first == 1
    }

    /// Parses a record. A missing High-profile trailer is tolerated (many files omit it); a partial one throws.
    public init(parsing bytes: some Collection<UInt8>) throws {
        var reader = ByteReader(Array(bytes))
        configurationVersion = try reader.readUInt8()
        guard configurationVersion == 1 else {
            throw MediaFormatError.invalid(
                structure: "AVCDecoderConfigurationRecord", reason: "configurationVersion \(configurationVersion) (must be 1)")
        }
        profileIndication = try reader.readUInt8()
        profileCompatibility = try reader.readUInt8()
        levelIndication = try reader.readUInt8()
        // 6 bits reserved (111111) + 2 bits lengthSizeMinusOne.
        nalUnitLengthSize = Int(try reader.readUInt8() & 0x03) + 1
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        // 3 bits reserved (111) + 5 bits numOfSequenceParameterSets.
        let spsCount = Int(try reader.readUInt8() & 0x1F)
        sequenceParameterSets = try Self.readParameterSets(&reader, count: spsCount)
        let ppsCount = Int(try reader.readUInt8())
        pictureParameterSets = try Self.readParameterSets(&reader, count: ppsCount)
        if Self.hasHighProfileFields(profileIndication: profileIndication) && !reader.isAtEnd {
            // 6 bits reserved (111111) + 2 bits chroma_format.
            let chromaFormat = try reader.readUInt8() & 0x03
            // 5 bits reserved (11111) + 3 bits bit_depth_luma_minus8, then the same for chroma.
            let bitDepthLuma = Int(try reader.readUInt8() & 0x07) + 8
            let bitDepthChroma = Int(try reader.readUInt8() & 0x07) + 8
            let extensionCount = Int(try reader.readUInt8())
            let extensions = try Self.readParameterSets(&reader, count: extensionCount)
            highProfileFields = HighProfileFields(
                chromaFormat: chromaFormat, bitDepthLuma: bitDepthLuma, bitDepthChroma: bitDepthChroma,
                sequenceParameterSetExtensions: extensions)
        }
    }

    /// `count` entries of a 16-bit length followed by that many bytes; an empty entry is invalid.
    private static func readParameterSets(_ reader: inout ByteReader, count: Int) throws -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(try reader.readUInt16())
            guard length > 0 else {
                throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "empty parameter set")
            }
            sets.append(Array(try reader.readBytes(length)))
        }
        return sets
    }

    /// Appends the record; counts and lengths over their field widths throw `.limitExceeded`.
    public func write(into output: inout [UInt8]) throws {
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        try Self.checkCount(sequenceParameterSets, "numOfSequenceParameterSets", Self.maximumSequenceParameterSets)
        try Self.checkCount(pictureParameterSets, "numOfPictureParameterSets", Self.maximumPictureParameterSets)
        output.append(configurationVersion)
        output.append(profileIndication)
        output.append(profileCompatibility)
        output.append(levelIndication)
        output.append(0xFC | UInt8(nalUnitLengthSize - 1))  // 6 bits reserved (111111) + 2 bits lengthSizeMinusOne
        output.append(0xE0 | UInt8(sequenceParameterSets.count))  // 3 bits reserved (111) + 5 bits numOfSequenceParameterSets
        Self.writeParameterSets(sequenceParameterSets, into: &output)
        output.append(UInt8(pictureParameterSets.count))
        Self.writeParameterSets(pictureParameterSets, into: &output)
        if let fields = highProfileFields {
            try Self.checkCount(fields.sequenceParameterSetExtensions, "numOfSequenceParameterSetExt", Self.maximumPictureParameterSets)
            guard fields.chromaFormat <= 3, (8...15).contains(fields.bitDepthLuma), (8...15).contains(fields.bitDepthChroma) else {
                throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "chroma format or bit depth out of range")
            }
            output.append(0xFC | fields.chromaFormat)  // 6 bits reserved (111111) + 2 bits chroma_format
            output.append(0xF8 | UInt8(fields.bitDepthLuma - 8))  // 5 bits reserved (11111) + 3 bits bit_depth_luma_minus8
            output.append(0xF8 | UInt8(fields.bitDepthChroma - 8))  // 5 bits reserved (11111) + 3 bits bit_depth_chroma_minus8
            output.append(UInt8(fields.sequenceParameterSetExtensions.count))
            Self.writeParameterSets(fields.sequenceParameterSetExtensions, into: &output)
        }
    }

    /// The record as bytes.
    public func serialized() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try write(into: &bytes)
        return bytes
    }

    private static func checkCount(_ sets: [[UInt8]], _ what: String, _ limit: Int) throws {
        guard sets.count <= limit else {
            throw MediaFormatError.limitExceeded(what: what, value: sets.count, limit: limit)
        }
        for set in sets {
            guard !set.isEmpty else {
                throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "empty parameter set")
            }
            guard set.count <= maximumParameterSetLength else {
                throw MediaFormatError.limitExceeded(what: "parameter set length", value: set.count, limit: maximumParameterSetLength)
            }
        }
    }

    private static func writeParameterSets(_ sets: [[UInt8]], into output: inout [UInt8]) {
        for set in sets {
            output.appendUInt16(UInt16(set.count))  // checked against maximumParameterSetLength first
            output.append(contentsOf: set)
        }
    }

    /// Builds a record from whole SPS and PPS NAL units: profile, compatibility and level come from the first SPS
    /// (bytes 1...3); for profiles other than 66/77/88 the trailer is filled from that SPS's chroma and bit depth.
    public init(
        sequenceParameterSets: [[UInt8]],
        pictureParameterSets: [[UInt8]],
        nalUnitLengthSize: Int = 4,
        sequenceParameterSetExtensions: [[UInt8]] = []
    ) throws {
        guard let first = sequenceParameterSets.first else {
            throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "no sequence parameter set")
        }
        guard !pictureParameterSets.isEmpty else {
            throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "no picture parameter set")
        }
        try AVCC.validate(lengthSize: nalUnitLengthSize)
        let prefix = try SPSPrefix(first)
        self.init(
            profileIndication: prefix.profileIdc,
            profileCompatibility: prefix.constraintFlags,
            levelIndication: prefix.levelIdc,
            nalUnitLengthSize: nalUnitLengthSize,
            sequenceParameterSets: sequenceParameterSets,
            pictureParameterSets: pictureParameterSets
        )
        if Self.hasHighProfileFields(profileIndication: prefix.profileIdc) {
            highProfileFields = HighProfileFields(
                chromaFormat: UInt8(prefix.chromaFormatIdc),
                bitDepthLuma: prefix.bitDepthLuma,
                bitDepthChroma: prefix.bitDepthChroma,
                sequenceParameterSetExtensions: sequenceParameterSetExtensions
            )
        }
    }

    /// Builds a record from Annex B extradata (SPS, PPS and SPS extension NAL units after start codes, as FFmpeg
    /// hands over for MPEG-TS and raw input and from encoders with a global header); other NAL units are ignored.
    public init(annexB extradata: [UInt8], nalUnitLengthSize: Int = 4) throws {
        var sps: [[UInt8]] = []
        var pps: [[UInt8]] = []
        var extensions: [[UInt8]] = []
        for nalUnit in AnnexB.nalUnits(in: extradata) {
            switch NALUnitHeader(nalUnit[nalUnit.startIndex]).nalUnitType {
            case .sequenceParameterSet: sps.append(Array(nalUnit))
            case .pictureParameterSet: pps.append(Array(nalUnit))
            case .sequenceParameterSetExtension: extensions.append(Array(nalUnit))
            default: continue
            }
        }
        try self.init(
            sequenceParameterSets: sps, pictureParameterSets: pps,
            nalUnitLengthSize: nalUnitLengthSize, sequenceParameterSetExtensions: extensions)
    }

    /// The leading SPS fields the record needs, read without the rest of the SPS so that an SPS with a
    /// damaged VUI still yields a record, as FFmpeg's avcC writer allows.
    private struct SPSPrefix {
        var profileIdc: UInt8
        var constraintFlags: UInt8
        var levelIdc: UInt8
        var chromaFormatIdc = 1
        var bitDepthLuma = 8
        var bitDepthChroma = 8

        init(_ nalUnit: [UInt8]) throws {
            guard let first = nalUnit.first, NALUnitHeader(first).nalUnitType == .sequenceParameterSet else {
                throw MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "first parameter set is not an SPS")
            }
            // Header, three bytes, then at most four ue(v) fields: 32 bytes cover them with emulation prevention.
            var reader = BitReader(EmulationPrevention.removing(from: nalUnit.dropFirst().prefix(32)))
            profileIdc = UInt8(try reader.readBits(8))
            constraintFlags = UInt8(try reader.readBits(8))
            levelIdc = UInt8(try reader.readBits(8))
            _ = try SequenceParameterSet.readBounded(&reader, "seq_parameter_set_id", 31)
            if SequenceParameterSet.chromaFormatProfiles.contains(profileIdc) {
                chromaFormatIdc = try SequenceParameterSet.readBounded(&reader, "chroma_format_idc", 3)
                if chromaFormatIdc == 3 { _ = try reader.readFlag() }  // separate_colour_plane_flag
                bitDepthLuma = 8 + (try SequenceParameterSet.readBounded(&reader, "bit_depth_luma_minus8", 6))
                bitDepthChroma = 8 + (try SequenceParameterSet.readBounded(&reader, "bit_depth_chroma_minus8", 6))
            }
        }
    }
}
