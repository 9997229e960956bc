// docs/ARCHITECTURE.md §2 and §3: the queue worker. Its other rooms: Worker+Admission (room per class),
// Worker+Attempts (lease, run, progress), Worker+Settlement (what follows an attempt), Worker+OutputEdits,
// Worker+PartSweep, Worker+Stop (the shutdown), WorkerConfiguration, ActiveJob, EventPublisher.
//
// Concurrency, one rule: what can block for long has an owner thread; async work is awaited, never blocked on.
// - Async (Swift's cooperative pool): consuming and triaging deliveries (a job's `receive` or `reject` is one short
//   SQLite write on the consumer task), the broker's calls, the drain (it waits for events: a job ending, a second
//   SIGTERM, the grace timer; it never polls).
// - An owner thread per attempt ("sluice-job"): everything of an attempt that blocks (SQLite, files, FFmpeg) runs on
//   it: its lease, its run (it is the job's input thread; the job adds one per output) and its settlement.
//   It reaches the broker by awaiting a task (`blockingValue`/`blockingWait`), which is safe because it is not a
//   pool thread. A live-engine attempt keeps the thread for its blocking start only; the engine's event loops never
//   block: they hand progress to one serial queue (JobRunner's) and the attempt's end to a short thread of its own,
//   which records and settles it as the attempt thread would have. Closing the broker (it flushes its mailbox) has
//   a thread of its own too.
import Foundation
import JobQueue
import JobStore
import MediaEngine
import MediaJob
import JobDocument

/// Triages `sluice.jobs` into the class queues, consumes `sluice.jobs.live` and `sluice.jobs.batch` with a
/// capacity each, runs each job, records its life in the store, publishes its events, and settles
/// its message only once the job's outcome is committed (ack, retry queue, dead-letter or requeue).
public final class Worker: @unchecked Sendable {
    // Reason: `triage`, `active`, `book`, `shutdownRequested`, `interruptNow`, `consumptionEnded` and `drainWaiters` are
    // guarded by `lock`; everything else is immutable or thread-safe (BrokerConnection, JobStore, JobRunner, EventPublisher).

    let configuration: WorkerConfiguration
    let store: JobStore
    let broker: BrokerConnection
    let log: WorkerLog
    let events: EventPublisher
    let runner: JobRunner
    let metrics: WorkerMetrics?
    /// Runs the live jobs it supports without a thread per job (one per process); nil runs every job on `CodecJob`.
    let relayEngine: (any JobEngine)?

    let lock = NSLock()
    var triage = DeliveryTriage()
    /// Attempts running (on their own threads, or on the relay engine), by job id.
    var active: [String: ActiveJob] = [:]
    /// Each class's capacity and use (slots, or encode units), and which consumers wait for room.
    var book: SlotBook
    var shutdownRequested = false
    var interruptNow = false
    /// The broker finished the deliveries stream and every delivery taken from it was handled.
    var consumptionEnded = false
    /// `drain` waiting for a job to end or a second shutdown request (see `waitForDrain`).
    var drainWaiters: [CheckedContinuation<Bool, Never>] = []

    /// - Parameters:
    ///   - configuration: id, concurrency, grace, roots, backoff.
    ///   - store: the job database.
    ///   - broker: a connection that consumes jobs and control messages; the worker starts and closes it.
    ///   - log: where the worker's lines go.
    ///   - metrics: where transitions and progress are counted (`sluice worker --http`); nil counts nothing.
    ///   - relayEngine: the process's relay engine: it runs the live copy jobs, and carries every RTMP byte of the others.
    public init(configuration: WorkerConfiguration, store: JobStore, broker: BrokerConnection, log: WorkerLog,
                metrics: WorkerMetrics? = nil, relayEngine: (any JobEngine)? = nil) {
        self.configuration = configuration
        self.relayEngine = relayEngine
        self.store = store
        self.broker = broker
        self.log = log
        self.metrics = metrics
        let events = EventPublisher(broker: broker, store: store, log: log, metrics: metrics,
                                    workerID: configuration.workerID)
        self.events = events
        runner = JobRunner(store: store, workerID: configuration.workerID, paths: configuration.paths,
                           storeInterval: configuration.storeInterval, livePlaylists: configuration.livePlaylists,
                           onTransition: { events.transitioned($0) })
        book = SlotBook(capacity: Dictionary(uniqueKeysWithValues: JobClass.allCases.map { ($0, configuration.slots($0)) }))
        for jobClass in JobClass.allCases { metrics?.slots(jobClass, capacity: configuration.slots(jobClass), busy: 0) }
    }

