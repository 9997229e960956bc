// What a job is told: the streams, the outputs and how it reaches files and the network.

/// What to do with one kind of stream; `Settings` says what an encoder makes of it.
public enum StreamHandling<Settings: Sendable & Equatable>: Sendable, Equatable {
    case copy, drop
    /// Decode and encode again (H.264 for video, AAC for audio).
    case encode(Settings)

    /// True for `.encode`.
    package var isEncode: Bool {
        if case .encode = self { return true }
        return false
    }
}

/// The format an output writes.
public enum OutputKind: String, Sendable, Equatable {
    case flv, adts, annexB, mp4, mpegts, hls
}

/// How an HLS output is cut and listed.
public struct HLSSettings: Sendable, Equatable {
    /// Segments start at the first keyframe at or after each multiple of this many seconds.
    public var segmentSeconds: Double
    /// Segments a live playlist keeps; 0 keeps every one (an event playlist, or VOD for a file input).
    public var window: Int
    /// True for a file input: the playlist is VOD, written once at the end.
    public var isVOD: Bool
    /// Low-Latency HLS (live inputs): each segment is published in parts of about this many seconds as it is written.
    public var partSeconds: Double?

    public init(segmentSeconds: Double, window: Int, isVOD: Bool, partSeconds: Double? = nil) {
        self.segmentSeconds = segmentSeconds
        self.window = window
        self.isVOD = isVOD
        self.partSeconds = partSeconds
    }
}

/// A multivariant playlist over a job's HLS outputs (`hls_multivariant`, docs/JOBS.md "A ladder in HLS").
public struct HLSMultivariantSettings: Sendable, Equatable {
    /// One variant: an HLS output and its media playlist's URI relative to the multivariant playlist's folder.
    public struct Variant: Sendable, Equatable {
        public var output: Int
        public var uri: String

        public init(output: Int, uri: String) {
            self.output = output
            self.uri = uri
        }
    }

    /// Where the playlist is written.
    public var path: String
    /// How messages name it (the path as the job gave it).
    public var name: String
    /// The HLS outputs it lists, in the job's order.
    public var variants: [Variant]

    public init(path: String, name: String, variants: [Variant]) {
        self.path = path
        self.name = name
        self.variants = variants
    }
}

/// One output of a job.
public struct OutputDescription: Sendable, Equatable {
    public var target: OutputTarget
    public var kind: OutputKind
    /// How the output is named in messages: a redacted URL or the path.
    public var name: String
    /// This output's own rendition, replacing the engine's `video` / `audio` for it (nil: the engine's).
    public var video: StreamHandling<VideoEncodeSettings>?
    public var audio: StreamHandling<AudioEncodeSettings>?
    /// HLS outputs only.
    public var hls: HLSSettings?
    /// A segmented recording (`.mp4`, `.ts`, `.flv` with `segment_s`); nil writes one file.
    public var segments: SegmentSettings?
    /// A WHEP output's Bearer token: a viewer that does not send it is answered 401; nil: any viewer.
    public var token: String?

    public init(target: OutputTarget, kind: OutputKind, name: String,
                video: StreamHandling<VideoEncodeSettings>? = nil, audio: StreamHandling<AudioEncodeSettings>? = nil,
                hls: HLSSettings? = nil, segments: SegmentSettings? = nil) {
        self.target = target
        self.kind = kind
        self.name = name
        self.video = video
        self.audio = audio
        self.hls = hls
        self.segments = segments
    }

    /// Whether the format carries video / audio at all.
    package var carriesVideo: Bool { kind != .adts }
    package var carriesAudio: Bool { kind != .annexB }
}

