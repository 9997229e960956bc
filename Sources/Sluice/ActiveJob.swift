// docs/ARCHITECTURE.md §2 and §5: one claimed job while it runs here, and when its progress events are due.
import Foundation
import JobDocument
import JobQueue
import JobStore
import MediaEngine
import MediaJob
import NIOConcurrencyHelpers

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
    /// The job message as it is now (as delivered, or as output edits left it), for claims and for re-publishing.
    var body: [UInt8] { lock.withLock { state.body } }
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
        /// The job document and spec as output edits left them (the delivered ones until the first edit).
        var body: [UInt8]
        var editedSpec: JobSpec?
        var outputSlots: OutputSlots
        /// The lease is ours (taken, not lost): only then does this worker answer for the job.
        var leaseHeld = false
        /// Copies of the job's next attempt (the retry this attempt published, back before its end was recorded
        /// here): neither settled nor run until the job no longer runs here, then handled as any delivery.
        var nextAttempts: [Delivery] = []
    }
    private let lock = NSLock()
    private var state: State
    /// Held for the whole of one output edit, so edits of this job apply one at a time, in order.
    let editLock = NSLock()

    init(spec: JobSpec, delivery: Delivery, jobClass: JobClass, interrupted: String?, lineage: DeliveryLineage) {
        self.spec = spec
        self.jobClass = jobClass
        self.interrupted = interrupted
        self.lineage = lineage
        priority = delivery.priority
        headers = delivery.headers
        carriedHeaders = lineage.carriedHeaders(from: delivery.headers)
        state = State(deliveries: [delivery], pendingTakeover: lineage.origin == .fresh ? nil : lineage,
                      body: delivery.body, outputSlots: OutputSlots(spec: spec))
    }

    /// The lease is ours: the deliveries can be acked, and so can any copy that still arrives.
    func leaseAcquired() -> [Delivery] {
        lock.withLock {
            state.lateDeliveriesRequeue = false
            state.leaseHeld = true
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

    /// Whether this worker holds the job's lease now.
    var holdsLease: Bool { lock.withLock { state.leaseHeld && state.leaseLostReason == nil } }

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
    /// (acked, or requeued when the attempt was requeued), so no delivery is left unsettled. A copy of a later
    /// attempt than this one is not a redelivery: it is held for `takeNextAttempts`.
    /// - Returns: whether the copy was held as the next attempt.
    @discardableResult
    func attach(_ delivery: Delivery, broker: BrokerConnection) -> Bool {
        lock.withLock {
            if ActiveJob.isLaterAttempt(delivery.headers, than: headers) {
                state.nextAttempts.append(delivery)
                return true
            }
            switch state.lateDeliveriesRequeue {
            case nil: state.deliveries.append(delivery)
            case true?: broker.requeue(delivery)
            case false?: broker.ack(delivery)
            }
            return false
        }
    }

    /// Whether a copy with `headers` carries a later attempt than the copy with `running` (`x-sluice-attempt`, which
    /// each retry raises; a fresh job has none, attempt 0). Only the worker that holds the lease publishes the retry,
    /// so such a copy is this attempt's own retry, arriving before the attempt's end was recorded here.
    static func isLaterAttempt(_ headers: [String: String], than running: [String: String]) -> Bool {
        func attempt(_ headers: [String: String]) -> Int { headers[Topology.attemptHeader].flatMap { Int($0) } ?? 0 }
        return attempt(headers) > attempt(running)
    }

    /// The copies of the next attempt held while this one ended (see `attach`); the worker handles them once the job
    /// no longer runs here.
    func takeNextAttempts() -> [Delivery] {
        lock.withLock {
            defer { state.nextAttempts.removeAll() }
            return state.nextAttempts
        }
    }

    /// Takes every delivery of this job for settling; later ones are settled by `attach`.
    func seal(requeueLateDeliveries: Bool) -> [Delivery] {
        lock.withLock {
            state.lateDeliveriesRequeue = requeueLateDeliveries
            return state.deliveries
        }
    }

    /// The spec as it runs now and its outputs by index (see `OutputEdit`).
    var editable: (spec: JobSpec, slots: OutputSlots) {
        lock.withLock { (state.editedSpec ?? spec, state.outputSlots) }
    }

    /// An output edit was applied: later claims, retries and hand-overs carry `body`.
    func edited(body: [UInt8], spec: JobSpec, slots: OutputSlots) {
        lock.withLock {
            state.body = body
            state.editedSpec = spec
            state.outputSlots = slots
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
final class ProgressReporter: Sendable {
    /// Snapshots of one attempt come one at a time, but from the job's thread or the live queue.
    private let state = NIOLockedValueBox((lastEvent: Date(), knownAttempt: Int?.none))

    /// nil when no event is due yet; else whether the attempt number still has to be read.
    func eventDue(interval: Double) -> Bool? {
        state.withLockedValue { state in
            guard Date().timeIntervalSince(state.lastEvent) >= interval else { return nil }
            state.lastEvent = Date()
            return state.knownAttempt == nil
        }
    }

    var attempt: Int? {
        get { state.withLockedValue { $0.knownAttempt } }
        set { state.withLockedValue { $0.knownAttempt = newValue } }
    }
}
