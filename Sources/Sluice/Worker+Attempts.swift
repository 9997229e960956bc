// docs/ARCHITECTURE.md §2 and §5: an attempt's start on a thread of its own: the lease first, then the run on its
// engine, its progress and a take-over's record.
import Foundation
import JobQueue
import JobStore
import MediaEngine
import MediaJob
import NamedThreads

extension Worker {
    // MARK: Attempts

    func start(_ job: ActiveJob) {
        startNamedThread("sluice-job") { [self] in execute(job) }
    }

    /// The job's own thread, for the blocking start only (lease, `running`, plan, output rows): then its engine runs
    /// the job and this thread ends; the end is recorded and settled by `JobRunner.startAttempt`'s closing thread.
    func execute(_ job: ActiveJob) {
        let spec = job.spec
        guard takeLease(job) else {
            finished(job)
            return
        }
        do {
            if let interrupted = job.interrupted {
                let record = try store.transition(id: spec.id, to: .retrying, error: "job \(spec.id): \(interrupted)")
                events.transitioned(record)
            }
            // The lease is held: the job's own leftovers from a killed attempt can go.
            let policy = AttemptPolicy(retriesTransientFailures: true, removesEarlierParts: true) { job.requeueReason }
            let reporter = ProgressReporter()
            let start = try runner.startAttempt(
                spec: spec, relay: relayEngine, interrupter: job.interrupter, policy: policy,
                progress: { [self] _, snapshot in progressed(job, reporter, snapshot) },
                completion: { [self] result in
                    switch result {
                    case let .success(outcome): settle(job, outcome)
                    case let .failure(error): storeFailed(job, error)
                    }
                    finished(job)
                })
            switch start {
            case .started:
                return
            case let .ended(outcome):
                settle(job, outcome)
            }
        } catch {
            storeFailed(job, error)
        }
        finished(job)
    }

    /// The store refused a write of the attempt: the job goes back to the queue (after a pause, so that a store
    /// that keeps failing does not spin through it).
    func storeFailed(_ job: ActiveJob, _ error: any Error) {
        log("the job store failed: \(error); returning the job to the queue in 1 s", job: job.spec.id)
        Thread.sleep(forTimeInterval: 1)
        let confirmed = handBack(job, reason: "the job store failed")
        endLease(of: job.spec.id, SettlementPlan.handBack(reason: "the job store failed").leaseEnd(confirmed: confirmed))
    }

    /// One progress snapshot of a running attempt: metrics, the take-over's gap at the first output, and a
    /// `job.progress` event every `progressEventInterval`. Called on the runner's progress queue, one snapshot
    /// at a time.
    func progressed(_ job: ActiveJob, _ reporter: ProgressReporter, _ snapshot: MediaJobProgress) {
        let spec = job.spec
        metrics?.progressed(spec, snapshot)
        if snapshot.bytesOut > 0, let lineage = job.takeTakeover() { recordTakeover(of: job, lineage) }
        guard let needsAttempt = reporter.eventDue(interval: configuration.progressEventInterval) else { return }
        var attempt = reporter.attempt
        if needsAttempt || metrics != nil {
            do {
                let record = try store.job(id: spec.id)
                attempt = record?.attempts
                reporter.attempt = attempt
                // Drops, reconnects and the encoder opened are in the store only.
                if let metrics, let record { metrics.observed(record, outputs: try store.outputs(jobID: spec.id)) }
            } catch {
                log("cannot read the job back for its progress: \(error)", job: spec.id, level: .warning)
            }
        }
        let event = JobEvent(progressOf: spec, attempt: attempt ?? 0, workerID: configuration.workerID, progress: snapshot,
                             outputURLs: job.editable.slots.urls)
        broker.publishEvent(routingKey: event.kind, body: event.json)
    }

