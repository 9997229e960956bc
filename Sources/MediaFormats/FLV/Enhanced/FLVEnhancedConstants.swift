// Enhanced RTMP v2 (veovera/enhanced-rtmp, docs/enhanced/enhanced-rtmp-v2.md), "Enhanced Audio" and
// "Enhanced Video": the ExAudioTagHeader / ExVideoTagHeader signalling values and their bit layout.

/// Bits and limits of the ex-headers.
public enum FLVEnhancedLimits {
    /// Bit 7 of the first VIDEODATA byte: IsExHeader (the low 4 bits are then a VideoPacketType, not a CodecID).
    public static let videoExHeaderBit: UInt8 = 0x80
    /// Bits 6...4 of the first VIDEODATA byte of an ex-header: the 3-bit VideoFrameType.
    public static let videoFrameTypeMask: UInt8 = 0x70
    /// The low 4 bits of the first byte (packet type) and of the ModEx/multitrack bytes.
    public static let lowNibbleMask: UInt8 = 0x0F
    /// SoundFormat 9 (ExHeader) in the upper 4 bits of the first AUDIODATA byte: FourCC audio mode.
    public static let audioExHeaderSoundFormat: UInt8 = 9
    /// A FourCC is a UI32.
    public static let fourCCSize = 4
    /// sizeOfVideoTrack / sizeOfAudioTrack are UI24.
    public static let maxTrackSize = 0xFF_FFFF
    /// modExDataSize is UI8 + 1 (1...256), escaping to UI16 + 1 when the UI8 reads 255.
    public static let modExShortSizeEscape = 256
    /// The largest ModEx data: UI16 + 1.
    public static let maxModExDataSize = 0x1_0000
    /// TimestampOffsetNano is carried in at least 3 bytes (a UI24).
    public static let timestampOffsetNanoSize = 3
    /// TimestampOffsetNano: "storing values up to 999,999 ns" (below one millisecond).
    public static let maxTimestampOffsetNanoseconds: UInt32 = 999_999
}

/// VideoPacketType, the low 4 bits of an ex-header's first byte.
public enum FLVVideoPacketType: UInt8, Sendable {
    /// A codec configuration record (avcC, hvcC, av1C, vpcC).
    case sequenceStart = 0
    /// Coded frames; for avc1/hvc1/vvc1 preceded by an SI24 composition time offset.
    case codedFrames = 1
    /// End of sequence.
    case sequenceEnd = 2
    /// Coded frames with an implied composition time offset of 0 (no SI24 on the wire).
    case codedFramesX = 3
    /// AMF-encoded metadata (e.g. "colorInfo"); the frame type is to be ignored.
    case metadata = 4
    /// An MPEG-2 TS descriptor starting the sequence (av01: AV1VideoDescriptor).
    case mpeg2TSSequenceStart = 5
    /// Signals multitrack mode: a second byte carries the AvMultitrackType and the real packet type.
    case multitrack = 6
    /// Signals a ModEx block (modifier/extension data) before the real packet type.
    case modEx = 7
}

/// AudioPacketType, the low 4 bits of an ExAudioTagHeader's first byte.
public enum FLVAudioPacketType: UInt8, Sendable {
    /// A codec configuration (AudioSpecificConfig, OpusHead, FLAC STREAMINFO …).
    case sequenceStart = 0
    /// Coded frames.
    case codedFrames = 1
    /// End of sequence.
    case sequenceEnd = 2
    /// A channel layout for codecs that do not describe their own (see `FLVAudioMultichannelConfig`).
    case multichannelConfig = 4
    /// Signals multitrack mode: a second byte carries the AvMultitrackType and the real packet type.
    case multitrack = 5
    /// Signals a ModEx block (modifier/extension data) before the real packet type.
    case modEx = 7
}

/// AvMultitrackType, the upper 4 bits of the byte after a Multitrack packet type.
public enum FLVMultitrackType: UInt8, Sendable {
    /// One track, with a track id, no size (its data runs to the end of the message).
    case oneTrack = 0
    /// Several tracks of one codec, each with a track id and a UI24 size.
    case manyTracks = 1
    /// Several tracks, each with its own FourCC, a track id and a UI24 size.
    case manyTracksManyCodecs = 2
}

/// VideoPacketModExType / AudioPacketModExType, the upper 4 bits of the byte after ModEx data.
public enum FLVPacketModExType: UInt8, Sendable {
    /// The ModEx data is a UI24 nanosecond offset added to this message's millisecond timestamp.
    case timestampOffsetNano = 0
}

/// VideoCommand: the UI8 body of a video message whose frame type is 5 (video info / command frame).
public enum FLVVideoCommand: UInt8, Sendable {
    /// Start of client-side seeking video frame sequence.
    case startSeek = 0
    /// End of client-side seeking video frame sequence.
    case endSeek = 1
}
