// docs/ARCHITECTURE.md §2 (step 7) and §5 (settling): what follows an attempt, and what becomes of the lease after,
// decided without I/O so it is tested alone; `Worker.settle` applies it (publishes with a confirm), then releases the
// job's lease, or leaves it to lapse when the broker did not confirm.
import JobQueue

/// The step that follows an attempt, before the lease is released: the job lives on in the message this publishes.
enum SettlementPlan: Equatable, Sendable {
    /// The job ended (succeeded, cancelled, already done, rejected): only the lease goes.
    case finished
    /// A permanent failure: publish the job to `sluice.jobs.dead` with the reason.
    case deadLetter(reason: String)
    /// The lease was lost while the attempt ran: another worker holds the job now, so nothing is published.
    case stopLeaseLost(reason: String)
    /// The worker stopped the attempt (shutdown, a failing store): hand the job back to `sluice.jobs` at once.
    case handBack(reason: String)
    /// A transient failure with attempts left: publish to `sluice.jobs.retry`, to come back after `delay`, carrying
    /// `headers` (the attempt that follows in `x-sluice-attempt`).
    case retry(reason: String, delay: Duration, headers: [String: String])

    /// What becomes of the job's lease once the step was published (or its publish failed).
    enum LeaseEnd: Equatable, Sendable {
        /// Delete the lease queue: the job lives on in what was published, or has ended.
        case release
        /// Leave the lease to lapse: the broker did not confirm the step, so the claims in the lease queue are the
        /// job's only copy; they expire into `sluice.jobs` and the job is taken over.
        case abandon
    }

    /// Whether this step publishes a copy of the job that must be confirmed before the lease may go.
    var publishes: Bool {
        switch self {
        case .finished, .stopLeaseLost: false
        case .deadLetter, .handBack, .retry: true
        }
    }

    /// The lease's end: released unless the step publishes a copy the broker did not confirm.
    /// - Parameter confirmed: whether the broker confirmed the step's publish (ignored when it publishes nothing).
    func leaseEnd(confirmed: Bool) -> LeaseEnd {
        publishes && !confirmed ? .abandon : .release
    }

    /// Decides the step after an attempt.
    /// - Parameters:
    ///   - outcome: how the attempt ended, as recorded.
    ///   - leaseLost: why the lease was lost meanwhile, if it was.
    ///   - requeueRequested: whether the worker interrupted the attempt to requeue it.
    ///   - carriedHeaders: the headers every later copy of the job carries.
    ///   - backoff: the retry backoff.
    ///   - attempts: the attempts recorded so far (read only for a retry).
    static func plan(outcome: JobOutcome, leaseLost: String?, requeueRequested: Bool, carriedHeaders: [String: String],
                     backoff: RetryBackoff, attempts: () -> Int) -> SettlementPlan {
        switch outcome {
        case .succeeded, .cancelled, .alreadySucceeded, .rejected:
            return .finished
        case let .failed(failure):
            return .deadLetter(reason: failure.message)
        case let .retrying(failure):
            if let leaseLost { return .stopLeaseLost(reason: leaseLost) }
            if requeueRequested { return .handBack(reason: failure.message) }
            let attempt = attempts()
            var headers = carriedHeaders
            headers[Topology.attemptHeader] = String(attempt + 1)
            return .retry(reason: failure.message, delay: backoff.delay(afterAttempt: attempt), headers: headers)
        }
    }
}
