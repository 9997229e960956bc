// Adobe Flash Video File Format Specification v10.1, §E.2 The FLV header.

/// The 9-byte header at the start of an FLV file: signature, version, which streams are present.
public struct FLVHeader: Sendable, Equatable {
    /// TypeFlagsAudio: audio tags are present.
    public let hasAudio: Bool
    /// TypeFlagsVideo: video tags are present.
    public let hasVideo: Bool
    /// DataOffset: the header's own size (9 in version 1); the body starts there.
    public let dataOffset: Int

    /// A version 1 header with DataOffset 9.
    public init(hasAudio: Bool, hasVideo: Bool) {
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.dataOffset = FLVLimits.headerSize
    }

    /// Parses the header; checks the "FLV" signature, version 1 and a DataOffset of at least 9.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        let signature = Array(try r.readBytes(FLVLimits.signature.count))
        guard signature == FLVLimits.signature else {
            throw MediaFormatError.invalid(structure: "FLV header", reason: "signature is not \"FLV\"")
        }
        let version = try r.readUInt8()
        guard version == FLVLimits.version else {
            throw MediaFormatError.unsupported(structure: "FLV header", reason: "version \(version)")
        }
        // 5 reserved bits, TypeFlagsAudio, 1 reserved bit, TypeFlagsVideo.
        let flags = try r.readUInt8()
        let dataOffset = try r.readUInt32()
        guard dataOffset >= UInt32(FLVLimits.headerSize) else {
            throw MediaFormatError.invalid(
                structure: "FLV header", reason: "DataOffset \(dataOffset) is smaller than the 9-byte header")
        }
        self.hasAudio = flags & FLVHeaderFlags.audio != 0
        self.hasVideo = flags & FLVHeaderFlags.video != 0
        self.dataOffset = Int(dataOffset)
        reader = r
    }

    /// Appends the 9-byte header (not PreviousTagSize0).
    public func write(into out: inout [UInt8]) {
        out.append(contentsOf: FLVLimits.signature)
        out.append(FLVLimits.version)
        out.append((hasAudio ? FLVHeaderFlags.audio : 0) | (hasVideo ? FLVHeaderFlags.video : 0))
        out.appendUInt32(UInt32(FLVLimits.headerSize))
    }
}
