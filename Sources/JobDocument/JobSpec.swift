import Foundation

/// A job, as job spec v1 defines it (docs/ARCHITECTURE.md §8, `jobs/schema.json`), after validation.
public struct JobSpec: Sendable, Equatable {
    public var id: String
    public var input: InputSpec
    public var video: VideoSpec
    public var audio: AudioSpec
    public var outputs: [OutputSpec]
    /// Seconds after which a live job ends cleanly; 0 = until the input ends (`JobLimits.maxDuration`).
    public var maxDurationSeconds: Double
    /// AMQP priority (`JobLimits.priority`).
    public var priority: Int
    /// Attempts before a transiently failing job is dead-lettered.
    public var maxAttempts: Int
    /// The document as submitted (secrets included: used to retry), and the same with URLs redacted.
    public var document: JSONValue
    public var redactedDocument: JSONValue
    /// How RTMP outputs and a live input retry after losing their connection.
    public var reconnect = ReconnectSpec()
    /// Keep the outputs fed with a slate through an input outage; nil: outputs wait (and `input.timeout_s` ends the job).
    public var fallback: FallbackSpec?
    /// The path of the multivariant playlist listing the job's HLS outputs as variants (`hls_multivariant`); nil: none.
    public var hlsMultivariant: String?

    public static let idPattern = "[A-Za-z0-9._:-]{1,\(JobLimits.id.maxLength)}"

    /// Whether `id` matches `idPattern`: checked byte by byte (a regular expression would load ICU, ~5 ms of every
    /// `sluice run`'s start).
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...JobLimits.id.maxLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
    public static let defaultMaxAttempts = 3
}

public struct InputSpec: Sendable, Equatable {
    public var url: String
    /// Be the RTMP server for one publisher instead of pulling.
    public var listen: Bool
    /// Bounds connecting and any stall in reading, in seconds (`JobLimits.inputTimeout`).
    public var timeoutSeconds: Double
    /// Frame rate given to raw Annex B input that carries no timing (`JobLimits.inputFPS`).
    public var fps: Double?
    /// Read at 1× (like `ffmpeg -re`); `nil` = the default (a file input feeding an RTMP output).
    public var realtime: Bool?
    /// The Enhanced RTMP multitrack video track a live input's job carries as its only track (`JobLimits.inputVideoTrack`);
    /// nil: every track to destinations that take multitrack, the default track (0) to the rest.
    public var videoTrack: Int?
    /// The audio track, as `videoTrack` for video.
    public var audioTrack: Int?
    /// An RTSP input's transport (`transport`); nil: TCP interleaved.
    public var rtspTransport: RTSPTransportChoice?
    /// A WHIP input's bearer token (`token`): a publisher without it is answered 401. A secret, as a stream key is.
    public var token: String?
    /// A live input: RTMP, RTMPS, SRT, RTSP or WHIP.
    public var isNetwork: Bool { Self.isNetwork(url) || isRTSP || isWHIP }
    /// A WHIP input (whip://): a publisher posts its WebRTC offer to the worker's shared HTTP port.
    public var isWHIP: Bool { url.lowercased().hasPrefix("whip://") }
    /// An SRT input (a caller, or a listen job on the worker's shared SRT port).
    public var isSRT: Bool { Self.isSRT(url) }
    /// An RTSP input (rtsp:// or rtsps://), pulled from a camera.
    public var isRTSP: Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("rtsp://") || lower.hasPrefix("rtsps://")
    }
    public static let defaultTimeoutSeconds = 10.0

    /// A live URL an output can publish to, or an input read from: RTMP, RTMPS or SRT.
    static func isNetwork(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("rtmp://") || lower.hasPrefix("rtmps://") || lower.hasPrefix("srt://") || lower.hasPrefix("whep://")
    }

    static func isSRT(_ url: String) -> Bool { url.lowercased().hasPrefix("srt://") }
}

/// How an RTSP input's RTP reaches the worker.
public enum RTSPTransportChoice: String, Sendable, Equatable, CaseIterable {
    /// Interleaved on the RTSP connection (RFC 2326 §10.12): one TCP connection, through any NAT.
    case tcp
    /// RTP and RTCP on UDP ports of the worker's client port range.
    case udp
}

public enum StreamMode: String, Sendable, Equatable, CaseIterable {
    case copy, encode, drop
}

public enum VideoEncoderChoice: String, Sendable, Equatable, CaseIterable {
    case auto, vaapi, software
}

public struct VideoSpec: Sendable, Equatable {
    public var mode: StreamMode = .copy
    public var encoder: VideoEncoderChoice = .auto
    public var device: String = VideoSpec.defaultDevice
    public var bitrateKbps: Int?
    public var width: Int?
    public var height: Int?
    public var fps: Double?
    public var gopSeconds: Double?
    public var profile: String?
    public static let defaultDevice = "/dev/dri/renderD128"
    public static let profiles = ["baseline", "constrained_baseline", "main", "high"]
    public init() {}
}

public struct AudioSpec: Sendable, Equatable {
    public var mode: StreamMode = .copy
    public var bitrateKbps: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public init() {}
}

