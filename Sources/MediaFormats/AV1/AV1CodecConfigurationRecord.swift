// AV1 Codec ISO Media File Format Binding (v1.2.0) §2.3 AV1CodecConfigurationRecord ("av1C"): 4 bytes summarising
// the sequence header, then configOBUs (the sequence header OBU and optional metadata OBUs).

/// The av1C record.
public struct AV1CodecConfigurationRecord: Sendable, Equatable {
    /// seq_profile (3 bits).
    public var seqProfile: UInt8
    /// seq_level_idx[0] (5 bits).
    public var seqLevelIdx0: UInt8
    /// seq_tier[0].
    public var seqTier0: Bool
    /// high_bitdepth, twelve_bit, mono_chrome, subsampling_x, subsampling_y as color_config() sets them.
    public var highBitdepth: Bool
    public var twelveBit: Bool
    public var monochrome: Bool
    public var chromaSubsamplingX: Bool
    public var chromaSubsamplingY: Bool
    /// chroma_sample_position (2 bits).
    public var chromaSamplePosition: UInt8
    /// initial_presentation_delay_minus_one (4 bits) when initial_presentation_delay_present.
    public var initialPresentationDelayMinusOne: UInt8?
    /// configOBUs: zero or one sequence header OBU, then metadata OBUs, each with obu_size.
    public var configOBUs: [UInt8]

    /// marker (1) + version (1) in the first byte.
    public static let markerAndVersion: UInt8 = 0x81
    /// The four bytes before configOBUs.
    public static let fixedSize = 4

    private static let structure = "AV1CodecConfigurationRecord"

    /// A record from its fields.
    public init(seqProfile: UInt8, seqLevelIdx0: UInt8, seqTier0: Bool, highBitdepth: Bool, twelveBit: Bool,
                monochrome: Bool, chromaSubsamplingX: Bool, chromaSubsamplingY: Bool, chromaSamplePosition: UInt8,
                initialPresentationDelayMinusOne: UInt8? = nil, configOBUs: [UInt8]) {
        self.seqProfile = seqProfile
        self.seqLevelIdx0 = seqLevelIdx0
        self.seqTier0 = seqTier0
        self.highBitdepth = highBitdepth
        self.twelveBit = twelveBit
        self.monochrome = monochrome
        self.chromaSubsamplingX = chromaSubsamplingX
        self.chromaSubsamplingY = chromaSubsamplingY
        self.chromaSamplePosition = chromaSamplePosition
        self.initialPresentationDelayMinusOne = initialPresentationDelayMinusOne
        self.configOBUs = configOBUs
    }

    /// The record for a sequence header OBU (obu_header included, as found in-band): its fields and the OBU itself.
    public init(sequenceHeaderOBU bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let obu = try AV1OBU(parsing: &reader)
        guard obu.header.type == .sequenceHeader else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "OBU type \(obu.header.type), not a sequence header")
        }
        let header = try AV1SequenceHeader(parsing: obu.payload)
        var config: [UInt8] = []
        try AV1OBU(header: AV1OBUHeader(type: .sequenceHeader), payload: obu.payload).write(into: &config)
        let color = header.colorConfig
        self.init(seqProfile: header.seqProfile, seqLevelIdx0: header.operatingPoints.first?.levelIdx ?? 0,
                  seqTier0: header.operatingPoints.first?.tier ?? false, highBitdepth: color.highBitdepth,
                  twelveBit: color.twelveBit, monochrome: color.monochrome, chromaSubsamplingX: color.subsamplingX,
                  chromaSubsamplingY: color.subsamplingY, chromaSamplePosition: color.chromaSamplePosition,
                  configOBUs: config)
    }

    /// The sequence header in configOBUs; nil when there is none.
    public func sequenceHeader() throws -> AV1SequenceHeader? {
        guard let obu = try AV1OBU.all(in: configOBUs).first(where: { $0.header.type == .sequenceHeader }) else { return nil }
        return try AV1SequenceHeader(parsing: obu.payload)
    }

    /// Parses a whole record.
    public init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt8()
        guard first == Self.markerAndVersion else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "marker/version byte \(first) (must be 0x81)")
        }
        // 3 bits seq_profile + 5 bits seq_level_idx_0.
        let profile = try reader.readUInt8()
        seqProfile = profile >> 5
        seqLevelIdx0 = profile & 0x1F
        // seq_tier_0, high_bitdepth, twelve_bit, monochrome, subsampling_x, subsampling_y, 2 bits chroma_sample_position.
        let flags = try reader.readUInt8()
        seqTier0 = flags & 0x80 != 0
        highBitdepth = flags & 0x40 != 0
        twelveBit = flags & 0x20 != 0
        monochrome = flags & 0x10 != 0
        chromaSubsamplingX = flags & 0x08 != 0
        chromaSubsamplingY = flags & 0x04 != 0
        chromaSamplePosition = flags & 0x03
        // 3 bits reserved + 1 bit initial_presentation_delay_present + 4 bits delay − 1 (or reserved).
        let delay = try reader.readUInt8()
        initialPresentationDelayMinusOne = delay & 0x10 != 0 ? delay & 0x0F : nil
        configOBUs = Array(reader.readRemaining())
        // configOBUs must be whole OBUs.
        _ = try AV1OBU.all(in: configOBUs)
    }

    /// Appends the record.
    public func write(into out: inout [UInt8]) throws {
        guard seqProfile <= AV1SequenceHeader.maxProfile, seqLevelIdx0 < 32, chromaSamplePosition < 4 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "profile \(seqProfile) level \(seqLevelIdx0)")
        }
        out.append(Self.markerAndVersion)
        out.append(seqProfile << 5 | seqLevelIdx0)
        out.append((seqTier0 ? 0x80 : 0) | (highBitdepth ? 0x40 : 0) | (twelveBit ? 0x20 : 0) | (monochrome ? 0x10 : 0)
                   | (chromaSubsamplingX ? 0x08 : 0) | (chromaSubsamplingY ? 0x04 : 0) | chromaSamplePosition)
        if let initialPresentationDelayMinusOne {
            out.append(0x10 | initialPresentationDelayMinusOne & 0x0F)
        } else {
            out.append(0)
        }
        out.append(contentsOf: configOBUs)
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }
}