    /// Reconciles, consumes until `shutdown()`, lets running jobs finish within the grace period (then
    /// interrupts and requeues them), and closes the broker connection: within the grace plus
    /// `configuration.stopOverrun`, whatever the broker, the store or the jobs' streams do meanwhile.
    public func run() async {
        reconcile()
        broker.start()
        let sweeping = Task { await sweepStalePartsPeriodically() }
        log("starting: triaging \(Topology.jobsQueue); consuming \(Topology.liveQueue) with \(configuration.liveSlots) slots, \(Topology.batchQueue) with \(configuration.batchSlots) and \(Topology.encodeQueue) with \(configuration.encodeSlots) encode units once connected")
        let controls = Task { await consumeControls() }
        let consuming = Task {
            await consume()
            lock.withLock { consumptionEnded = true }
            wakeDrain()
        }
        // The drain begins at the shutdown request, not when consuming has wound down: a delivery being handled may
        // wait on a broker confirm, and a broker that is gone never sends it.
        await waitForDrain { self.shutdownRequested || self.consumptionEnded }
        await drain()
        let closed = await closeBroker(within: configuration.brokerCloseTimeout)
        // A sweep in flight walks folders and asks the broker on a connection of its own: it is not waited for.
        sweeping.cancel()
        if closed {
            await consuming.value
            await controls.value
        } else {
            log("the broker connection did not close within \(Worker.seconds(configuration.brokerCloseTimeout)) s; stopping without it: the broker requeues what was not acked and the leases lapse")
        }
        log("stopped")
    }

    /// Consumes deliveries until the broker finishes the stream (after `stopConsuming`, or a connection that gave up).
    func consume() async {
        // The intake's triage waits for a broker confirm per job: on a task of its own, in order (a burst of new
        // jobs keeps its order within a priority), so that it never holds back the class deliveries in this stream.
        let (intake, intakeInput) = AsyncStream.makeStream(of: Delivery.self)
        let triaging = Task {
            for await delivery in intake { await handle(delivery) }
        }
        for await delivery in broker.deliveries {
            if delivery.jobClass == nil {
                intakeInput.yield(delivery)
            } else {
                await handle(delivery)
            }
        }
        intakeInput.finish()
        await triaging.value
    }

    // MARK: Start

    /// Rows this worker id left `running` belong to a process that died: their messages come back from the
    /// broker, so the rows move to `retrying` (the only way back to `running`) and say why.
    func reconcile() {
        do {
            for job in try store.runningJobs(workerID: configuration.workerID) {
                let reason = "attempt \(job.attempts) was interrupted: worker \(configuration.workerID) stopped while it ran; the broker redelivers the job"
                let record = try store.transition(id: job.id, to: .retrying, error: "job \(job.id): \(reason)",
                                                  message: "reconciled at worker start: \(reason)")
                events.transitioned(record, message: "reconciled at worker start")
            }
        } catch {
            log("cannot reconcile jobs left running by \(configuration.workerID): \(error)")
        }
    }

    // MARK: Deliveries

    func handle(_ delivery: Delivery) async {
        var spec: JobSpec?
        var problem: JobSpecError?
        do throws(JobSpecError) {
            spec = try JobSpec.parse(Data(delivery.body))
        } catch {
            problem = error
        }
        guard let jobClass = delivery.jobClass else {
            await classify(delivery, spec: spec, problem: problem)
            return
        }
        if let spec, spec.jobClass != jobClass {
            // Triaged by a worker that knew fewer classes (a live encode job in sluice.jobs.live): moved where it belongs.
            log("arrived through \(jobClass.queueName); moving it to \(spec.jobClass.queueName)", job: spec.id)
            await classify(delivery, spec: spec, problem: problem)
            return
        }
        let (arrival, heldAsNext): (DeliveryTriage.Arrival, Bool) = lock.withLock {
            let arrival = triage.arrived(id: spec?.id, problem: problem?.description)
            var held = false
            if arrival == .attachToRunning, let id = spec?.id {
                held = active[id]?.attach(delivery, broker: broker) ?? false
            }
            return (arrival, held)
        }
        switch arrival {
        case let .reject(reason):
            await reject(delivery, id: problem?.id, reason: reason)
        case .attachToRunning where heldAsNext:
            log("its next attempt arrived before this attempt's end was recorded here; it is handled once that is done", job: spec?.id)
        case .attachToRunning:
            log("delivered again while running here (connection generation \(delivery.generation)); this copy is not run", job: spec?.id)
        case .record:
            guard let spec else { return }
            // Jobs are acked when they start, so the prefetch no longer holds deliveries back while the class has no
            // room: one that arrives then goes back at once (it must not wait unacked past consumer_timeout), and
            // the class's consumer pauses until room frees up, so the broker does not hand it straight back.
            if case let .wait(reason) = admit(spec, jobClass: jobClass, taking: false) {
                deferred(spec, delivery, jobClass: jobClass, reason: reason)
                return
            }
            await record(spec, delivery, jobClass: jobClass,
                         lineage: DeliveryLineage(headers: delivery.headers, redelivered: Self.redelivered(delivery)))
        }
    }

    /// The triage of the intake: a valid job is copied into its class queue (confirmed, then acked here), an
    /// invalid one is recorded as rejected and dead-lettered. Never paused: it holds no slot.
    func classify(_ delivery: Delivery, spec: JobSpec?, problem: JobSpecError?) async {
        guard let spec else {
            let reason = problem?.description ?? "the job has no readable id"
            await reject(delivery, id: problem?.id, reason: reason)
            return
        }
        do throws(AMQPError) {
            try await broker.triage(delivery, to: spec.jobClass)
        } catch .staleDelivery {
            // Its connection is gone: the broker delivers it again.
        } catch {
            log("could not move the job to \(spec.jobClass.queueName): \(error); returning it to \(Topology.jobsQueue)", job: spec.id)
            broker.requeue(delivery)
        }
    }

