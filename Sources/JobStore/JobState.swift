// docs/ARCHITECTURE.md §6: the values of the `jobs.state` column.
import GRDB

/// Where a job is in its life; the raw value is what the `jobs.state` column holds.
public enum JobState: String, CaseIterable, Codable, Hashable, Sendable, DatabaseValueConvertible {
    /// Taken from the queue (or `sluice run`) and recorded, not started yet.
    case received
    /// An attempt is under way on `worker_id`.
    case running
    /// An attempt failed transiently; the message waits on the retry queue.
    case retrying
    /// Every output completed.
    case succeeded
    /// Failed for good (or out of attempts); `jobs retry` may run it again.
    case failed
    /// Stopped on request; `jobs retry` may run it again.
    case cancelled
    /// The spec did not validate; never runs.
    case rejected

    /// True for states after which no attempt is under way, so `finished_at` is set and the message may be acked.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .rejected: true
        case .received, .running, .retrying: false
        }
    }
}