/// Everything a job needs, in Swift terms (built by the `Sluice` library from a job spec).
public struct MediaJobOptions: Sendable {
    public var inputURL: String
    /// How the input is named in messages (redacted).
    public var inputName: String
    /// Demuxer/protocol options for the input.
    public var inputOptions: [String: String] = [:]
    /// Seconds the input may take to open and may stall while reading.
    public var inputTimeout: Double?
    /// Frame rate for raw Annex B input without timing.
    public var inputFrameRate: Double?
    /// Read at 1× the media rate.
    public var realtime = false
    /// Stop cleanly after this much media time, seconds.
    public var maxDuration: Double?
    public var video: StreamHandling<VideoEncodeSettings> = .copy
    public var audio: StreamHandling<AudioEncodeSettings> = .copy
    public var outputs: [OutputDescription] = []
    /// How network outputs (and a live input) retry after losing their connection.
    public var reconnect = ReconnectPolicy()
    /// Seconds a network output's connect or single write may block before it counts as lost.
    public var networkTimeout: Double? = 10
    /// A live network input (rtmp pull or listen): reopened after a drop until `inputTimeout` passes without data.
    public var liveInput = false
    /// A WHIP input's bearer token: a publisher that does not send it is answered 401.
    public var inputToken: String?
    /// An RTSP input's RTP over UDP (client ports from the engine's range) instead of interleaved on its connection.
    public var rtspOverUDP = false
    /// A file input's path. With `fileRoots` it is opened under the input root without following links
    /// (and `inputURL` is not used); without, `inputURL` is opened as given.
    public var inputFile: String?
    /// The roots every file must stay under (the worker); nil uses paths as given (`sluice run`).
    public var fileRoots: FileRoots?
    /// The job writing the file outputs, named in their temporary names (`.NAME.<owner>.<16 hex>.part`).
    public var partOwner: PartOwner?
    /// The relay engine, through which every RTMP byte of the engine goes (live inputs, RTMP outputs); a job with
    /// either fails clearly without one.
    public var transport: (any LiveTransport)?
    /// Keep the outputs fed with a slate while the live input is gone (docs/ARCHITECTURE.md §4); nil: they wait.
    public var fallback: FallbackOptions?
    /// Encodes a live source's audio that no output carries (a camera's G.711, a WHIP publisher's Opus) to AAC; nil:
    /// G.711 is not carried and Opus goes as it came.
    public var edgeAudioEncoder: (any EdgeAudioEncoderMaking)?
    /// The Enhanced RTMP video track a live job carries, as its only (default) track; nil: every track goes to the
    /// destinations that take multitrack messages and the default track (0) to the rest.
    public var videoTrack: UInt8?
    /// The audio track a live job carries, as `videoTrack` is for video.
    public var audioTrack: UInt8?
    /// Where live HLS outputs publish each playlist they write, keyed by `jobID` and output index (the worker's HTTP
    /// server serves them from there); nil: they only write files.
    public var livePlaylists: LivePlaylistRegistry?
    /// The job's id, naming its live playlists in `livePlaylists`.
    public var jobID: String?
    /// Where segmented outputs report their segments (`JobCallbacks.segment`), on their own threads.
    public var segmentReports: (@Sendable (SegmentReport) -> Void)?
    /// The wall clock the job's segmented recordings cut on, one for all of them (copies of these options share it).
    public var recordingClock = RecordingClock()
    /// The multivariant playlist listing HLS outputs as variants; nil: none.
    public var multivariant: HLSMultivariantSettings?

    /// A live input that waits for a publisher (the shared ingest listener) instead of pulling.
    public var listens: Bool { inputOptions["listen"] == "1" }

    public init(inputURL: String, inputName: String) {
        self.inputURL = inputURL
        self.inputName = inputName
    }
}

extension MediaJobOptions {
    /// Whether any output re-encodes (the codec stage decodes), or takes its own rendition.
    public var encodes: Bool {
        video.isEncode || audio.isEncode || outputs.contains { $0.video?.isEncode == true || $0.audio?.isEncode == true }
    }

    /// Whether some output has a rendition of its own.
    public var hasRenditions: Bool { outputs.contains { $0.video != nil || $0.audio != nil } }

    /// Whether any output takes video (or audio) at all.
    public var usesVideo: Bool { outputs.contains { $0.carriesVideo && ($0.video ?? video) != .drop } }
    public var usesAudio: Bool { outputs.contains { $0.carriesAudio && ($0.audio ?? audio) != .drop } }
}
