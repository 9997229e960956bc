/// The bounds of one number in a job document: its key path, allowed range and unit. The validator,
/// the JSON Schema and the table in docs/JOBS.md all read these values, so a bound is stated once.
public struct NumberLimit: Sendable, Equatable {
    /// Key path as error messages name it (`input.timeout_s`).
    public let path: String
    public let range: ClosedRange<Double>
    /// What the number counts (`seconds`, `kbit/s`); nil for plain counts and ranks.
    public let unit: String?
    /// Only whole numbers (JSON Schema `integer`); 3.0 is whole, 3.5 is not.
    public let isWhole: Bool
    /// Only even numbers (frame sizes: 4:2:0 chroma needs them).
    public let isEven: Bool

    init(_ path: String, _ range: ClosedRange<Double>, unit: String?, whole: Bool = false, even: Bool = false) {
        self.path = path
        self.range = range
        self.unit = unit
        self.isWhole = whole || even
        self.isEven = even
    }

    /// The last component of the path: the key in its object.
    public var key: String { path.split(separator: ".").last.map(String.init) ?? path }

    /// The range as whole numbers, for fields the validator returns as `Int`.
    public var wholeRange: ClosedRange<Int> { Int(range.lowerBound)...Int(range.upperBound) }

    /// "from 0.1 to 3600 (seconds)": the allowed range as messages and documentation say it.
    public var rangeText: String {
        "from \(JobLimits.format(range.lowerBound)) to \(JobLimits.format(range.upperBound))" + (unit.map { " (\($0))" } ?? "")
    }
}

/// The longest a string in a job document may be, counted in Unicode scalars (as JSON Schema's maxLength).
public struct TextLimit: Sendable, Equatable {
    public let path: String
    public let maxLength: Int
}

/// Every bound of job spec v1 (docs/ARCHITECTURE.md §8) in one table.
public enum JobLimits {
    /// A job document is a few hundred bytes; 1 MiB leaves room for 16 outputs of the longest URLs many times over.
    public static let documentBytes = 1_048_576
    /// Arrays and objects inside each other; a valid job needs 3 (root → outputs → output), unknown keys a few more.
    public static let nestingDepth = 16
    public static let outputs = 1...16

    // Strings. Paths are bounded by Linux's PATH_MAX (4096); URLs share that bound.
    public static let id = TextLimit(path: "id", maxLength: 128)
    public static let inputURL = TextLimit(path: "input.url", maxLength: 4096)
    /// A WHIP input's bearer token: a secret of a few dozen characters; 256 leaves room for a signed one.
    public static let inputToken = TextLimit(path: "input.token", maxLength: 256)
    /// A WHEP output's bearer token, as the input's.
    public static let outputToken = TextLimit(path: "outputs[].token", maxLength: 256)
    public static let outputURL = TextLimit(path: "outputs[].url", maxLength: 4096)
    public static let device = TextLimit(path: "video.device", maxLength: 4096)
    public static let slate = TextLimit(path: "fallback.slate", maxLength: 4096)
    public static let hlsMultivariant = TextLimit(path: "hls_multivariant", maxLength: 4096)