public enum OutputFormat: String, Sendable, Equatable, CaseIterable {
    /// FLV file or RTMP publish.
    case flv
    /// Raw AAC with ADTS headers (`.aac`).
    case adts
    /// Raw H.264 (`.h264`, `.264`) or HEVC (`.h265`, `.265`, `.hevc`) with start codes.
    case annexb
    /// Fragmented MP4 (`.mp4`): an init segment, then a fragment about every second, cut at video keyframes.
    case mp4
    /// MPEG transport stream (`.ts`): H.264 or HEVC and AAC, PAT/PMT repeated, PCR on the video.
    case mpegts
    /// HLS (`.m3u8`): fragmented MP4 segments of `segment_s` and a playlist, in the playlist's folder.
    case hls

    /// The format as messages name it.
    public var displayName: String {
        switch self {
        case .flv: "FLV"
        case .adts: "ADTS"
        case .annexb: "Annex B"
        case .mp4: "MP4"
        case .mpegts: "MPEG-TS"
        case .hls: "HLS"
        }
    }

    /// Extensions of Annex B files that name HEVC: an encoder makes H.264, so only copied HEVC goes there.
    public static let hevcExtensions: Set<String> = ["h265", "265", "hevc"]

    /// The format a path's extension implies.
    public static func forExtension(_ ext: String) -> OutputFormat? {
        switch ext.lowercased() {
        case "flv": return .flv
        case "aac", "adts": return .adts
        case "h264", "264", "avc", "h265", "265", "hevc": return .annexb
        case "mp4", "m4v": return .mp4
        case "ts", "m2ts", "mts": return .mpegts
        case "m3u8": return .hls
        default: return nil
        }
    }
}

public struct OutputSpec: Sendable, Equatable {
    public var url: String
    public var format: OutputFormat
    /// This output's own rendition: when given, it replaces the job's `video` / `audio` object for this output
    /// (a ladder: copy to one destination, 720p to another). Outputs with equal settings share one encoder.
    public var video: VideoSpec?
    public var audio: AudioSpec?
    /// The segment length of an HLS output that names none: Apple's recommendation for live streams is 6 s, but 2 s
    /// keeps a live playlist's latency near what RTMP viewers get and is what most low-latency setups use.
    public static let defaultSegmentSeconds = 2.0
    /// HLS, and recordings cut into segments (`.mp4`, `.ts`, `.flv`): the segment length, seconds (`segment_s`).
    public var segmentSeconds: Double?
    /// HLS: segments a live playlist keeps; 0 keeps every one (`window`).
    public var window: Int?
    /// A segmented recording: closed segments kept (`retain`); nil keeps all.
    public var retain: Int?
    /// A segmented recording: bytes of closed segments kept (`retain_bytes`); nil keeps all.
    public var retainBytes: Int64?
    /// A file output that is a recording cut into segments (its URL is then the segments' name pattern).
    public var isSegmented: Bool { format != .hls && segmentSeconds != nil }
    /// HLS of a live input: publish each segment in parts of about this many seconds (`part_s`, Low-Latency HLS).
    public var partSeconds: Double? = nil
    /// A WHEP output's Bearer token (`token`): a viewer without it is answered 401. A secret, as a stream key is.
    public var token: String? = nil
    public var isNetwork: Bool { InputSpec.isNetwork(url) }
    /// A WHEP output (whep://): viewers post their WebRTC offers to the worker's shared HTTP port.
    public var isWHEP: Bool { url.lowercased().hasPrefix("whep://") }
    /// An SRT output (MPEG-TS to a caller's peer, or to the one reader of a listener).
    public var isSRT: Bool { InputSpec.isSRT(url) }
    /// The URL with stream key and credentials masked.
    public var redactedURL: String { Redaction.redact(url: url) }
}

extension JobSpec {
    /// The input URL with secrets masked.
    public var redactedInput: String { Redaction.redact(url: input.url) }

    /// Every URL of this job that may carry a secret, for scrubbing free text such as FFmpeg messages.
    public var secretURLs: [String] { [input.url] + outputs.map(\.url) }

    /// What `output` does with video: its own `video` object, else the job's.
    public func video(of output: OutputSpec) -> VideoSpec { output.video ?? video }

    /// What `output` does with audio: its own `audio` object, else the job's.
    public func audio(of output: OutputSpec) -> AudioSpec { output.audio ?? audio }

    /// The video treatments the outputs use, each once, in the order outputs first use them (`drop` left out).
    public var videoRenditions: [VideoSpec] {
        var distinct: [VideoSpec] = []
        for output in outputs where output.format != .adts {
            let spec = video(of: output)
            if spec.mode != .drop, !distinct.contains(spec) { distinct.append(spec) }
        }
        return distinct
    }

    /// Whether any output re-encodes video (or audio).
    public var encodesVideo: Bool { videoRenditions.contains { $0.mode == .encode } }
    public var encodesAudio: Bool { outputs.contains { $0.format != .annexb && audio(of: $0).mode == .encode } }
}
