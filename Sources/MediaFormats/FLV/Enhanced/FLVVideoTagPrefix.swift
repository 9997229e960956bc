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
            frameType = header.frameType
            switch header.avcPacketType {
            case .sequenceHeader: packetType = .sequenceStart
            case .endOfSequence: packetType = .sequenceEnd
            case .nalu, nil: packetType = .codedFrames
            }
            isCommand = frameType == .videoInfoFrame
            codec = .legacy(header.codecID)
            trackID = 0
            multitrackType = nil
            return
        }
        // 1 bit IsExHeader + 3 bits VideoFrameType + 4 bits VideoPacketType.
        _ = try reader.readUInt8()
        let rawFrameType = (first & FLVEnhancedLimits.videoFrameTypeMask) >> 4
        let modEx = try FLVPacketModEx.read(
            packetType: first & FLVEnhancedLimits.lowNibbleMask, modEx: FLVVideoPacketType.modEx.rawValue,
            from: &reader, structure: Self.structure)
        var rawPacketType = modEx.packetType
        let isMetadata = rawPacketType == FLVVideoPacketType.metadata.rawValue
        guard let frameType = FLVVideoFrameType(rawValue: rawFrameType) ?? (isMetadata ? .videoInfoFrame : nil) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "VideoFrameType \(rawFrameType)")
        }
        self.frameType = frameType
        trackID = 0
        if frameType == .videoInfoFrame && !isMetadata {
            guard let packetType = FLVVideoPacketType(rawValue: rawPacketType) else {
                throw MediaFormatError.unsupported(structure: Self.structure, reason: "VideoPacketType \(rawPacketType)")
            }
            self.packetType = packetType
            isCommand = true
            codec = nil
            multitrackType = nil
            return
        }
        isCommand = false
        let rawFourCC: UInt32
        let header = try FLVMultitrackBody.readHeader(
            rawPacketType: rawPacketType, multitrack: FLVVideoPacketType.multitrack.rawValue, from: &reader, structure: Self.structure)
        multitrackType = header.multitrackType
        rawPacketType = header.rawPacketType
        // The shared FourCC, or (ManyTracksManyCodecs) the first track's, then (multitrack) the first track's id.
        rawFourCC = try reader.readUInt32()
        if header.multitrackType != nil { trackID = try reader.readUInt8() }
        guard let packetType = FLVVideoPacketType(rawValue: rawPacketType),
              packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "VideoPacketType \(rawPacketType) for a track")
        }
        self.packetType = packetType
        guard let fourCC = FLVVideoFourCC(rawValue: rawFourCC) else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "VideoFourCc \"\(FourCCText.string(rawFourCC))\"")
        }
        codec = .fourCC(fourCC)
    }

    /// Reads the head of the whole data of a video tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }
}
