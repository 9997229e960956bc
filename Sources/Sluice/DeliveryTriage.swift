// docs/ARCHITECTURE.md §2: what the worker does with each job delivery, decided without I/O so it is tested alone.
import JobStore

/// The worker's bookkeeping of job ids (claimed here, cancel requested) and its verdict on each delivery.
///
/// A delivery is triaged in two steps around `JobStore.receive`: `arrived` looks at the message and at what
/// this worker is doing (before the store is touched), `recorded` at what the store knows about the id.
/// The owner calls `finished` when an attempt it was told to run has settled. Not thread-safe: the worker
/// holds its lock around every call.
public struct DeliveryTriage: Sendable {
    /// What to do with a delivery before the store is consulted.
    public enum Arrival: Equatable, Sendable {
        /// The body is not a valid job: record `rejected` and dead-letter it with the reason.
        case reject(reason: String)
        /// This worker already runs the job (a redelivery after a connection loss, or the same id enqueued
        /// twice): do not start it again; settle this delivery together with the running attempt.
        case attachToRunning
        /// Record the job with `JobStore.receive`, then ask `recorded`.
        case record
    }

    /// What to do with a delivery once the store has recorded it.
    public enum Verdict: Equatable, Sendable {
        /// Run a new attempt. `interrupted` describes an earlier attempt left `running` (a worker that died
        /// or lost its connection): it is recorded as `retrying` first, since an attempt cannot restart in place.
        case run(interrupted: String?)
        /// The id already succeeded: ack without running (the store wrote `job.duplicate`).
        case duplicate
        /// A cancel for this id arrived while it was queued: record `cancelled` (if its state allows) and ack.
        case skipCancelled
        /// Dead-letter with `reason`; `failing` says whether the job must first be recorded as `failed`
        /// (attempts exhausted) or is already final (rejected, or failed and redelivered).
        case deadLetter(reason: String, failing: Bool)
        /// The job failed here and this is its message again, unsettled: its dead letter may never have reached the
        /// broker. Dead-letter it with `reason`, unless the job's lease queue still holds a claim or a holder: then
        /// that claim brings the job back (a take-over, one more attempt and its own settlement) and this copy is
        /// only acked, so that the job is not dead-lettered twice (docs/ARCHITECTURE.md §5, settling).
        case settleRedelivered(reason: String)
        /// The job already ended (cancelled) and this is the same message again: ack only.
        case acknowledge(reason: String)
    }

    /// What a cancel request does.
    public enum CancelAction: Equatable, Sendable {
        /// The job is claimed here: interrupt its attempt (or make it stop as soon as it starts).
        case interrupt
        /// Not here: remember the id, so the job is skipped if it arrives later.
        case remember
    }

    /// What the store knows about a job, as far as triage needs it.
    public struct StoredJob: Equatable, Sendable {
        public var state: JobState
        public var attempts: Int
        public var maxAttempts: Int
        public var workerID: String?
        public var error: String?
    }

    /// Most cancels remembered for jobs not seen yet; the oldest is forgotten first.
    public static let rememberedCancelLimit = 4096

    /// Ids this worker runs or is about to run.
    public private(set) var claimed: Set<String> = []
    /// Ids a cancel arrived for before the job did, oldest first.
    public private(set) var pendingCancels: [String] = []

    public init() {}

    /// Step 1: a delivery arrived.
    /// - Parameters:
    ///   - id: the job id, when the body parsed as a valid job.
    ///   - problem: why the body is not a valid job (nil when it is).
    public func arrived(id: String?, problem: String?) -> Arrival {
        if let problem { return .reject(reason: problem) }
        guard let id else { return .reject(reason: "the job has no readable id") }
        return claimed.contains(id) ? .attachToRunning : .record
    }

    /// Step 2: the store recorded the delivery.
    /// - Parameters:
    ///   - id: the job id.
    ///   - stored: the job as the store has it now (nil: the id already succeeded).
    ///   - redelivered: the broker's flag: this message was delivered before and not settled.
    ///   - workerID: this worker's id.
    ///   - poison: why the job must not run again, when workers died running it `max_attempts` times
    ///     (`DeliveryLineage.poisonReason`); nil otherwise.
    public mutating func recorded(id: String, stored: StoredJob?, redelivered: Bool, workerID: String,
                                  poison: String? = nil) -> Verdict {
        guard let stored, stored.state != .succeeded else { return .duplicate }
        if let index = pendingCancels.firstIndex(of: id) {
            pendingCancels.remove(at: index)
            return .skipCancelled
        }
        switch stored.state {
        case .succeeded:
            return .duplicate
        case .rejected:
            return .deadLetter(reason: "job \(id) was rejected earlier: \(stored.error ?? "invalid spec")", failing: false)
        case .failed where redelivered:
            // Its failure was committed but the message was not settled: the worker stopped first, or the connection
            // went with the message's ack and the dead letter's publish (the lease then lapses into a take-over).
            return .settleRedelivered(reason: stored.error ?? "job \(id) failed")
        case .cancelled where redelivered:
            return .acknowledge(reason: "job \(id) was already cancelled")
        case .failed, .cancelled, .received, .retrying, .running:
            if let poison {
                return .deadLetter(reason: poison, failing: JobLifecycle.successors(of: stored.state).contains(.failed))
            }
        }
        switch stored.state {
        case .succeeded, .rejected:
            return .duplicate
        case .failed, .cancelled:
            // A fresh message for a finished job: an admin's `jobs retry` or upstream re-enqueueing it.
            claimed.insert(id)
            return .run(interrupted: nil)
        case .received, .retrying, .running:
            if stored.attempts >= stored.maxAttempts {
                let last = stored.error.map { "; last error: \($0)" } ?? ""
                return .deadLetter(
                    reason: "job \(id): attempts exhausted (\(stored.attempts) of \(stored.maxAttempts) used)\(last)",
                    failing: true)
            }
            claimed.insert(id)
            guard stored.state == .running else { return .run(interrupted: nil) }
            let worker = stored.workerID == workerID ? "this worker" : "worker \(stored.workerID ?? "unknown")"
            return .run(interrupted: "attempt \(stored.attempts) on \(worker) was interrupted; the broker redelivered the job")
        }
    }

    /// A cancel request arrived on `sluice.control`.
    /// - Parameter id: the job to cancel.
    public mutating func cancelRequested(id: String) -> CancelAction {
        if claimed.contains(id) { return .interrupt }
        if !pendingCancels.contains(id) {
            pendingCancels.append(id)
            if pendingCancels.count > Self.rememberedCancelLimit { pendingCancels.removeFirst() }
        }
        return .remember
    }

    /// The attempt of `id` settled: the id may be delivered and run again.
    /// - Parameter id: the job id.
    public mutating func finished(id: String) {
        claimed.remove(id)
    }
}

/// Exponential backoff for the retry queue: `base × 2^(attempt − 1)`, capped.
public struct RetryBackoff: Sendable, Equatable {
    public var base: Duration
    public var cap: Duration

    public init(base: Duration, cap: Duration) {
        precondition(base > .zero && cap >= base, "retry backoff delays out of order")
        self.base = base
        self.cap = cap
    }

    /// The wait before the attempt after `failedAttempt` (1 → base, 2 → 2 × base, …).
    /// - Parameter failedAttempt: the attempt that just failed, from 1.
    public func delay(afterAttempt failedAttempt: Int) -> Duration {
        var delay = base
        for _ in 1..<max(failedAttempt, 1) {
            delay *= 2
            if delay >= cap { return cap }
        }
        return min(delay, cap)
    }
}
