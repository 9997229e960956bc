// DESIGN §4 and §5: the queue worker. Deliveries are triaged on the consumer task; every attempt runs on a
// dedicated thread (the pipeline adds one per output), never on Swift's cooperative pool.
import Foundation
import JobQueue
import JobStore
import MediaEngine

/// What a worker needs besides its broker connection and store.
public struct WorkerConfiguration: Sendable {
    /// Recorded with every attempt; rows this id left `running` are reconciled at start.
    public var workerID: String
    /// Jobs run at once (also the broker's prefetch).
    public var concurrency: Int
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

    /// - Parameters:
    ///   - workerID: this worker's id.
    ///   - concurrency: jobs at once (≥ 1).
    ///   - paths: the input and output roots.
    public init(workerID: String, concurrency: Int, paths: PathPolicy) {
        precondition(concurrency >= 1, "concurrency must be at least 1")
        self.workerID = workerID
        self.concurrency = concurrency
        self.paths = paths
        grace = .seconds(30)
        retryBackoff = RetryBackoff(base: .seconds(5), cap: .seconds(300))
        progressEventInterval = 5
        storeInterval = 2
    }
}

/// Consumes `sluice.jobs`, runs each job, records its life in the store, publishes its events, and settles
/// its message only once the job's outcome is committed (ack, retry queue, dead-letter or requeue).
public final class Worker: @unchecked Sendable {
    // Reason: `triage`, `active`, `waiting`, `shutdownRequested` and `interruptNow` are guarded by `lock`;
    // everything else is immutable or thread-safe (BrokerConnection, JobStore, JobRunner, EventPublisher).

    private let configuration: WorkerConfiguration
    private let store: JobStore
    private let broker: BrokerConnection
    private let log: WorkerLog
    private let events: EventPublisher
    private let runner: JobRunner
    private let metrics: WorkerMetrics?

    private let lock = NSLock()
    private var triage = DeliveryTriage()
    /// Attempts running on their own threads, by job id.
    private var active: [String: ActiveJob] = [:]
    /// Claimed jobs waiting for a free slot (after a reconnect the broker may deliver more than `concurrency`).
    private var waiting: [ActiveJob] = []
    private var shutdownRequested = false
    private var interruptNow = false

    /// - Parameters:
    ///   - configuration: id, concurrency, grace, roots, backoff.
    ///   - store: the job database.
    ///   - broker: a connection that consumes jobs and control messages; the worker starts and closes it.
    ///   - log: where the worker's lines go.
    ///   - metrics: where transitions and progress are counted (`sluice worker --http`); nil counts nothing.
    public init(configuration: WorkerConfiguration, store: JobStore, broker: BrokerConnection, log: WorkerLog,
                metrics: WorkerMetrics? = nil) {
        self.configuration = configuration
        self.store = store
        self.broker = broker
        self.log = log
        self.metrics = metrics
        let events = EventPublisher(broker: broker, store: store, log: log, metrics: metrics)
        self.events = events
        runner = JobRunner(store: store, workerID: configuration.workerID, paths: configuration.paths,
                           storeInterval: configuration.storeInterval, onTransition: { events.transitioned($0) })
    }

    /// Reconciles, consumes until `shutdown()`, lets running jobs finish within the grace period (then
    /// interrupts and requeues them), and closes the broker connection.
    public func run() async {
        reconcile()
        broker.start()
        log("starting: consuming \(Topology.jobsQueue) with concurrency \(configuration.concurrency) once connected")
        let controls = Task { await consumeControls() }
        for await delivery in broker.deliveries {
            await handle(delivery)
        }
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
            defer { shutdownRequested = true }
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
        let arrival: DeliveryTriage.Arrival = lock.withLock {
            let arrival = triage.arrived(id: spec?.id, problem: problem?.description)
            if arrival == .attachToRunning, let id = spec?.id {
                (active[id] ?? waiting.first { $0.spec.id == id })?.attach(delivery, broker: broker)
            }
            return arrival
        }
        switch arrival {
        case let .reject(reason):
            await reject(delivery, id: problem?.id, reason: reason)
        case .attachToRunning:
            log("delivered again while running here (connection generation \(delivery.generation)); it settles with the running attempt", job: spec?.id)
        case .record:
            guard let spec else { return }
            await record(spec, delivery)
        }
    }

    private func reject(_ delivery: Delivery, id: String?, reason: String) async {
        do {
            let record = try store.reject(id: id ?? JobRunner.generatedID(), spec: String(decoding: delivery.body, as: UTF8.self),
                                          error: reason, workerID: configuration.workerID)
            events.transitioned(record)
        } catch {
            log("cannot record the rejection (\(reason)): \(error)", job: id)
        }
        await deadLetter([delivery], reason: reason, job: id)
    }

