// DESIGN §4 and §5: the queue worker. Deliveries are triaged on the consumer task; every attempt runs on a
// dedicated thread (the pipeline adds one per output), never on Swift's cooperative pool.
import Foundation
import JobQueue
import JobStore
import MediaEngine
import NIOCore

/// What a worker needs besides its broker connection and store.
public struct WorkerConfiguration: Sendable {
    /// Recorded with every attempt; rows this id left `running` are reconciled at start.
    public var workerID: String
    /// Batch jobs (file input) run at once: the prefetch of `sluice.jobs.batch`. 0 takes none.
    public var batchSlots: Int
    /// Live jobs (RTMP pull or listen input) that encode no video, run at once: the prefetch of `sluice.jobs.live`.
    /// 0 takes none.
    public var liveSlots: Int
    /// The encode budget in 720p30-equivalents (`EncodeUnit`): live jobs that encode video run while the sum of
    /// their `encodeCost` fits in it (`SlotBook`). 0 takes none.
    public var encodeSlots: Int
    /// How long a class waits for room after a delivery that did not fit, before it looks at its queue again
    /// (sooner when a job of the class ends).
    public var admissionRelook: Duration
    /// The older name of `batchSlots` (`--concurrency`), from when every job shared one queue.
    public var concurrency: Int {
        get { batchSlots }
        set { batchSlots = newValue }
    }
    /// How long running jobs may go on after a shutdown request before they are interrupted and requeued.
    public var grace: Duration
    /// Where job paths may point (the worker always uses `.rooted`).
    public var paths: PathPolicy
    /// Delay before a transiently failed job is delivered again.
    public var retryBackoff: RetryBackoff
    /// Seconds between `job.progress` events of a running job.
    public var progressEventInterval: Double
    /// Seconds between progress rows written to the store.
    public var storeInterval: Double

    /// Live slots when none are given: a live engine relays hundreds of restreams on a few event-loop threads,
    /// and a restream costs little CPU (copy, no decode), so a worker takes many; batch jobs decode and encode.
    public static let defaultLiveSlots = 100

    /// The encode budget when none is given: one unit (a 720p30 x264 veryfast live encode) per core, counted as the
    /// live engine counts its loops (a cgroup CPU limit or cpuset counts; a container without either sees the
    /// node's cores). One unit measured 0.41 of a core on a synthetic picture (`scripts/bench liveencode`) and takes
    /// more on camera content (noise, motion: up to ~0.7), so this keeps a worker's encodes to about half to two
    /// thirds of its cores and leaves the rest to the engine's loops, the copy restreams and the batch slot.
    public static var defaultEncodeSlots: Int { max(1, System.coreCount) }

    /// - Parameters:
    ///   - workerID: this worker's id.
    ///   - batchSlots: batch jobs at once (≥ 0).
    ///   - liveSlots: live jobs at once (≥ 0).
    ///   - encodeSlots: the encode budget in 720p30-equivalents (≥ 0; at least one of the three > 0).
    ///   - paths: the input and output roots.
    public init(workerID: String, batchSlots: Int = 1, liveSlots: Int = WorkerConfiguration.defaultLiveSlots,
                encodeSlots: Int = WorkerConfiguration.defaultEncodeSlots, paths: PathPolicy) {
        precondition(batchSlots >= 0 && liveSlots >= 0 && encodeSlots >= 0 && batchSlots + liveSlots + encodeSlots >= 1,
                     "a worker needs a slot")
        self.workerID = workerID
        self.batchSlots = batchSlots
        self.liveSlots = liveSlots
        self.encodeSlots = encodeSlots
        self.paths = paths
        admissionRelook = .seconds(15)
        grace = .seconds(30)
        retryBackoff = RetryBackoff(base: .seconds(5), cap: .seconds(300))
        progressEventInterval = 5
        storeInterval = 2
    }

    /// The older form: `concurrency` batch slots and the default live slots.
    public init(workerID: String, concurrency: Int, paths: PathPolicy) {
        self.init(workerID: workerID, batchSlots: concurrency, paths: paths)
    }

    /// The slots of one class (units for `encode`).
    public func slots(_ jobClass: JobClass) -> Int {
        switch jobClass {
        case .live: liveSlots
        case .batch: batchSlots
        case .encode: encodeSlots
        }
    }

