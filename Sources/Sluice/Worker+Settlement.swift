// docs/ARCHITECTURE.md §2 and §5: what follows an attempt (dead letter, retry, hand-over, nothing), published with a
// confirm before the lease goes (or the lease left to lapse when no confirm came), and how deliveries are settled.
// Called from job threads, never from the cooperative pool.
import Foundation
import JobQueue
import JobStore
import MediaEngine
import NIOConcurrencyHelpers
import NamedThreads

extension Worker {
    /// Publishes what follows the attempt (`SettlementPlan`: dead letter, retry, hand-over), then gives the lease up
    /// once the broker confirmed it: the job lives on in the published message, never in two places at once for long.
    /// A publish the broker did not confirm leaves the lease to lapse instead (docs/ARCHITECTURE.md §5, settling):
    /// nothing is released that was not settled.
    func settle(_ job: ActiveJob, _ outcome: JobOutcome) {
        let spec = job.spec
        let plan = SettlementPlan.plan(outcome: outcome, leaseLost: job.leaseLostReason,
                                       requeueRequested: job.requeueReason != nil, carriedHeaders: job.carriedHeaders,
                                       backoff: configuration.retryBackoff) { [self] in
            do {
                return try store.job(id: spec.id)?.attempts ?? 1
            } catch {
                log("cannot read the attempt count: \(error)", job: spec.id)
                return 1
            }
        }
        var confirmed = true
        switch plan {
        case .finished:
            break
        case let .deadLetter(reason):
            log("dead-lettered: \(reason)", job: spec.id)
            confirmed = blockingValue { [self] in
                await publishConfirmed(job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                    try await broker.deadLetter(body: job.body, priority: job.priority, headers: job.carriedHeaders,
                                                reason: reason)
                }
            }
        case let .stopLeaseLost(lost):
            log("stopped: the job's lease was lost (\(lost)); the worker that holds it now runs the job", job: spec.id)
        case let .handBack(reason):
            confirmed = handBack(job, reason: reason)
        case let .retry(reason, delay, headers):
            log("retrying in \(Worker.seconds(delay)) s: \(reason)", job: spec.id)
            confirmed = blockingValue { [self] in
                await publishConfirmed(job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                    try await broker.retry(body: job.body, priority: job.priority, headers: headers, after: delay)
                }
            }
        }
        endLease(of: spec.id, plan.leaseEnd(confirmed: confirmed))
    }

    /// Applies a settled (or unsettled) attempt's `SettlementPlan.LeaseEnd` to the job's lease.
    func endLease(of jobID: String, _ end: SettlementPlan.LeaseEnd) {
        switch end {
        case .release:
            blockingWait { [broker] in await broker.releaseLease(jobID: jobID) }
        case .abandon:
            log("the broker did not confirm the job's next step; its lease is left to lapse, and the job is taken over from its claim", job: jobID)
            blockingWait { [broker] in await broker.abandonLease(jobID: jobID) }
        }
    }

    /// Hands a job this worker stops without finishing back to `sluice.jobs` (shutdown, a failing store),
    /// with when its output stopped, for the worker that takes it over. The caller ends the lease after.
    /// - Returns: whether the broker confirmed the hand-back.
    func handBack(_ job: ActiveJob, reason: String) -> Bool {
        log("handed back to the queue: \(reason)", job: job.spec.id)
        var handover = job.carriedHeaders
        handover[JobLease.handoverHeader] = configuration.workerID
        handover[JobLease.stoppedAtHeader] = String(BrokerConnection.wallClockMilliseconds())
        let headers = handover
        return blockingValue { [self] in
            await publishConfirmed(job: job.spec.id) { [broker = self.broker] () throws(AMQPError) in
                try await broker.handOver(body: job.body, priority: job.priority, headers: headers)
            }
        }
    }

    /// A publish that settles a job after its lease; false (logged) when the broker did not confirm it: then the lease,
    /// not released, keeps the job: its claim expires into `sluice.jobs` and another attempt follows.
    func publishConfirmed(job: String, _ publish: () async throws(AMQPError) -> Void) async -> Bool {
        do throws(AMQPError) {
            try await publish()
            return true
        } catch {
            log("could not publish the job's next step: \(error)", job: job)
            return false
        }
    }

    /// Publishes (confirmed), then acks the deliveries; on failure they are requeued.
    func publishThenAck(_ deliveries: [Delivery], job: String, _ publish: () async throws(AMQPError) -> Void) async {
        do throws(AMQPError) {
            try await publish()
            for delivery in deliveries { broker.ack(delivery) }
        } catch {
            log("could not publish: \(error); returning the message to the queue", job: job)
            for delivery in deliveries { broker.requeue(delivery) }
        }
    }


    // MARK: Settling messages

    func deadLetter(_ deliveries: [Delivery], reason: String, job: String?) async {
        log("dead-lettered: \(reason)", job: job)
        await settleOne(deliveries, job: job) { [broker] delivery throws(AMQPError) in
            try await broker.deadLetter(delivery, reason: reason)
        }
    }

    /// The unsettled message of a job that failed here (`DeliveryTriage.Verdict.settleRedelivered`): acked when the
    /// job's lease queue still holds a claim or a holder, since that claim brings the job back and settles it; else
    /// dead-lettered. When the broker cannot be asked, it is dead-lettered: a second dead letter is better than none.
    func settleRedelivered(_ delivery: Delivery, reason: String, job: String) async {
        let broker = broker
        let waits: Result<Bool, AMQPError> = await withCheckedContinuation { done in
            startNamedThread("sluice-claim") {
                done.resume(returning: Result { () throws(AMQPError) in try broker.claimWaits(jobID: job) })
            }
        }
        switch waits {
        case .success(true):
            log("its failure's message came again, unsettled, while its lease still holds a claim: acked; the claim brings "
                + "the job back and settles it", job: job)
            broker.ack(delivery)
        case .success(false):
            await deadLetter([delivery], reason: reason, job: job)
        case let .failure(error):
            log("cannot ask the broker whether the job's lease still holds a claim (\(error)); dead-lettering its message again", job: job)
            await deadLetter([delivery], reason: reason, job: job)
        }
    }

    /// Publishes one copy (dead-letter or retry) from the newest delivery that can still be settled and acks
    /// the others; a delivery from a lost connection is skipped, since the broker redelivers its message.
    func settleOne(_ deliveries: [Delivery], job: String?,
                           _ publish: (Delivery) async throws(AMQPError) -> Void) async {
        let ordered = deliveries.sorted { $0.generation > $1.generation }
        for (index, delivery) in ordered.enumerated() {
            do throws(AMQPError) {
                try await publish(delivery)
                for other in ordered[(index + 1)...] { broker.ack(other) }
                return
            } catch .staleDelivery {
                continue
            } catch {
                log("could not settle the message: \(error); the broker will deliver it again", job: job)
                return
            }
        }
    }

    /// Runs async work from a job thread and returns its value (never call it from the cooperative pool).
    func blockingValue<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            let value = await body()
            box.value.withLockedValue { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = box.value.withLockedValue({ $0 }) else { preconditionFailure("the task signalled before it stored its value") }
        return value
    }

    /// Runs async settling from a job thread (never from the cooperative pool, which it would block).
    func blockingWait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}

/// Carries a value out of a Task to the thread waiting on a semaphore.
private final class ResultBox<T: Sendable>: Sendable {
    let value = NIOLockedValueBox<T?>(nil)
}
