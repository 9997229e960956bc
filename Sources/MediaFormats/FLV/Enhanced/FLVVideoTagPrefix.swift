// Adobe FLV v10.1 §E.4.3.1 VideoTagHeader and Enhanced RTMP v2 "Enhanced Video" (ExVideoTagHeader): the head of a
// video message up to its first track's id, read without the track loop, for code that routes messages (a relay's
// keyframe gate, sequence-header replay) and must not copy or walk every track of every frame.

/// What a video message is, read from its first bytes: frame and packet type, the first track's codec and id.
///
/// Agrees with `FLVVideoData(parsing:)` on every field it has (the tests hold both to one case table); it reads less,
/// so a message whose later tracks are malformed still has a prefix.
public struct FLVVideoTagPrefix: Sendable, Equatable {
    /// VideoFrameType (for a Metadata packet, whose frame type is to be ignored: `.videoInfoFrame`).
    public var frameType: FLVVideoFrameType
    /// VideoPacketType after ModEx and Multitrack signalling; legacy AVC's packet types mapped to the enhanced ones,
    /// other legacy codecs `.codedFrames`.
    public var packetType: FLVVideoPacketType
    /// True for a command frame (frame type 5 other than Metadata): no codec data follows.
    public var isCommand: Bool
    /// The first track's codec (nil for a command frame of an ex-header, which names none).
    public var codec: FLVVideoCodec?
    /// The first track's id (0 outside multitrack messages).
    public var trackID: UInt8
    /// AvMultitrackType when the message is in multitrack mode.
    public var multitrackType: FLVMultitrackType?

    private static let structure = "FLV video data"

    /// Coded frames (CodedFrames or CodedFramesX), not a configuration, end of sequence, metadata or command.
    public var isCodedFrames: Bool { !isCommand && (packetType == .codedFrames || packetType == .codedFramesX) }

    /// Coded frames of a key frame: where a decoder of this track can start.
    public var isKeyframe: Bool { isCodedFrames && frameType == .keyFrame }

    /// A codec configuration (avcC, hvcC, av1C, vpcC, or av01's MPEG-2 TS descriptor) to replay to late joiners.
    public var isSequenceStart: Bool {
        !isCommand && (packetType == .sequenceStart || packetType == .mpeg2TSSequenceStart)
    }

    /// Reads the head of the whole data of a video tag.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard let first = bytes.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        var reader = ByteReader(bytes)
        guard first & FLVEnhancedLimits.videoExHeaderBit != 0 else {
            let header = try FLVVideoTagHeader(parsing: &reader)
            self.init(frameType: header.frameType, packetType: header.enhancedPacketType,
                      isCommand: header.frameType == .videoInfoFrame, codec: .legacy(header.codecID))
            return
        }
        let head = try FLVExVideoHead(parsing: &reader, structure: Self.structure)
        if let commandPacketType = head.commandPacketType {
            self.init(frameType: head.frameType, packetType: commandPacketType, isCommand: true, codec: nil)
            return
        }
        let track: FLVFirstTrack<FLVVideoPacketType, FLVVideoFourCC> = try FLVMultitrackBody.readFirstTrack(
            rawPacketType: head.rawPacketType, from: &reader, structure: Self.structure)
        self.init(frameType: head.frameType, packetType: track.packetType, isCommand: false, codec: .fourCC(track.fourCC),
                  trackID: track.id, multitrackType: track.multitrackType)
    }

    private init(
        frameType: FLVVideoFrameType, packetType: FLVVideoPacketType, isCommand: Bool, codec: FLVVideoCodec?,
        trackID: UInt8 = 0, multitrackType: FLVMultitrackType? = nil
    ) {
        self.frameType = frameType
        self.packetType = packetType
        self.isCommand = isCommand
        self.codec = codec
        self.trackID = trackID
        self.multitrackType = multitrackType
    }

    /// Reads the head of the whole data of a video tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }
}