    /// The class queues and their prefetch for `BrokerConfiguration.classPrefetch` (a class without slots is not
    /// consumed). An encode job costs at least one unit, so the encode budget bounds the jobs that can start too.
    public var classPrefetch: [JobClass: UInt16] {
        var prefetch: [JobClass: UInt16] = [:]
        for jobClass in JobClass.allCases where slots(jobClass) > 0 {
            prefetch[jobClass] = UInt16(clamping: slots(jobClass))
        }
        return prefetch
    }
}

extension JobSpec {
    /// Batch for a file input; for a network stream (an RTMP/RTMPS pull or listen), encode when it encodes video
    /// (`encodeCost` > 0), else live.
    public var jobClass: JobClass {
        guard input.isNetwork else { return .batch }
        return encodeCost > 0 ? .encode : .live
    }
}

/// Triages `sluice.jobs` into the class queues, consumes `sluice.jobs.live` and `sluice.jobs.batch` with a
/// capacity each, runs each job, records its life in the store, publishes its events, and settles
/// its message only once the job's outcome is committed (ack, retry queue, dead-letter or requeue).
public final class Worker: @unchecked Sendable {
    // Reason: `triage`, `active`, `shutdownRequested` and `interruptNow` are guarded by `lock`;
    // everything else is immutable or thread-safe (BrokerConnection, JobStore, JobRunner, EventPublisher).

    private let configuration: WorkerConfiguration
    private let store: JobStore
    private let broker: BrokerConnection
    private let log: WorkerLog
    private let events: EventPublisher
    private let runner: JobRunner
    private let metrics: WorkerMetrics?
    /// Runs the live jobs it supports without a thread per job (one per process); nil runs every job on `CopyPipeline`.
    private let liveEngine: (any LiveJobEngine)?

    private let lock = NSLock()
    private var triage = DeliveryTriage()
    /// Attempts running (on their own threads, or on the live engine), by job id.
    private var active: [String: ActiveJob] = [:]
    /// Each class's capacity and use (slots, or encode units), and which consumers wait for room.
    private var book: SlotBook
    private var shutdownRequested = false
    private var interruptNow = false

    /// - Parameters:
    ///   - configuration: id, concurrency, grace, roots, backoff.
    ///   - store: the job database.
    ///   - broker: a connection that consumes jobs and control messages; the worker starts and closes it.
    ///   - log: where the worker's lines go.
    ///   - metrics: where transitions and progress are counted (`sluice worker --http`); nil counts nothing.
    ///   - liveEngine: the process's live engine; the jobs it supports run on it without a thread of their own.
    public init(configuration: WorkerConfiguration, store: JobStore, broker: BrokerConnection, log: WorkerLog,
                metrics: WorkerMetrics? = nil, liveEngine: (any LiveJobEngine)? = nil) {
        self.configuration = configuration
        self.liveEngine = liveEngine
        self.store = store
        self.broker = broker
        self.log = log
        self.metrics = metrics
        let events = EventPublisher(broker: broker, store: store, log: log, metrics: metrics,
                                    workerID: configuration.workerID)
        self.events = events
        runner = JobRunner(store: store, workerID: configuration.workerID, paths: configuration.paths,
                           storeInterval: configuration.storeInterval, onTransition: { events.transitioned($0) })
        book = SlotBook(capacity: Dictionary(uniqueKeysWithValues: JobClass.allCases.map { ($0, configuration.slots($0)) }))
        for jobClass in JobClass.allCases { metrics?.slots(jobClass, capacity: configuration.slots(jobClass), busy: 0) }
    }

