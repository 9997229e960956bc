// docs/ARCHITECTURE.md §6: the progress a running job reports.

/// A progress report of a running job; it updates `jobs` and appends a `job_progress` sample.
public struct JobProgress: Equatable, Sendable {
    /// Input media time processed, in seconds.
    public var mediaTimeSeconds: Double
    /// Video frames processed.
    public var frames: Int
    /// Bytes read from the input.
    public var bytesIn: Int64
    /// Bytes written, all outputs together.
    public var bytesOut: Int64
    /// Timestamps repaired so far.
    public var dtsRepairs: Int
    /// Speed relative to real time, if known.
    public var speed: Double?
    /// Frames per second over the last interval, if known.
    public var fps: Double?
    /// Output bitrate over the last interval in kbit/s, if known.
    public var bitrateKbps: Double?

    /// Describes one progress report.
    /// - Parameters:
    ///   - mediaTimeSeconds: media time processed, in seconds.
    ///   - frames: video frames processed.
    ///   - bytesIn: bytes read.
    ///   - bytesOut: bytes written.
    ///   - dtsRepairs: timestamps repaired.
    ///   - speed: speed relative to real time.
    ///   - fps: recent frames per second.
    ///   - bitrateKbps: recent output bitrate in kbit/s.
    public init(
        mediaTimeSeconds: Double, frames: Int, bytesIn: Int64, bytesOut: Int64, dtsRepairs: Int = 0,
        speed: Double? = nil, fps: Double? = nil, bitrateKbps: Double? = nil
    ) {
        self.mediaTimeSeconds = mediaTimeSeconds
        self.frames = frames
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.dtsRepairs = dtsRepairs
        self.speed = speed
        self.fps = fps
        self.bitrateKbps = bitrateKbps
    }
}