    // Numbers.
    /// An hour without data is as long as any live source may stall; 0.1 s is below any network's round trip.
    public static let inputTimeout = NumberLimit("input.timeout_s", 0.1...3600, unit: "seconds")
    /// Frame rates of real cameras and encoders; the same bounds as video.fps.
    public static let inputFPS = NumberLimit("input.fps", 1...240, unit: "frames per second")
    /// Enhanced RTMP multitrack: a track id is one byte (videoTrackId, audioTrackId).
    public static let inputVideoTrack = NumberLimit("input.video_track", 0...255, unit: nil, whole: true)
    public static let inputAudioTrack = NumberLimit("input.audio_track", 0...255, unit: nil, whole: true)
    /// A month: longer than any live event, and small enough that every clock conversion stays exact.
    public static let maxDuration = NumberLimit("max_duration_s", 0...2_678_400, unit: "seconds")
    public static let videoBitrate = NumberLimit("video.bitrate_kbps", 16...200_000, unit: "kbit/s", whole: true)
    public static let width = NumberLimit("video.width", 16...8192, unit: "pixels", even: true)
    public static let height = NumberLimit("video.height", 16...8192, unit: "pixels", even: true)
    public static let videoFPS = NumberLimit("video.fps", 1...240, unit: "frames per second")
    public static let gop = NumberLimit("video.gop_s", 0.1...60, unit: "seconds")
    public static let audioBitrate = NumberLimit("audio.bitrate_kbps", 8...1024, unit: "kbit/s", whole: true)
    public static let sampleRate = NumberLimit("audio.sample_rate", 8000...96000, unit: "Hz", whole: true)
    public static let channels = NumberLimit("audio.channels", 1...8, unit: nil, whole: true)
    /// AMQP priority: the jobs queue is declared with `x-max-priority` 9.
    public static let priority = NumberLimit("priority", 0...9, unit: nil, whole: true)
    public static let maxAttempts = NumberLimit("max_attempts", 1...100, unit: nil, whole: true)
    public static let reconnectAttempts = NumberLimit("reconnect.attempts", 0...10_000, unit: nil, whole: true)
    public static let reconnectInitialDelay = NumberLimit("reconnect.initial_delay_s", 0.01...600, unit: "seconds")
    public static let reconnectMaxDelay = NumberLimit("reconnect.max_delay_s", 0.01...600, unit: "seconds")
    /// Platforms end a broadcast after about 5 to 30 s without data; the slate must be on the wire before that.
    public static let fallbackAfter = NumberLimit("fallback.after_s", 0.2...60, unit: "seconds")
    /// A day of slate at most: longer than any outage worth bridging, short of a stream that never ends.
    public static let fallbackMax = NumberLimit("fallback.max_s", 1...86_400, unit: "seconds")

    /// A segment's length: segments are cut at the first keyframe at or after each multiple of it. A recording
    /// (`.mp4`, `.ts`, `.flv`) takes whole seconds up to a day; HLS at most `hlsSegmentSeconds`.
    public static let segment = NumberLimit("outputs[].segment_s", 1...86_400, unit: "seconds")
    /// An HLS segment: at least a second (players fetch each), at most a minute (a late joiner waits up to one).
    public static let hlsSegmentSeconds: ClosedRange<Double> = 1...60
    /// Closed segments a recording keeps (its oldest removed first).
    public static let retain = NumberLimit("outputs[].retain", 1...1_000_000, unit: "segments", whole: true)
    /// Bytes of closed segments a recording keeps (its oldest removed first); the newest segment always stays.
    public static let retainBytes = NumberLimit("outputs[].retain_bytes", 1_048_576...1e15, unit: "bytes", whole: true)
    /// Segments a live HLS playlist keeps (0: all of them, an event playlist).
    public static let window = NumberLimit("outputs[].window", 0...10_000, unit: "segments", whole: true)
    /// Low-Latency HLS part length: under 0.2 s the playlist and request rate grow past what a part saves, and over
    /// 1 s a part is no shorter than the shortest segment.
    public static let part = NumberLimit("outputs[].part_s", 0.2...1, unit: "seconds")
    /// HLS outputs a multivariant playlist lists: fewer than two is no choice for a player to make.
    public static let minMultivariantVariants = 2
    /// `segment_s` must be this close to a whole number (at least 2) of `part_s`, so segments hold whole parts.
    public static let partsPerSegmentSlack = 0.1
    public static let minPartsPerSegment = 2.0

    /// Every number, in document order (for the table in docs/JOBS.md and tests).
    public static let numbers: [NumberLimit] = [
        inputTimeout, inputFPS, inputVideoTrack, inputAudioTrack, videoBitrate, width, height, videoFPS, gop, audioBitrate, sampleRate, channels,
        maxDuration, priority, maxAttempts, reconnectAttempts, reconnectInitialDelay, reconnectMaxDelay,
        fallbackAfter, fallbackMax, segment, window, part, retain, retainBytes,
    ]
    public static let texts: [TextLimit] = [id, inputURL, device, outputURL, slate, hlsMultivariant]

    /// A number as messages show it: whole numbers without a fraction, others in Swift's shortest form (1e+20).
    public static func format(_ value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        return value.rounded() == value && abs(value) < 1e18 ? String(Int64(value)) : String(value)
    }
}
