// docs/ARCHITECTURE.md §2 (step 7): what follows an attempt, decided without I/O so it is tested alone;
// `Worker.settle` applies it (publishes with a confirm), then gives the job's lease up.
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
