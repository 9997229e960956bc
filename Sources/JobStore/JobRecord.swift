// docs/ARCHITECTURE.md §6: one row of `jobs`.
import Foundation
import GRDB

/// A job as stored in `jobs`: its state, attempts, timestamps, error and latest progress.
public struct JobRecord: Codable, Equatable, Sendable, TimestampedRecord {
    /// The idempotency key from the spec.
    public var id: String
    /// Where the job is in its life.
    public var state: JobState
    /// Attempts started so far (re-runs and redeliveries included).
    public var attempts: Int
    /// Attempts allowed before a transient failure becomes final; nil means the worker's default.
    public var maxAttempts: Int?
    /// Queue priority from the spec (0…9).
    public var priority: Int?
    /// The worker that ran (or runs) the latest attempt.
    public var workerID: String?
    /// The input URL, redacted by the caller.
    public var input: String?
    /// The spec JSON as submitted, only when it holds no secret (it then equals `specRedacted`); nil otherwise.
    public var spec: String?
    /// The whole spec sealed with a secrets key (`sealed1:<key id>:…`), when it has secrets and a key was set.
    public var specSealed: String?
    /// The spec JSON with secrets removed, for listings.
    public var specRedacted: String?
    /// The video encoder actually used (`h264_vaapi`, `libx264`), nil in copy mode or before it opens.
    public var encoder: String?
    /// Why the job failed, was rejected or is being retried.
    public var error: String?
    /// When the job was first received.
    public var createdAt: Date
    /// When the row last changed.
    public var updatedAt: Date
    /// When the latest attempt started.
    public var startedAt: Date?
    /// When the job reached a terminal state (cleared by a re-run).
    public var finishedAt: Date?
    /// Input media time processed, in seconds.
    public var mediaTimeSeconds: Double?
    /// Video frames processed.
    public var frames: Int?
    /// Bytes read from the input.
    public var bytesIn: Int64?
    /// Bytes written, all outputs together.
    public var bytesOut: Int64?
    /// Timestamps repaired because DTS went backwards.
    public var dtsRepairs: Int?
    /// Processing speed relative to real time (1.0 = 1×).
    public var speed: Double?
    /// Times this worker took the job over from another (dead or draining) worker.
    public var takeovers: Int?
    /// Seconds without output at the latest take-over.
    public var lastGapSeconds: Double?

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case id, state, attempts, priority, input, spec, encoder, error, frames, speed
        case maxAttempts = "max_attempts"
        case workerID = "worker_id"
        case specRedacted = "spec_redacted"
        case specSealed = "spec_sealed"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case mediaTimeSeconds = "media_time_s"
        case bytesIn = "bytes_in"
        case bytesOut = "bytes_out"
        case dtsRepairs = "dts_repairs"
        case takeovers
        case lastGapSeconds = "last_gap_s"
    }

    /// How long the latest attempt ran, for listings; nil until the job has both started and finished.
    public var duration: TimeInterval? {
        guard let startedAt, let finishedAt else { return nil }
        return finishedAt.timeIntervalSince(startedAt)
    }

    /// Attempts still allowed, or nil when `max_attempts` is unset.
    public var attemptsLeft: Int? {
        maxAttempts.map { max(0, $0 - attempts) }
    }
}