    /// Reconciles, consumes until `shutdown()`, lets running jobs finish within the grace period (then
    /// interrupts and requeues them), and closes the broker connection.
    public func run() async {
        reconcile()
        broker.start()
        log("starting: triaging \(Topology.jobsQueue); consuming \(Topology.liveQueue) with \(configuration.liveSlots) slots, \(Topology.batchQueue) with \(configuration.batchSlots) and \(Topology.encodeQueue) with \(configuration.encodeSlots) encode units once connected")
        let controls = Task { await consumeControls() }
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
        await drain()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // close() blocks until the owner thread has flushed the mailbox (acks, requeues, events).
            let thread = Thread { [broker] in
                broker.close()
                done.resume()
            }
            thread.name = "sluice-close"
            thread.start()
        }
        await controls.value
        log("stopped")
    }

    /// Stops taking jobs; running jobs get the grace period. A second call interrupts them at once.
    public func shutdown() {
        let first = lock.withLock {
            defer {
                shutdownRequested = true
                book.drain()
            }
            if shutdownRequested { interruptNow = true }
            return !shutdownRequested
        }
        if first {
            log("shutdown requested: no new jobs; running jobs have \(Worker.seconds(configuration.grace)) s to finish")
            broker.stopConsuming()
        } else {
            log("second shutdown request: interrupting running jobs now")
        }
    }

    // MARK: Start

    /// Rows this worker id left `running` belong to a process that died: their messages come back from the
    /// broker, so the rows move to `retrying` (the only way back to `running`) and say why.
    private func reconcile() {
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

    private func handle(_ delivery: Delivery) async {
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
        let arrival: DeliveryTriage.Arrival = lock.withLock {
            let arrival = triage.arrived(id: spec?.id, problem: problem?.description)
            if arrival == .attachToRunning, let id = spec?.id {
                active[id]?.attach(delivery, broker: broker)
            }
            return arrival
        }
        switch arrival {
        case let .reject(reason):
            await reject(delivery, id: problem?.id, reason: reason)
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
    private func classify(_ delivery: Delivery, spec: JobSpec?, problem: JobSpecError?) async {
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

    private func reject(_ delivery: Delivery, id: String?, reason: String) async {
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

    private func record(_ spec: JobSpec, _ delivery: Delivery, jobClass: JobClass, lineage: DeliveryLineage) async {
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
    private func commit(_ id: String, to state: JobState, error: String?, message: String?) {
        do {
            events.transitioned(try store.transition(id: id, to: state, error: error, message: message))
        } catch {
            log("cannot record \(state.rawValue): \(error)", job: id)
        }
    }

    private func publishCurrent(_ id: String) {
        do {
            if let record = try store.job(id: id) { events.transitioned(record) }
        } catch {
            log("cannot read the job back for its event: \(error)", job: id)
        }
    }

    // MARK: Attempts

    private func start(_ job: ActiveJob) {
        let thread = Thread { [self] in execute(job) }
        thread.name = "sluice-job"
        thread.start()
    }

    /// The job's own thread: it becomes the pipeline's input thread. A live job the live engine supports keeps
    /// it only for the blocking start (lease, `running`, plan, output rows): then the engine runs the job and this
    /// thread ends; the end is recorded and settled by `JobRunner.startAttempt`'s closing thread.
    private func execute(_ job: ActiveJob) {
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
            if job.jobClass != .batch, let liveEngine {
                let start = try runner.startAttempt(
                    spec: spec, engine: liveEngine, interrupter: job.interrupter, policy: policy,
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
                    finished(job)
                    return
                case .notStarted:
                    break
                }
            }
            let outcome = try runner.runAttempt(spec: spec, interrupter: job.interrupter, policy: policy, engine: liveEngine) { [self] _, snapshot in
                progressed(job, reporter, snapshot)
            }
            settle(job, outcome)
        } catch {
            storeFailed(job, error)
        }
        finished(job)
    }

    /// The store refused a write of the attempt: the job goes back to the queue (after a pause, so that a store
    /// that keeps failing does not spin through it).
    private func storeFailed(_ job: ActiveJob, _ error: any Error) {
        log("the job store failed: \(error); returning the job to the queue in 1 s", job: job.spec.id)
        Thread.sleep(forTimeInterval: 1)
        handBack(job, reason: "the job store failed")
        blockingWait { [broker] in await broker.releaseLease(jobID: job.spec.id) }
    }

    /// One progress snapshot of a running attempt: metrics, the take-over's gap at the first output, and a
    /// `job.progress` event every `progressEventInterval`. Called on the job's thread, or on the runner's live
    /// queue for a live-engine job, one snapshot at a time.
    private func progressed(_ job: ActiveJob, _ reporter: ProgressReporter, _ snapshot: PipelineProgress) {
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
        let event = JobEvent(progressOf: spec, attempt: attempt ?? 0, workerID: configuration.workerID, progress: snapshot)
        broker.publishEvent(routingKey: event.kind, body: event.json)
    }

    /// Takes the job's lease (DESIGN §5, long jobs) and acks its message: from here on the lease, not an
    /// unacked delivery, keeps the job alive in the broker, so no consumer_timeout can duplicate it.
    /// Returns false when the job must not run here.
    private func takeLease(_ job: ActiveJob) -> Bool {
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
                // The worker that handed it over is still letting go of the lease: ask again in a second.
                log("handed over, but its lease is still held (\(reason)); trying again in 1 s", job: spec.id)
                var waited = job.headers
                waited[JobLease.leaseWaitsHeader] = String(job.lineage.leaseWaits + 1)
                let headers = waited
                blockingWait { [self] in
                    await publishThenAck(deliveries, job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                        try await broker.retry(body: job.body, priority: job.priority, headers: headers, after: .seconds(1))
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

    /// Records how long the job had no output between its previous holder and this worker.
    private func recordTakeover(of job: ActiveJob, _ lineage: DeliveryLineage) {
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

    /// Publishes what follows the attempt (dead letter, retry, hand-over), then gives the lease up: the job
    /// lives on in the published message, never in two places at once for long.
    private func settle(_ job: ActiveJob, _ outcome: JobOutcome) {
        let spec = job.spec
        defer { blockingWait { [broker] in await broker.releaseLease(jobID: spec.id) } }
        switch outcome {
        case .succeeded, .cancelled, .alreadySucceeded, .rejected:
            return
        case let .failed(failure):
            log("dead-lettered: \(failure.message)", job: spec.id)
            blockingWait { [self] in
                await publishOrLog(job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                    try await broker.deadLetter(body: job.body, priority: job.priority, headers: job.carriedHeaders,
                                                reason: failure.message)
                }
            }
        case let .retrying(failure):
            if let lost = job.leaseLostReason {
                log("stopped: the job's lease was lost (\(lost)); the worker that holds it now runs the job", job: spec.id)
                return
            }
            if job.requeueReason != nil {
                handBack(job, reason: failure.message)
                return
            }
            let attempt: Int
            do {
                attempt = try store.job(id: job.spec.id)?.attempts ?? 1
            } catch {
                log("cannot read the attempt count: \(error)", job: job.spec.id)
                attempt = 1
            }
            let delay = configuration.retryBackoff.delay(afterAttempt: attempt)
            log("retrying in \(Worker.seconds(delay)) s: \(failure.message)", job: job.spec.id)
            var next = job.carriedHeaders
            next[Topology.attemptHeader] = String(attempt + 1)
            let headers = next
            blockingWait { [self] in
                await publishOrLog(job: spec.id) { [broker = self.broker] () throws(AMQPError) in
                    try await broker.retry(body: job.body, priority: job.priority, headers: headers, after: delay)
                }
            }
        }
    }

    /// Hands a job this worker stops without finishing back to `sluice.jobs` (shutdown, a failing store),
    /// with when its output stopped, for the worker that takes it over. The caller releases the lease after.
    private func handBack(_ job: ActiveJob, reason: String) {
        log("handed back to the queue: \(reason)", job: job.spec.id)
        var handover = job.carriedHeaders
        handover[JobLease.handoverHeader] = configuration.workerID
        handover[JobLease.stoppedAtHeader] = String(BrokerConnection.wallClockMilliseconds())
        let headers = handover
        blockingWait { [self] in
            await publishOrLog(job: job.spec.id) { [broker = self.broker] () throws(AMQPError) in
                try await broker.handOver(body: job.body, priority: job.priority, headers: headers)
            }
        }
    }

    /// A confirmed publish that settles a job after its lease; when the broker is away, the lease (not
    /// released) keeps the job safe: its claim expires into `sluice.jobs` and another attempt follows.
    private func publishOrLog(job: String, _ publish: () async throws(AMQPError) -> Void) async {
        do throws(AMQPError) {
            try await publish()
        } catch {
            log("could not publish the job's next step: \(error); its lease lapses and the job is taken over", job: job)
        }
    }

    /// Publishes (confirmed), then acks the deliveries; on failure they are requeued.
    private func publishThenAck(_ deliveries: [Delivery], job: String, _ publish: () async throws(AMQPError) -> Void) async {
        do throws(AMQPError) {
            try await publish()
            for delivery in deliveries { broker.ack(delivery) }
        } catch {
            log("could not publish: \(error); returning the message to the queue", job: job)
            for delivery in deliveries { broker.requeue(delivery) }
        }
    }

    /// Asks the book whether the job has room: `taking` takes it (and records the job as active), otherwise only
    /// asks. A refusal while `taking` forgets the job's claim here; `deferred` then returns the delivery.
    private func admit(_ spec: JobSpec, jobClass: JobClass, taking: Bool, starting job: ActiveJob? = nil) -> SlotBook.Admission {
        lock.withLock {
            let answer = book.admission(jobClass, cost: spec.encodeCost)
            guard taking, let job else { return answer }
            switch answer {
            case .start:
                _ = book.admit(jobClass, cost: spec.encodeCost)
                active[spec.id] = job
                slotsChanged(jobClass)
            case .wait:
                triage.finished(id: spec.id)
            }
            return answer
        }
    }

    /// A delivery with no room here goes back to its queue, for another worker or for later. A class that still has
    /// room, but not enough for this job, stops taking deliveries until a job of it ends or `admissionRelook` passed.
    /// `recorded`: the job was recorded here already (it lost its room to a shutdown meanwhile).
    private func deferred(_ spec: JobSpec, _ delivery: Delivery, jobClass: JobClass, reason: String, recorded: Bool = false) {
        // The pause this delivery began (nil: the class is full, draining, or already waiting for room).
        let pause: Int? = lock.withLock {
            let before = book.waiting[jobClass]
            if case .wait = book.admission(jobClass, cost: spec.encodeCost) { _ = book.admit(jobClass, cost: spec.encodeCost) }
            slotsChanged(jobClass)
            let after = book.waiting[jobClass]
            return after != before ? after : nil
        }
        if jobClass == .encode {
            log("left in \(jobClass.queueName) for another worker: \(reason)", job: spec.id)
            metrics?.encodeDeferred()
        } else if recorded {
            log("returned to \(jobClass.queueName): \(reason)", job: spec.id)
        }
        broker.requeue(delivery)
        guard let pause else { return }
        Task { [self, relook = configuration.admissionRelook] in
            try? await Task.sleep(for: relook)
            lock.withLock {
                book.relook(jobClass, pause: pause)
                slotsChanged(jobClass)
            }
        }
    }

    /// Frees the job's room and takes deliveries of its class again, unless the worker is draining.
    private func finished(_ job: ActiveJob) {
        lock.withLock {
            triage.finished(id: job.spec.id)
            if active.removeValue(forKey: job.spec.id) != nil { book.release(job.jobClass, cost: job.spec.encodeCost) }
            slotsChanged(job.jobClass)
        }
    }

    /// Pauses a class's consumer while it has no room (full, or waiting for room after a job that did not fit),
    /// resumes it otherwise (not while draining), and reports the slots. Called with `lock` held, so that pauses and
    /// resumes reach the broker in the order the room filled and freed (posting is quick and never blocks).
    private func slotsChanged(_ jobClass: JobClass) {
        let capacity = book.capacity(jobClass)
        if capacity > 0, !shutdownRequested { broker.pauseConsuming(book.paused(jobClass), jobClass: jobClass) }
        metrics?.slots(jobClass, capacity: capacity, busy: book.used(jobClass))
    }

    // MARK: Settling messages

    private func deadLetter(_ deliveries: [Delivery], reason: String, job: String?) async {
        log("dead-lettered: \(reason)", job: job)
        await settleOne(deliveries, job: job) { [broker] delivery throws(AMQPError) in
            try await broker.deadLetter(delivery, reason: reason)
        }
    }

    /// Publishes one copy (dead-letter or retry) from the newest delivery that can still be settled and acks
    /// the others; a delivery from a lost connection is skipped, since the broker redelivers its message.
    private func settleOne(_ deliveries: [Delivery], job: String?,
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
    private func blockingValue<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        // The semaphore orders the write before this read.
        return box.value!
    }

    /// Runs async settling from a job thread (never from the cooperative pool, which it would block).
    private func blockingWait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }

    // MARK: Control and shutdown

    private func consumeControls() async {
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
            }
        }
    }

    /// After consuming stopped: hand live jobs over at once, wait out the grace, interrupt the rest.
    private func drain() async {
        lock.withLock {
            shutdownRequested = true
            book.drain()
        }
        // A restream has no end to wait for: hand live jobs over now, so another worker resumes them within seconds.
        let live = lock.withLock { active.values.filter { $0.spec.input.isNetwork } }
        for job in live {
            log("handing the live job over for shutdown", job: job.spec.id)
            job.interruptForShutdown(reason: "worker \(configuration.workerID) shut down; a live job is handed over at once")
        }
        let deadline = ContinuousClock.now + configuration.grace
        while ContinuousClock.now < deadline, lock.withLock({ !active.isEmpty && !interruptNow }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let running = lock.withLock { Array(active.values) }
        if !running.isEmpty {
            let reason = "worker \(configuration.workerID) shut down and the grace period of \(Worker.seconds(configuration.grace)) s passed; requeued"
            for job in running {
                log("interrupting for shutdown", job: job.spec.id)
                job.interruptForShutdown(reason: reason)
            }
        }
        while lock.withLock({ !active.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value.rounded() == value && abs(value) < 1e18 ? String(Int64(value)) : String(format: "%.3g", value)
    }
}

/// One claimed job: its spec, the deliveries that carry it, and how to stop it.
final class ActiveJob: @unchecked Sendable {
    // Reason: `state` is guarded by `lock`; the `let`s are immutable or thread-safe.
    let spec: JobSpec
    /// The class whose slot it holds.
    let jobClass: JobClass
    /// An earlier attempt left `running` that must be recorded as interrupted before this one starts.
    let interrupted: String?
    let interrupter = Interrupter()
    /// Where the message came from (fresh, orphaned claim, hand-over) and the deaths it carries.
    let lineage: DeliveryLineage
    /// The job message as delivered, for claims and for re-publishing.
    let body: [UInt8]
    let priority: UInt8?
    /// The delivery's headers, and those every later copy carries (deaths; lease headers dropped).
    let headers: [String: String]
    let carriedHeaders: [String: String]

    private struct State {
        var deliveries: [Delivery]
        var cancelRequested = false
        var requeueReason: String?
        /// Set once the outcome is known: how a delivery that still arrives for this attempt is settled.
        var lateDeliveriesRequeue: Bool?
        var leaseLostReason: String?
        /// A take-over whose gap is not recorded yet.
        var pendingTakeover: DeliveryLineage?
    }
    private let lock = NSLock()
    private var state: State

    init(spec: JobSpec, delivery: Delivery, jobClass: JobClass, interrupted: String?, lineage: DeliveryLineage) {
        self.spec = spec
        self.jobClass = jobClass
        self.interrupted = interrupted
        self.lineage = lineage
        body = delivery.body
        priority = delivery.priority
        headers = delivery.headers
        carriedHeaders = lineage.carriedHeaders(from: delivery.headers)
        state = State(deliveries: [delivery], pendingTakeover: lineage.origin == .fresh ? nil : lineage)
    }

    /// The lease is ours: the deliveries can be acked, and so can any copy that still arrives.
    func leaseAcquired() -> [Delivery] {
        lock.withLock {
            state.lateDeliveriesRequeue = false
            return state.deliveries
        }
    }

    /// The broker may hand the job to another worker now: stop at once, publish nothing.
    func leaseLost(_ reason: String) {
        lock.withLock {
            state.leaseLostReason = reason
            state.requeueReason = "the lease was lost: \(reason)"
        }
        interrupter.cancel()
    }

    var leaseLostReason: String? { lock.withLock { state.leaseLostReason } }

    /// The take-over to record, once (at the first output).
    func takeTakeover() -> DeliveryLineage? {
        lock.withLock {
            defer { state.pendingTakeover = nil }
            return state.pendingTakeover
        }
    }


    /// Set when the worker interrupted the attempt to requeue it; a cancel request takes precedence.
    var requeueReason: String? {
        lock.withLock { state.cancelRequested && state.leaseLostReason == nil ? nil : state.requeueReason }
    }

    /// Adds a redelivery of this job; once the job is sealed it is settled at once like the others were
    /// (acked, or requeued when the attempt was requeued), so no delivery is left unsettled.
    func attach(_ delivery: Delivery, broker: BrokerConnection) {
        lock.withLock {
            switch state.lateDeliveriesRequeue {
            case nil: state.deliveries.append(delivery)
            case true?: broker.requeue(delivery)
            case false?: broker.ack(delivery)
            }
        }
    }

    /// Takes every delivery of this job for settling; later ones are settled by `attach`.
    func seal(requeueLateDeliveries: Bool) -> [Delivery] {
        lock.withLock {
            state.lateDeliveriesRequeue = requeueLateDeliveries
            return state.deliveries
        }
    }

    func cancel() {
        lock.withLock { state.cancelRequested = true }
        interrupter.cancel()
    }

    func interruptForShutdown(reason: String) {
        lock.withLock { state.requeueReason = reason }
        interrupter.cancel()
    }
}

/// When a running attempt last published `job.progress`, and its attempt number once read.
final class ProgressReporter: @unchecked Sendable {
    // Reason: both fields are guarded by `lock` (snapshots of one attempt come one at a time, but from the job's
    // thread or the live queue).
    private let lock = NSLock()
    private var lastEvent = Date()
    private var knownAttempt: Int?

    /// nil when no event is due yet; else whether the attempt number still has to be read.
    func eventDue(interval: Double) -> Bool? {
        lock.withLock {
            guard Date().timeIntervalSince(lastEvent) >= interval else { return nil }
            lastEvent = Date()
            return knownAttempt == nil
        }
    }

    var attempt: Int? {
        get { lock.withLock { knownAttempt } }
        set { lock.withLock { knownAttempt = newValue } }
    }
}

/// Carries a value out of a Task to the thread waiting on a semaphore.
private final class ResultBox<T>: @unchecked Sendable {
    // Reason: written once by the task before it signals; read once by the waiter after it woke.
    var value: T?
}

/// Publishes `job.<state>` events built from committed records, and logs each one.
final class EventPublisher: Sendable {
    private let broker: BrokerConnection
    private let store: JobStore
    private let log: WorkerLog
    private let metrics: WorkerMetrics?
    private let workerID: String

    init(broker: BrokerConnection, store: JobStore, log: WorkerLog, metrics: WorkerMetrics?, workerID: String) {
        self.broker = broker
        self.store = store
        self.log = log
        self.metrics = metrics
        self.workerID = workerID
    }

    /// Publishes a committed transition under the id its event row was stored with.
    func transitioned(_ transition: CommittedTransition, message: String? = nil) {
        transitioned(transition.job, event: transition.event, message: message)
    }

    /// Publishes the event of the state `job` is in (or of `kind`), with its outputs read from the store.
    /// - Parameters:
    ///   - job: the job as committed.
    ///   - event: the stored event this publishes, whose id it carries; nil for a fresh id.
    ///   - kind: the routing key, when it is not `job.<state>`.
    ///   - message: a sentence for humans.
    func transitioned(_ job: JobRecord, event: EventRecord? = nil, kind: String? = nil, message: String? = nil) {
        var outputs: [OutputRecord] = []
        do {
            outputs = try store.outputs(jobID: job.id)
        } catch {
            log("cannot read the outputs for the event: \(error)", job: job.id)
        }
        // The id the write stored with the row: the same in this database, on the exchange and in the ledger.
        let event = JobEvent(job: job, outputs: outputs, kind: kind, message: message, eventID: event?.eventID)
        broker.publishEvent(routingKey: event.kind, body: event.json)
        // A duplicate's record is the earlier success, not a new transition.
        if kind == nil { metrics?.transitioned(job, outputs: outputs) }
        var line = "\(event.kind) (attempt \(job.attempts))"
        if let message { line += ": \(message)" } else if let error = job.error { line += ": \(error)" }
        log(line, job: job.id, state: job.state.rawValue, attempt: job.attempts)
    }
}