    /// Takes the job's lease (docs/ARCHITECTURE.md §5) and acks its message: from here on the lease, not an
    /// unacked delivery, keeps the job alive in the broker, so no consumer_timeout can duplicate it.
    /// Returns false when the job must not run here.
    func takeLease(_ job: ActiveJob) -> Bool {
        let spec = job.spec
        let request = LeaseRequest(jobID: spec.id, body: job.body, priority: job.priority,
                                   headers: job.carriedHeaders, holder: configuration.workerID, jobClass: job.jobClass)
        let outcome = blockingValue { [broker] in
            await broker.acquireLease(request) { reason in job.leaseLost(reason) }
        }
        switch outcome {
        case .acquired:
            for delivery in job.leaseAcquired() { broker.ack(delivery) }
            return true
        case let .heldElsewhere(reason):
            let deliveries = job.seal(requeueLateDeliveries: false)
            if case .handedOver = job.lineage.origin, job.lineage.leaseWaits < DeliveryLineage.maxLeaseWaits {
                // The worker that handed it over is still letting go of the lease: ask again shortly.
                let delay = Worker.leaseWaitDelay(afterWaits: job.lineage.leaseWaits)
                log("handed over, but its lease is still held (\(reason)); trying again in \(Worker.seconds(delay)) s", job: spec.id)
                var waited = job.headers
                waited[JobLease.leaseWaitsHeader] = String(job.lineage.leaseWaits + 1)
                let headers = waited
                blockingWait { [self] in
                    await publishThenAck(deliveries, job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                        try await broker.retry(body: job.body, priority: job.priority, headers: headers, after: delay)
                    }
                }
                return false
            }
            log("not run here: another worker runs it (\(reason))", job: spec.id)
            do {
                try store.recordEvent(id: spec.id, kind: .runningElsewhere,
                                      message: "a copy arrived while another worker holds the job's lease; not run here")
            } catch {
                log("cannot record the event: \(error)", job: spec.id)
            }
            for delivery in deliveries { broker.ack(delivery) }
            return false
        case let .failed(reason):
            log("cannot take the job's lease: \(reason); returning the job to the queue in 1 s", job: spec.id)
            Thread.sleep(forTimeInterval: 1)
            for delivery in job.seal(requeueLateDeliveries: true) { broker.requeue(delivery) }
            return false
        }
    }

    /// How long a handed-over job waits for its lease before asking again: 0.2 s at first (the handing-over worker
    /// deletes its lease queue moments after its hand-over is confirmed, and a live job is off the air meanwhile),
    /// doubling to 1 s, so that `DeliveryLineage.maxLeaseWaits` waits still give that worker about half a minute.
    static func leaseWaitDelay(afterWaits waits: Int) -> Duration {
        min(.seconds(1), .milliseconds(200) * (1 << min(max(waits, 0), 3)))
    }

    /// Records how long the job had no output between its previous holder and this worker.
    func recordTakeover(of job: ActiveJob, _ lineage: DeliveryLineage) {
        let gap = lineage.gapSeconds(nowMilliseconds: BrokerConnection.wallClockMilliseconds()) ?? 0
        let how: String
        let from: String
        switch lineage.origin {
        case .fresh: return
        case let .orphaned(holder, _): (how, from) = ("its claim expired: the worker died or lost the broker", holder)
        case let .handedOver(holder, _): (how, from) = ("handed over on shutdown", holder)
        }
        let message = "taken over from worker \(from) (\(how)): \(String(format: "%.1f", gap)) s without output"
        struct Details: Encodable {
            var from: String
            var gap_s: Double
            var deaths: Int
        }
        do {
            let event = try store.recordTakeover(id: job.spec.id, gapSeconds: gap, message: message,
                                                 data: Details(from: from, gap_s: gap, deaths: lineage.deaths))
            if let record = try store.job(id: job.spec.id) {
                events.transitioned(record, event: event, kind: EventKind.takeover.rawValue, message: message)
            }
        } catch {
            log("cannot record the take-over: \(error)", job: job.spec.id)
        }
    }
}
