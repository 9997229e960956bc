// Enhanced RTMP v2, ExVideoTagHeader: 1 bit IsExHeader + 3 bits VideoFrameType + 4 bits VideoPacketType, then the
// ModEx blocks. `FLVVideoData` and `FLVVideoTagPrefix` read it alike, so it is read here once.

/// The start of an ex-header video message, up to a command frame's command or the head of its tracks.
struct FLVExVideoHead {
    /// VideoFrameType (for a Metadata packet, whose frame type is to be ignored: `.videoInfoFrame`).
    var frameType: FLVVideoFrameType
    /// The packet type the ModEx blocks ended with (it may still signal Multitrack).
    var rawPacketType: UInt8
    /// ModEx TimestampOffsetNano; nil when none was present.
    var timestampOffsetNanoseconds: UInt32?
    /// The packet type of a command frame (frame type 5, not Metadata), whose UI8 command is the whole body (no
    /// FourCC, no tracks); nil when tracks follow.
    var commandPacketType: FLVVideoPacketType?

    /// Reads the first byte and the ModEx blocks; an unknown frame type throws `.invalid`.
    init(parsing reader: inout ByteReader, structure: String) throws {
        let (first, modEx) = try FLVPacketModEx.readHead(modEx: FLVVideoPacketType.modEx.rawValue, from: &reader, structure: structure)
        let rawFrameType = (first & FLVEnhancedLimits.videoFrameTypeMask) >> 4
        timestampOffsetNanoseconds = modEx.timestampOffsetNanoseconds
        rawPacketType = modEx.packetType
        // "If VideoPacketType.Metadata is present, the FrameType flags should be ignored": read as a command frame's.
        let isMetadata = rawPacketType == FLVVideoPacketType.metadata.rawValue
        guard let frameType = FLVVideoFrameType(rawValue: rawFrameType) ?? (isMetadata ? .videoInfoFrame : nil) else {
            throw MediaFormatError.invalid(structure: structure, reason: "VideoFrameType \(rawFrameType)")
        }
        self.frameType = frameType
        guard frameType == .videoInfoFrame && !isMetadata else { return }
        guard let packetType = FLVVideoPacketType(rawValue: rawPacketType) else {
            throw MediaFormatError.unsupported(structure: structure, reason: "VideoPacketType \(rawPacketType)")
        }
        commandPacketType = packetType
    }
}
