// docs/ARCHITECTURE.md §6: the job state machine, kept pure so it is tested apart from SQLite.

/// The legal moves between job states, and what the store must do for each.
///
/// `received → running | rejected | cancelled | failed` (failed: workers died running it too often); `running → succeeded | failed | cancelled | retrying`;
/// `retrying → running | failed | cancelled`; `failed → running` and `cancelled → running` (a re-run);
/// `rejected` and `succeeded` are final.
public struct JobLifecycle: Equatable, Sendable {
    /// What a legal transition asks the store to do besides writing the new state and its event.
    public enum Effect: Equatable, Sendable {
        /// A new attempt: count it, stamp `started_at`, clear `finished_at`, the error and the progress.
        case startAttempt
        /// No attempt is under way any more: stamp `finished_at`.
        case finish
        /// The attempt ended but the job is not over (waiting on the retry queue).
        case suspend
    }

    /// The state the job is in now.
    public private(set) var state: JobState

    /// The states reachable from `state` in one step.
    /// - Parameter state: the state to leave.
    public static func successors(of state: JobState) -> Set<JobState> {
        switch state {
        case .received: [.running, .rejected, .cancelled, .failed]
        case .running: [.succeeded, .failed, .cancelled, .retrying]
        case .retrying: [.running, .failed, .cancelled]
        case .failed, .cancelled: [.running]
        case .rejected, .succeeded: []
        }
    }

    /// Moves to `next` and returns what the store must do, or throws `illegalTransition` naming both states.
    /// - Parameters:
    ///   - next: the state to enter.
    ///   - jobID: the job's id, carried into the error so the message names the job.
    public mutating func transition(to next: JobState, jobID: String? = nil) throws(JobStoreError) -> Effect {
        guard Self.successors(of: state).contains(next) else {
            throw .illegalTransition(jobID: jobID, from: state, to: next)
        }
        state = next
        if next == .running { return .startAttempt }
        return next.isTerminal ? .finish : .suspend
    }
}
