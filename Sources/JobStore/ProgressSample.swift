// docs/ARCHITECTURE.md §6: one row of `job_progress`, a point on a job's progress chart.
import Foundation
import GRDB

/// A progress sample of a job at one time, kept for charts.
public struct ProgressSample: Codable, Equatable, Sendable, TimestampedRecord {
    /// The job sampled.
    public var jobID: String
    /// When the sample was taken.
    public var at: Date
    /// Input media time processed, in seconds.
    public var mediaTimeSeconds: Double?
    /// Video frames processed.
    public var frames: Int?
    /// Bytes written, all outputs together.
    public var bytesOut: Int64?
    /// Frames per second over the last interval.
    public var fps: Double?
    /// Output bitrate over the last interval, in kbit/s.
    public var bitrateKbps: Double?

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case at, frames, fps
        case jobID = "job_id"
        case mediaTimeSeconds = "media_time_s"
        case bytesOut = "bytes_out"
        case bitrateKbps = "bitrate_kbps"
    }
}