    private func record(_ spec: JobSpec, _ delivery: Delivery) async {
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
            triage.recorded(id: spec.id, stored: stored, redelivered: delivery.redelivered, workerID: configuration.workerID)
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
            let job = ActiveJob(spec: spec, delivery: delivery, interrupted: interrupted)
            let startNow = lock.withLock {
                guard active.count < configuration.concurrency, !shutdownRequested else {
                    waiting.append(job)
                    return false
                }
                active[spec.id] = job
                return true
            }
            if startNow { start(job) }
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

    /// The job's own thread: it becomes the pipeline's input thread.
    private func execute(_ job: ActiveJob) {
        let spec = job.spec
        do {
            if let interrupted = job.interrupted {
                let record = try store.transition(id: spec.id, to: .retrying, error: "job \(spec.id): \(interrupted)")
                events.transitioned(record)
            }
            let policy = AttemptPolicy(retriesTransientFailures: true) { job.requeueReason }
            var attempt: Int?
            var lastEvent = Date()
            let outcome = try runner.runAttempt(spec: spec, interrupter: job.interrupter, policy: policy) { [self] spec, snapshot in
                metrics?.progressed(spec, snapshot)
                guard Date().timeIntervalSince(lastEvent) >= configuration.progressEventInterval else { return }
                lastEvent = Date()
                if attempt == nil || metrics != nil {
                    do {
                        let record = try store.job(id: spec.id)
                        attempt = record?.attempts
                        // Drops, reconnects and the encoder opened are in the store only.
                        if let metrics, let record { metrics.observed(record, outputs: try store.outputs(jobID: spec.id)) }
                    } catch {
                        log("cannot read the job back for its progress: \(error)", job: spec.id, level: .warning)
                    }
                }
                let event = JobEvent(progressOf: spec, attempt: attempt ?? 0, workerID: configuration.workerID, progress: snapshot)
                broker.publishEvent(routingKey: event.kind, body: event.json)
            }
            settle(job, outcome)
        } catch {
            log("the job store failed: \(error); returning the job to the queue in 1 s", job: spec.id)
            Thread.sleep(forTimeInterval: 1)
            for delivery in job.seal(requeueLateDeliveries: true) { broker.requeue(delivery) }
        }
        finished(job)
    }

    private func settle(_ job: ActiveJob, _ outcome: JobOutcome) {
        let requeue = if case .retrying = outcome { job.requeueReason != nil } else { false }
        let deliveries = job.seal(requeueLateDeliveries: requeue)
        switch outcome {
        case .succeeded, .cancelled, .alreadySucceeded, .rejected:
            for delivery in deliveries { broker.ack(delivery) }
        case let .failed(failure):
            blockingWait { await self.deadLetter(deliveries, reason: failure.message, job: job.spec.id) }
        case let .retrying(failure):
            if requeue {
                log("returned to the queue: \(failure.message)", job: job.spec.id)
                for delivery in deliveries { broker.requeue(delivery) }
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
            blockingWait {
                await self.settleOne(deliveries, job: job.spec.id) { [broker = self.broker] delivery throws(AMQPError) in
                    try await broker.retry(delivery, after: delay, attempt: attempt + 1)
                }
            }
        }
    }

    /// Frees the job's slot and starts the next waiting job, unless the worker is draining.
    private func finished(_ job: ActiveJob) {
        let next: ActiveJob? = lock.withLock {
            triage.finished(id: job.spec.id)
            active[job.spec.id] = nil
            guard !shutdownRequested, !waiting.isEmpty else { return nil }
            let next = waiting.removeFirst()
            active[next.spec.id] = next
            return next
        }
        if let next { start(next) }
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
                    case .interrupt: return active[id] ?? waiting.first { $0.spec.id == id }
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

    /// After consuming stopped: requeue jobs that never started, wait out the grace, interrupt the rest.
    private func drain() async {
        let notStarted = lock.withLock {
            shutdownRequested = true
            let jobs = waiting
            waiting.removeAll()
            for job in jobs { triage.finished(id: job.spec.id) }
            return jobs
        }
        for job in notStarted {
            log("returned to the queue: not started before shutdown", job: job.spec.id)
            for delivery in job.seal(requeueLateDeliveries: true) { broker.requeue(delivery) }
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
    // Reason: `state` is guarded by `lock`; `spec`, `interrupted` and `interrupter` are immutable or thread-safe.
    let spec: JobSpec
    /// An earlier attempt left `running` that must be recorded as interrupted before this one starts.
    let interrupted: String?
    let interrupter = Interrupter()

    private struct State {
        var deliveries: [Delivery]
        var cancelRequested = false
        var requeueReason: String?
        /// Set once the outcome is known: how a delivery that still arrives for this attempt is settled.
        var lateDeliveriesRequeue: Bool?
    }
    private let lock = NSLock()
    private var state: State

    init(spec: JobSpec, delivery: Delivery, interrupted: String?) {
        self.spec = spec
        self.interrupted = interrupted
        state = State(deliveries: [delivery])
    }


    /// Set when the worker interrupted the attempt to requeue it; a cancel request takes precedence.
    var requeueReason: String? { lock.withLock { state.cancelRequested ? nil : state.requeueReason } }

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

/// Publishes `job.<state>` events built from committed records, and logs each one.
final class EventPublisher: Sendable {
    private let broker: BrokerConnection
    private let store: JobStore
    private let log: WorkerLog
    private let metrics: WorkerMetrics?

    init(broker: BrokerConnection, store: JobStore, log: WorkerLog, metrics: WorkerMetrics?) {
        self.broker = broker
        self.store = store
        self.log = log
        self.metrics = metrics
    }

    /// Publishes the event of the state `job` is in (or of `kind`), with its outputs read from the store.
    func transitioned(_ job: JobRecord, kind: String? = nil, message: String? = nil) {
        var outputs: [OutputRecord] = []
        do {
            outputs = try store.outputs(jobID: job.id)
        } catch {
            log("cannot read the outputs for the event: \(error)", job: job.id)
        }
        let event = JobEvent(job: job, outputs: outputs, kind: kind, message: message)
        broker.publishEvent(routingKey: event.kind, body: event.json)
        // A duplicate's record is the earlier success, not a new transition.
        if kind == nil { metrics?.transitioned(job, outputs: outputs) }
        var line = "\(event.kind) (attempt \(job.attempts))"
        if let message { line += ": \(message)" } else if let error = job.error { line += ": \(error)" }
        log(line, job: job.id, state: job.state.rawValue, attempt: job.attempts)
    }
}
