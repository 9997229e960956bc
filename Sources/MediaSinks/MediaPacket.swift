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

/// What an output needs to know about the audio before its first packet.
public struct AudioConfiguration: Sendable, Equatable {
    public var audioSpecificConfig: AudioSpecificConfig
    public var sampleRate: Int
    public var channels: Int
    /// Samples the encoder put before the media (its priming), which players skip: an `.mp4` or HLS init segment's
    /// edit list. 0: none known.
    public var priming: Int = 0

    package init(audioSpecificConfig: AudioSpecificConfig, sampleRate: Int, channels: Int, priming: Int = 0) {
        self.audioSpecificConfig = audioSpecificConfig
        self.sampleRate = sampleRate
        self.channels = channels
        self.priming = priming
    }
}

/// One access unit or audio frame on its way to the outputs. Times are microseconds from the start of
/// the job, DTS monotonic per stream.
public struct MediaPacket: Sendable {
    public enum Kind: Sendable, Equatable { case video, audio }

    public var kind: Kind
    /// Video: as the input's bitstream carries it (see `VideoBitstream`). Audio: one raw AAC frame (no ADTS).
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
