// Adobe Flash Video File Format Specification v10.1, Annex E (E.2 header, E.4 tags); values as FFmpeg's flv.h.

/// Sizes and limits of the FLV container.
public enum FLVLimits {
    /// FLV header: "FLV", version, flags, UI32 DataOffset.
    public static let headerSize = 9
    /// Tag header: UI8 type, UI24 DataSize, UI24 Timestamp, UI8 TimestampExtended, UI24 StreamID.
    public static let tagHeaderSize = 11
    /// The UI32 PreviousTagSize after the header and after every tag.
    public static let previousTagSizeSize = 4
    /// DataSize is 24 bits.
    public static let maxTagDataSize = 0xFF_FFFF
    /// CompositionTime is SI24 milliseconds.
    public static let compositionTimeRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF
    /// VideoTagHeader size for AVC: frame type/codec byte, AVCPacketType, SI24 CompositionTime.
    public static let avcVideoTagHeaderSize = 5
    /// AudioTagHeader size for AAC: format/rate/size/type byte and AACPacketType.
    public static let aacAudioTagHeaderSize = 2
    /// The only FLV version.
    public static let version: UInt8 = 1
    /// "FLV".
    public static let signature: [UInt8] = [0x46, 0x4C, 0x56]
}

/// TagType (E.4.1), the low 5 bits of the first tag byte.
public enum FLVTagType: UInt8, Sendable {
    /// Audio data (AUDIODATA).
    case audio = 8
    /// Video data (VIDEODATA).
    case video = 9
    /// Script data: AMF0 name + value (SCRIPTDATA), e.g. onMetaData.
    case scriptData = 18
}

/// Bits of the first tag byte (E.4.1).
enum FLVTagTypeBits {
    /// 2 reserved bits (must be 0).
    static let reservedMask: UInt8 = 0xC0
    /// Filter: the packet is pre-processed (encrypted), which this implementation does not support.
    static let filterMask: UInt8 = 0x20
    /// TagType in the low 5 bits.
    static let tagTypeMask: UInt8 = 0x1F
}

/// TypeFlags of the FLV header (E.2).
enum FLVHeaderFlags {
    /// TypeFlagsAudio.
    static let audio: UInt8 = 0x04
    /// TypeFlagsVideo.
    static let video: UInt8 = 0x01
}

/// FrameType (E.4.3.1), the upper 4 bits of the first VIDEODATA byte.
public enum FLVVideoFrameType: UInt8, Sendable {
    /// Key frame (for AVC, a seekable frame).
    case keyFrame = 1
    /// Inter frame (for AVC, a non-seekable frame).
    case interFrame = 2
    /// Disposable inter frame (H.263 only).
    case disposableInterFrame = 3
    /// Generated key frame (reserved for server use only).
    case generatedKeyFrame = 4
    /// Video info/command frame.
    case videoInfoFrame = 5
}

/// CodecID (E.4.3.1), the lower 4 bits of the first VIDEODATA byte.
public enum FLVVideoCodecID: UInt8, Sendable {
    /// Sorenson H.263.
    case sorensonH263 = 2
    /// Screen video.
    case screenVideo = 3
    /// On2 VP6.
    case vp6 = 4
    /// On2 VP6 with alpha channel.
    case vp6Alpha = 5
    /// Screen video version 2.
    case screenVideo2 = 6
    /// AVC (H.264): followed by AVCPacketType and CompositionTime.
    case avc = 7
    /// RealH263 (FFmpeg's FLV_CODECID_REALH263, outside the Adobe spec).
    case realH263 = 8
    /// MPEG-4 part 2 (FFmpeg's FLV_CODECID_MPEG4, outside the Adobe spec).
    case mpeg4 = 9
}

/// AVCPacketType (E.4.3.1).
public enum FLVAVCPacketType: UInt8, Sendable {
    /// AVC sequence header: an AVCDecoderConfigurationRecord.
    case sequenceHeader = 0
    /// AVC NALU: one or more length-prefixed NAL units of one access unit.
    case nalu = 1
    /// AVC end of sequence (lower-level NALU sequence ender is not required or supported).
    case endOfSequence = 2
}

/// SoundFormat (E.4.2.1), the upper 4 bits of the first AUDIODATA byte.
public enum FLVSoundFormat: UInt8, Sendable {
    /// Linear PCM, platform endian.
    case pcmPlatformEndian = 0
    /// ADPCM.
    case adpcm = 1
    /// MP3.
    case mp3 = 2
    /// Linear PCM, little endian.
    case pcmLittleEndian = 3
    /// Nellymoser 16 kHz mono.
    case nellymoser16kHzMono = 4
    /// Nellymoser 8 kHz mono.
    case nellymoser8kHzMono = 5
    /// Nellymoser.
    case nellymoser = 6
    /// G.711 A-law logarithmic PCM.
    case g711ALaw = 7
    /// G.711 mu-law logarithmic PCM.
    case g711MuLaw = 8
    /// AAC: followed by AACPacketType.
    case aac = 10
    /// Speex.
    case speex = 11
    /// MP3 8 kHz.
    case mp38kHz = 14
    /// Device-specific sound.
    case deviceSpecific = 15
}

/// SoundRate (E.4.2.1), 2 bits. For AAC always `.kHz44` whatever the real rate (the ASC says it).
public enum FLVSoundRate: UInt8, Sendable {
    /// 5.5 kHz.
    case kHz5_5 = 0
    /// 11 kHz.
    case kHz11 = 1
    /// 22 kHz.
    case kHz22 = 2
    /// 44 kHz.
    case kHz44 = 3
}

/// SoundSize (E.4.2.1), 1 bit: bits per sample of uncompressed formats. For AAC always `.bits16`.
public enum FLVSoundSize: UInt8, Sendable {
    /// 8-bit samples.
    case bits8 = 0
    /// 16-bit samples.
    case bits16 = 1
}

/// SoundType (E.4.2.1), 1 bit. For AAC always `.stereo` whatever the real layout (the ASC says it).
public enum FLVSoundType: UInt8, Sendable {
    /// Mono sound.
    case mono = 0
    /// Stereo sound.
    case stereo = 1
}

/// AACPacketType (E.4.2.1).
public enum FLVAACPacketType: UInt8, Sendable {
    /// AAC sequence header: an AudioSpecificConfig.
    case sequenceHeader = 0
    /// AAC raw: one raw_data_block, no ADTS header.
    case raw = 1
}

