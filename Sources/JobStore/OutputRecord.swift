// docs/ARCHITECTURE.md §6: one row of `job_outputs`, the per-output counters.
import Foundation
import GRDB

/// The state of one output of a job (`job_outputs.state`).
public enum OutputState: String, CaseIterable, Codable, Hashable, Sendable, DatabaseValueConvertible {
    /// Not opened yet.
    case pending
    /// Receiving packets.
    case running
    /// An RTMP output lost its connection and is reconnecting.
    case reconnecting
    /// Closed cleanly (a file output was renamed from `.part`).
    case succeeded
    /// Failed; `last_error` says why.
    case failed
    /// Stopped because the job was cancelled.
    case cancelled
    /// Taken out of the running job by an output edit (`sluice jobs outputs remove`), closed cleanly.
    case removed
}

/// One output of a job as stored in `job_outputs`.
public struct OutputRecord: Codable, Equatable, Sendable, FetchableRecord {
    /// The job this output belongs to.
    public var jobID: String
    /// Position in the spec's `outputs` array, from 0.
    public var index: Int
    /// The destination, redacted by the caller.
    public var url: String
    /// `flv`, `adts` or `annexb`.
    public var format: String?
    /// Where the output is in its life.
    public var state: OutputState
    /// Bytes written.
    public var bytes: Int64
    /// Frames written.
    public var frames: Int
    /// Packets dropped because the output's queue was full.
    public var drops: Int
    /// RTMP reconnections.
    public var reconnects: Int
    /// The latest error on this output.
    public var lastError: String?
    /// When the row last changed.
    public var updatedAt: Date

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case url, format, state, bytes, frames, drops, reconnects
        case jobID = "job_id"
        case index = "idx"
        case lastError = "last_error"
        case updatedAt = "updated_at"
    }

    /// Time columns are ISO-8601 text.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        Timestamp.decodingStrategy
    }
}
