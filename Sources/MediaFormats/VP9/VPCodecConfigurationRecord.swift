// VP Codec ISO Media File Format Binding (v1.0, 2017) §2.2 VPCodecConfigurationRecord inside the FullBox "vpcC"
// (version 1): as FFmpeg writes it into MP4 and into Enhanced RTMP's vp09 SequenceStart, FullBox header included.

/// The vpcC record (version 1) with its FullBox version and flags.
public struct VPCodecConfigurationRecord: Sendable, Equatable {
    /// FullBox version (1; version 0 is the pre-standard layout, not supported).
    public var version: UInt8 = Self.supportedVersion
    /// FullBox flags (24 bits, 0).
    public var flags: UInt32 = 0
    /// profile (VP9: 0...3).
    public var profile: UInt8
    /// level (10 × the level number: 10, 11, 20 … 62; 0 undefined).
    public var level: UInt8
    /// bitDepth: 8, 10 or 12 (4 bits).
    public var bitDepth: UInt8
    /// chromaSubsampling (3 bits): 0 4:2:0 vertical, 1 4:2:0 colocated, 2 4:2:2, 3 4:4:4.
    public var chromaSubsampling: UInt8
    /// videoFullRangeFlag.
    public var videoFullRange: Bool
    /// colourPrimaries, transferCharacteristics, matrixCoefficients (ISO/IEC 23091-2 code points).
    public var colourPrimaries: UInt8
    public var transferCharacteristics: UInt8
    public var matrixCoefficients: UInt8
    /// codecIntializationData (empty for VP8 and VP9).
    public var codecInitializationData: [UInt8]

    /// The FullBox version this implementation reads and writes.
    public static let supportedVersion: UInt8 = 1
    /// codecIntializationDataSize is 16 bits.
    public static let maxInitializationDataSize = 0xFFFF

    private static let structure = "VPCodecConfigurationRecord"

    /// A record from its fields.
    public init(profile: UInt8, level: UInt8, bitDepth: UInt8, chromaSubsampling: UInt8, videoFullRange: Bool,
                colourPrimaries: UInt8 = 2, transferCharacteristics: UInt8 = 2, matrixCoefficients: UInt8 = 2,
                codecInitializationData: [UInt8] = []) {
        self.profile = profile
        self.level = level
        self.bitDepth = bitDepth
        self.chromaSubsampling = chromaSubsampling
        self.videoFullRange = videoFullRange
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.codecInitializationData = codecInitializationData
    }

    /// Parses the FullBox payload (version, flags, record).
    public init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        version = try reader.readUInt8()
        guard version == Self.supportedVersion else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "version \(version)")
        }
        flags = try reader.readUInt24()
        profile = try reader.readUInt8()
        level = try reader.readUInt8()
        // 4 bits bitDepth + 3 bits chromaSubsampling + 1 bit videoFullRangeFlag.
        let packed = try reader.readUInt8()
        bitDepth = packed >> 4
        chromaSubsampling = (packed >> 1) & 0x07
        videoFullRange = packed & 0x01 != 0
        colourPrimaries = try reader.readUInt8()
        transferCharacteristics = try reader.readUInt8()
        matrixCoefficients = try reader.readUInt8()
        codecInitializationData = Array(try reader.readBytes(Int(try reader.readUInt16())))
    }

    /// Appends the FullBox payload.
    public func write(into out: inout [UInt8]) throws {
        guard bitDepth < 16, chromaSubsampling < 8 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "bitDepth \(bitDepth), chromaSubsampling \(chromaSubsampling)")
        }
        guard codecInitializationData.count <= Self.maxInitializationDataSize else {
            throw MediaFormatError.limitExceeded(what: "codecIntializationDataSize", value: codecInitializationData.count,
                                                 limit: Self.maxInitializationDataSize)
        }
        out.append(version)
        out.appendUInt24(flags)
        out.append(profile)
        out.append(level)
        out.append(bitDepth << 4 | chromaSubsampling << 1 | (videoFullRange ? 1 : 0))
        out += [colourPrimaries, transferCharacteristics, matrixCoefficients]
        out.appendUInt16(UInt16(codecInitializationData.count))
        out += codecInitializationData
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }
}
