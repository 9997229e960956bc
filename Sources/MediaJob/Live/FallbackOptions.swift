// A broadcast that never drops (docs/ARCHITECTURE.md §4). What the relay engine needs to keep outputs fed through an
// input outage: when to start the slate, how long it may last, and something that makes the slate for a given stream.

/// The job's `fallback`, ready for the engine.
public struct FallbackOptions: Sendable {
    /// Seconds without input before the slate starts.
    public var afterSeconds: Double
    /// Seconds of slate after which the job ends as an input timeout would end it.
    public var maxSeconds: Double
    /// Makes the slate once the stream's configuration is known (off the event loops: it encodes).
    public var maker: any SlateMaking

    public init(afterSeconds: Double, maxSeconds: Double, maker: any SlateMaking) {
        self.afterSeconds = afterSeconds
        self.maxSeconds = maxSeconds
        self.maker = maker
    }
}

/// What a stream carries, as the slate must match it: the FLV tag bodies of its sequence headers and its frame rate.
public struct SlateTarget: Sendable, Equatable {
    /// The video sequence header's tag body (an AVC sequence header, legacy or Enhanced RTMP); nil: no video.
    public var videoHeader: [UInt8]?
    /// The audio sequence header's tag body (an AAC sequence header); nil: no audio.
    public var audioHeader: [UInt8]?
    /// Frames per second as measured on the stream.
    public var frameRate: Double

    public init(videoHeader: [UInt8]?, audioHeader: [UInt8]?, frameRate: Double) {
        self.videoHeader = videoHeader
        self.audioHeader = audioHeader
        self.frameRate = frameRate
    }
}

/// One loop of slate as FLV tag bodies: video from a keyframe at a fixed frame rate, audio as silence in AAC frames.
/// The relay repeats each kind's frames for as long as the slate lasts and stamps frame k of a kind at k frame
/// durations from the slate's start, so both kinds keep their exact pace however long the slate runs.
public struct SlateLoop: Sendable, Equatable {
    /// Sequence headers (tag bodies) sent before the first slate frame; nil when the stream has no such kind.
    public var videoHeader: [UInt8]?
    public var audioHeader: [UInt8]?
    /// Video tag bodies; the first is a keyframe, so the loop can restart on it.
    public var videoFrames: [[UInt8]]
    /// Frames per second as a fraction.
    public var rateNumerator: Int64
    public var rateDenominator: Int64
    /// Audio tag bodies, each `samplesPerFrame` samples at `sampleRate`.
    public var audioFrames: [[UInt8]]
    public var sampleRate: Int64
    public var samplesPerFrame: Int64

    public init(videoHeader: [UInt8]?, audioHeader: [UInt8]?, videoFrames: [[UInt8]], rateNumerator: Int64, rateDenominator: Int64,
                audioFrames: [[UInt8]], sampleRate: Int64, samplesPerFrame: Int64) {
        self.videoHeader = videoHeader
        self.audioHeader = audioHeader
        self.videoFrames = videoFrames
        self.rateNumerator = rateNumerator
        self.rateDenominator = rateDenominator
        self.audioFrames = audioFrames
        self.sampleRate = sampleRate
        self.samplesPerFrame = samplesPerFrame
    }

    /// Milliseconds from the slate's start of video frame `index` (counting across loops), rounded as encoders round
    /// them (0, 33, 67, 100 at 30 fps), so the slate stays on the stream's frame grid.
    public func videoTime(_ index: Int64) -> Int64 {
        rateNumerator > 0 ? (index * 1000 * rateDenominator + rateNumerator / 2) / rateNumerator : 0
    }

    /// One video frame's duration in milliseconds.
    public var frameInterval: Double {
        rateNumerator > 0 ? 1000 * Double(rateDenominator) / Double(rateNumerator) : 0
    }

    /// Milliseconds from the slate's start of audio frame `index` (counting across loops).
    public func audioTime(_ index: Int64) -> Int64 {
        sampleRate > 0 ? index * samplesPerFrame * 1000 / sampleRate : 0
    }
}

/// Makes a slate loop for a stream. Blocking (it encodes): call it on a thread of its own, never an event loop.
public protocol SlateMaking: Sendable {
    /// - Parameter target: the stream the destinations already have.
    /// - Throws: a `SlateError` naming what cannot be matched (a codec other than H.264/AAC, an encoder failure).
    func makeSlate(for target: SlateTarget) throws(SlateError) -> SlateLoop
}

/// Why a slate could not be prepared or made.
public struct SlateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// How a job with a fallback has fared: on slate now, how many times, for how long in all.
public struct SlateProgress: Sendable, Equatable {
    public var onSlate: Bool
    /// Times the outputs went on slate.
    public var switches: Int
    /// Seconds on slate in all, the current stretch included.
    public var seconds: Double

    public init(onSlate: Bool, switches: Int, seconds: Double) {
        self.onSlate = onSlate
        self.switches = switches
        self.seconds = seconds
    }
}
