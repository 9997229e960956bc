// What a job reports while it runs and when it ends.

/// A snapshot of a running job, for progress lines and the job store.
public struct MediaJobProgress: Sendable, Equatable {
    /// Media time reached, seconds.
    public var mediaTime: Double = 0
    public var videoFrames = 0
    public var audioFrames = 0
    public var bytesIn: Int64 = 0
    public var elapsed: Double = 0
    public var dtsRepairs = 0
    /// Times a live input was reopened after a drop.
    public var inputReconnects = 0
    public var outputs: [OutputProgress] = []
    /// The slate through input outages (a live job with `fallback`); nil without one.
    public var slate: SlateProgress?

    public init() {}

    /// Media seconds per wall second.
    public var speed: Double { elapsed > 0 ? mediaTime / elapsed : 0 }
    public var bytesOut: Int64 { outputs.reduce(0) { $0 + $1.bytes } }
}

/// How a job ended.
public struct MediaJobResult: Sendable, Equatable {
    public var progress: MediaJobProgress
    /// Ended by `Interrupter.cancel()` (outputs still finished cleanly).
    public var cancelled = false
    /// Ended at `maxDuration`.
    public var reachedMaxDuration = false
    /// Video access units dropped before the first decodable configuration (a stream cut mid-GOP).
    public var skippedVideoPackets = 0
    /// Cancelled with `discardsOutputsOnCancel`: no file output was published.
    public var outputsDiscarded = false

    public init(progress: MediaJobProgress) {
        self.progress = progress
    }
}
