import MediaFormats

/// How a video stream's packets carry the codec's units (NAL units, OBUs) and where its configuration comes from.
public enum VideoBitstream: Sendable, Equatable {
    /// Length-prefixed (MP4, FLV, Matroska), configured by an avcC record.
    case avcc(AVCDecoderConfigurationRecord)
    /// Start codes (MPEG-TS, raw `.h264`), with the parameter sets known out of band as Annex B bytes
    /// (may be empty: then they arrive in-band).
    case annexB(extradata: [UInt8])
    /// HEVC, length-prefixed (MP4, Matroska, enhanced FLV), configured by an hvcC record.
    case hvcc(HEVCDecoderConfigurationRecord)
    /// AV1 temporal units of low-overhead OBUs (MP4, Matroska, enhanced FLV), configured by an av1C record.
    case av1(AV1CodecConfigurationRecord)
    /// VP9 frames (a superframe when a picture has hidden frames), configured by a vpcC record (MP4, enhanced FLV);
    /// the picture size is the key frames', since vpcC does not say it.
    case vp9(VPCodecConfigurationRecord)
    /// VP8 frames, configured by a vpcC record as VP9 is (MP4's `vp08`, enhanced FLV's vp08); sized by its key frames.
    case vp8(VPCodecConfigurationRecord)
}

/// What an output needs to know about the video before its first packet.
public struct VideoConfiguration: Sendable, Equatable {
    public var bitstream: VideoBitstream
    public var width: Int
    public var height: Int
    public var frameRate: Double?

    package init(bitstream: VideoBitstream, width: Int, height: Int, frameRate: Double?) {
        self.bitstream = bitstream
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }
}

/// How an audio stream's packets are coded and what configures them.
public enum AudioBitstream: Sendable, Equatable {
    /// Raw AAC frames (no ADTS), configured by an AudioSpecificConfig.
    case aac(AudioSpecificConfig)
    /// Opus packets (RFC 6716), configured by an identification header (RFC 7845 §5.1).
    case opus(OpusIDHeader)
}

/// What an output needs to know about the audio before its first packet.
public struct AudioConfiguration: Sendable, Equatable {
    public var bitstream: AudioBitstream
    public var sampleRate: Int
    public var channels: Int
    /// Samples the encoder put before the media (its priming, Opus's pre-skip), which players skip: an `.mp4` or HLS
    /// init segment's edit list. 0: none known.
    public var priming: Int = 0

    package init(audioSpecificConfig: AudioSpecificConfig, sampleRate: Int, channels: Int, priming: Int = 0) {
        bitstream = .aac(audioSpecificConfig)
        self.sampleRate = sampleRate
        self.channels = channels
        self.priming = priming
    }

    /// Opus: always decoded at 48 kHz (RFC 7845 §5.1, the input rate only informs), priming its pre-skip.
    package init(opus header: OpusIDHeader) {
        bitstream = .opus(header)
        sampleRate = Self.opusSampleRate
        channels = Int(header.channelCount)
        priming = Int(header.preSkip)
    }

    /// Opus's one decoding rate.
    package static let opusSampleRate = 48_000

    /// The AAC configuration; nil for Opus.
    public var audioSpecificConfig: AudioSpecificConfig? {
        if case let .aac(config) = bitstream { config } else { nil }
    }

    /// The rate its samples are counted in: AAC's output rate (twice the core's with SBR), 48 kHz for Opus.
    public var timescale: Int {
        switch bitstream {
        case let .aac(config): config.outputSamplingFrequency
        case .opus: Self.opusSampleRate
        }
    }

    /// The codec as messages name it.
    public var codecName: String {
        switch bitstream {
        case .aac: "AAC"
        case .opus: "Opus"
        }
    }
}

/// One access unit or audio frame on its way to the outputs. Times are microseconds from the start of
/// the job, DTS monotonic per stream.
public struct MediaPacket: Sendable {
    public enum Kind: Sendable, Equatable { case video, audio }

    public var kind: Kind
    /// Video: as the input's bitstream carries it (see `VideoBitstream`). Audio: one raw AAC frame (no ADTS) or one
    /// Opus packet.
    public var data: [UInt8]
    public var pts: Int64
    public var dts: Int64
    public var isKeyframe: Bool
    /// Set on the packet from which a new configuration applies (mid-stream extradata, new ASC).
    public var videoConfiguration: VideoConfiguration?
    public var audioConfiguration: AudioConfiguration?
    /// Monotonic nanoseconds when the input delivered the packet (0 = unknown), for restream latency.
    public var receivedAt: UInt64 = 0
    /// Which rendition of its kind the packet belongs to (`RenditionPlan`); 0 when the job has one.
    package var rendition = 0

    package init(kind: Kind, data: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool,
                 videoConfiguration: VideoConfiguration? = nil, audioConfiguration: AudioConfiguration? = nil,
                 receivedAt: UInt64 = 0, rendition: Int = 0) {
        self.kind = kind
        self.data = data
        self.pts = pts
        self.dts = dts
        self.isKeyframe = isKeyframe
        self.videoConfiguration = videoConfiguration
        self.audioConfiguration = audioConfiguration
        self.receivedAt = receivedAt
        self.rendition = rendition
    }
}
