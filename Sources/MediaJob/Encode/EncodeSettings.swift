/// Which H.264 encoder a job asks for (the job document's `video.encoder`).
public enum VideoEncoderPreference: String, Sendable, Equatable {
    /// VAAPI when the render device opens and `h264_vaapi` opens on it, else libx264.
    case auto
    /// VAAPI only: no device is an error.
    case vaapi
    /// libx264 only.
    case software
}

/// What the video encoder makes, in Swift terms (built by `JobPlan` from a job's `video` object).
public struct VideoEncodeSettings: Sendable, Equatable {
    public var encoder: VideoEncoderPreference = .auto
    /// The DRM render node VAAPI opens.
    public var device: String = VideoEncodeSettings.defaultDevice
    /// Target bitrate; `nil` leaves rate control to the encoder's default (libx264: CRF 23).
    public var bitrateKbps: Int?
    /// Output size; one of the two alone keeps the input's aspect ratio, neither keeps the input size.
    public var width: Int?
    public var height: Int?
    /// Output frame rate; `nil` keeps the input's average rate.
    public var fps: Double?
    /// Seconds between keyframes, exactly.
    public var gopSeconds: Double = VideoEncodeSettings.defaultGOPSeconds
    /// H.264 profile: `baseline`, `constrained_baseline`, `main` or `high`; `nil` = the encoder's choice.
    public var profile: String?
    /// A live input: libx264 gets `tune zerolatency` so frames leave without lookahead delay.
    public var live = false
    /// Keyframes exactly where the input has them, and nowhere else (`gopSeconds` is not used): the encoded rungs of
    /// an HLS ladder then start their segments on the same pictures as each other and as a copied rung.
    public var keyframesFollowInput = false

    /// Asks the encoder for SPS/PPS as extradata (`AV_CODEC_FLAG_GLOBAL_HEADER`). Always on in jobs; tests
    /// turn it off to take the path of an encoder that writes them only in-band.
    package var globalHeader = true
    /// H.264 level for libx264 ("3.1"); nil lets it choose. Set by the slate, which must match a stream's level.
    package var level: String?

    public static let defaultDevice = "/dev/dri/renderD128"
    public static let defaultGOPSeconds = 2.0

    public init() {}
}

/// What the audio encoder makes (built by `JobPlan` from a job's `audio` object).
public struct AudioEncodeSettings: Sendable, Equatable {
    public var bitrateKbps: Int = AudioEncodeSettings.defaultBitrateKbps
    /// `nil` keeps the input's rate when AAC supports it.
    public var sampleRate: Int?
    /// `nil` keeps the input's channel count.
    public var channels: Int?

    public static let defaultBitrateKbps = 128

    public init() {}
}

/// The video encoder a job actually got, reported once when the video encoder opens.
public struct EncoderSelection: Sendable, Equatable {
    /// FFmpeg's encoder name: `h264_vaapi` or `libx264`.
    public var encoder: String
    /// Why VAAPI was not used when `auto` asked for it (`nil`: no fallback happened).
    public var fallbackReason: String?

    /// - Parameters:
    ///   - encoder: FFmpeg's name of the encoder that opened.
    ///   - fallbackReason: why VAAPI was not used, when `auto` fell back.
    package init(encoder: String, fallbackReason: String? = nil) {
        self.encoder = encoder
        self.fallbackReason = fallbackReason
    }
}
