// Enhanced RTMP v2, "Enhanced Video" (VideoFourCc) and "Enhanced Audio" (AudioFourCc): the codecs of the FourCC
// pipeline. A FourCC is a UI32 whose bytes are the four ASCII characters, first character most significant.

/// VideoFourCc.
public enum FLVVideoFourCC: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// "avc1": H.264; configuration AVCDecoderConfigurationRecord, frames AVCC with a composition time.
    case avc1 = 0x6176_6331
    /// "hvc1": H.265; configuration HEVCDecoderConfigurationRecord, frames length-prefixed with a composition time.
    case hvc1 = 0x6876_6331
    /// "av01": AV1; configuration AV1CodecConfigurationRecord, frames one temporal unit of OBUs.
    case av01 = 0x6176_3031
    /// "vp09": VP9; configuration VPCodecConfigurationRecord, frames full VP9 frames.
    case vp09 = 0x7670_3039
    /// "vp08": VP8; configuration VPCodecConfigurationRecord.
    case vp08 = 0x7670_3038
    /// "vvc1": H.266; configuration VVCDecoderConfigurationRecord, frames with a composition time.
    case vvc1 = 0x7676_6331

    /// True when CodedFrames carry an SI24 composition time offset before the data.
    public var carriesCompositionTime: Bool { self == .avc1 || self == .hvc1 || self == .vvc1 }

    /// The four characters.
    public var description: String { FourCCText.string(rawValue) }
}

/// AudioFourCc.
public enum FLVAudioFourCC: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// "Opus": configuration the Opus ID header (RFC 7845 §5.1).
    case opus = 0x4F70_7573
    /// "mp4a": AAC; configuration AudioSpecificConfig.
    case mp4a = 0x6D70_3461
    /// "ac-3": AC-3.
    case ac3 = 0x6163_2D33
    /// "ec-3": E-AC-3.
    case ec3 = 0x6563_2D33
    /// "fLaC": FLAC; configuration "fLaC" + STREAMINFO.
    case flac = 0x664C_6143
    /// ".mp3": MP3.
    case mp3 = 0x2E6D_7033

    /// The four characters.
    public var description: String { FourCCText.string(rawValue) }
}

/// The codec of one video track: a FourCC of an ex-header, or a legacy CodecID (whose header form it keeps).
public enum FLVVideoCodec: Hashable, Sendable {
    /// Signalled by an ex-header FourCC.
    case fourCC(FLVVideoFourCC)
    /// Signalled by a legacy CodecID (AVC included): written back in the legacy form.
    case legacy(FLVVideoCodecID)

    /// The FourCC of the codec, also for legacy AVC (avc1); nil for the other legacy codecs.
    public var fourCC: FLVVideoFourCC? {
        switch self {
        case let .fourCC(fourCC): return fourCC
        case .legacy(.avc): return .avc1
        case .legacy: return nil
        }
    }
}

/// The codec of one audio track: a FourCC of an ex-header, or a legacy SoundFormat (whose header form it keeps).
public enum FLVAudioCodec: Hashable, Sendable {
    /// Signalled by an ex-header FourCC.
    case fourCC(FLVAudioFourCC)
    /// Signalled by a legacy SoundFormat (AAC included): written back in the legacy form.
    case legacy(FLVSoundFormat)

    /// The FourCC of the codec, also for legacy AAC (mp4a) and MP3 (.mp3); nil for the other legacy formats.
    public var fourCC: FLVAudioFourCC? {
        switch self {
        case let .fourCC(fourCC): return fourCC
        case .legacy(.aac): return .mp4a
        case .legacy(.mp3), .legacy(.mp38kHz): return .mp3
        case .legacy: return nil
        }
    }
}