    /// The broker's flag, or the triage's note that the intake delivery it copied was a redelivery.
    static func redelivered(_ delivery: Delivery) -> Bool {
        delivery.redelivered || delivery.headers[Topology.redeliveredHeader] == "1"
    }

    func reject(_ delivery: Delivery, id: String?, reason: String) async {
        do {
            let record = try store.reject(id: id ?? JobRunner.generatedID(), spec: String(decoding: delivery.body, as: UTF8.self),
                                          specRedacted: JobSpec.redactedText(of: Data(delivery.body)),
                                          error: reason, workerID: configuration.workerID)
            events.transitioned(record)
        } catch {
            log("cannot record the rejection (\(reason)): \(error)", job: id)
        }
        await deadLetter([delivery], reason: reason, job: id)
    }

    func record(_ spec: JobSpec, _ delivery: Delivery, jobClass: JobClass, lineage: DeliveryLineage) async {
        let outcome: ReceiveOutcome
        do {
            outcome = try runner.receive(spec)
        } catch {
            log("cannot record the job: \(error); returning it to the queue in 1 s", job: spec.id)
            // A pause, so that a store that keeps failing does not spin through the queue.
            try? await Task.sleep(for: .seconds(1))
            broker.requeue(delivery)
            return
        }
        let stored: DeliveryTriage.StoredJob?
        switch outcome {
        case let .alreadySucceeded(record):
            events.transitioned(record, kind: EventKind.duplicate.rawValue, message: "already succeeded; not run again")
            stored = nil
        case .created:
            stored = DeliveryTriage.StoredJob(state: .received, attempts: 0, maxAttempts: spec.maxAttempts,
                                              workerID: configuration.workerID, error: nil)
            publishCurrent(spec.id)
        case let .existing(record):
            stored = DeliveryTriage.StoredJob(state: record.state, attempts: record.attempts,
                                              maxAttempts: record.maxAttempts ?? spec.maxAttempts,
                                              workerID: record.workerID, error: record.error)
        }
        let verdict = lock.withLock {
            triage.recorded(id: spec.id, stored: stored, redelivered: Self.redelivered(delivery), workerID: configuration.workerID,
                            poison: lineage.poisonReason(id: spec.id, maxAttempts: spec.maxAttempts))
        }
        switch verdict {
        case .duplicate:
            broker.ack(delivery)
        case .skipCancelled:
            if let state = stored?.state, JobLifecycle.successors(of: state).contains(.cancelled) {
                commit(spec.id, to: .cancelled, error: nil, message: "cancelled while queued; not run")
            } else {
                log("cancelled while queued; not run", job: spec.id)
            }
            broker.ack(delivery)
        case let .deadLetter(reason, failing):
            if failing { commit(spec.id, to: .failed, error: reason, message: nil) }
            await deadLetter([delivery], reason: reason, job: spec.id)
        case let .settleRedelivered(reason):
            await settleRedelivered(delivery, reason: reason, job: spec.id)
        case let .acknowledge(reason):
            log("\(reason); acknowledged without running", job: spec.id)
            broker.ack(delivery)
        case let .run(interrupted):
            let job = ActiveJob(spec: spec, delivery: delivery, jobClass: jobClass, interrupted: interrupted, lineage: lineage)
            // `handle` checked for room, and room only frees up since; a shutdown may have begun meanwhile.
            if case let .wait(reason) = admit(spec, jobClass: jobClass, taking: true, starting: job) {
                deferred(spec, delivery, jobClass: jobClass, reason: "not started: \(reason)", recorded: true)
                return
            }
            start(job)
        }
    }

    /// Commits a transition the worker decides itself (not the runner) and publishes it; a refusal is logged.
    func commit(_ id: String, to state: JobState, error: String?, message: String?) {
        do {
            events.transitioned(try store.transition(id: id, to: state, error: error, message: message))
        } catch {
            log("cannot record \(state.rawValue): \(error)", job: id)
        }
    }

    func publishCurrent(_ id: String) {
        do {
            if let record = try store.job(id: id) { events.transitioned(record) }
        } catch {
            log("cannot read the job back for its event: \(error)", job: id)
        }
    }

    // MARK: Control

    func consumeControls() async {
        for await message in broker.controls {
            switch message {
            case let .cancel(id):
                let job: ActiveJob? = lock.withLock {
                    switch triage.cancelRequested(id: id) {
                    case .interrupt: return active[id]
                    case .remember: return nil
                    }
                }
                if let job {
                    log("cancel requested: interrupting the running attempt", job: id)
                    job.cancel()
                } else {
                    log("cancel requested for a job not running here: it is skipped if it arrives", job: id)
                }
            case let .editOutputs(request):
                requestedOutputEdit(request)
            }
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value.rounded() == value && abs(value) < 1e18 ? String(Int64(value)) : String(format: "%.3g", value)
    }
}
