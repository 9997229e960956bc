import CRabbitMQ
import Foundation
import NamedThreads

/// The worker's link to RabbitMQ: one dedicated thread owns the librabbitmq connection (which is not
/// thread-safe), reconnects with backoff, and takes acks and publishes from any thread through a mailbox.
/// Call `start()` once and `close()` when done (the owner thread keeps the object alive until then).
public final class BrokerConnection: @unchecked Sendable {
    // Reason: `shared` is guarded by `lock`; `connection`, `lifecycle`, `confirms` and the consumer fields are
    // touched only by the owner thread; everything else is immutable or thread-safe (Mailbox, continuations).

    /// Job deliveries from `sluice.jobs` (and the class queues, see `BrokerConfiguration.classPrefetch`); finishes after `stopConsuming()` or `close()`.
    public let deliveries: AsyncStream<Delivery>
    /// Control messages from `sluice.control`; finishes after `close()`.
    public let controls: AsyncStream<ControlMessage>

    let configuration: BrokerConfiguration
    let log: @Sendable (String) -> Void
    let deliveriesContinuation: AsyncStream<Delivery>.Continuation
    let controlsContinuation: AsyncStream<ControlMessage>.Continuation
    let mailbox = Mailbox()
    let finished = DispatchSemaphore(value: 0)

    struct Shared {
        var started = false
        var closeRequested = false
        var closedReason: String?
        var connectedGeneration: Int?
        var lastGeneration = 0
        var droppedStaleSettlements = 0
        /// Channels the broker closed, by reply code (406 for an expired delivery acknowledgement, …).
        var channelErrors: [UInt16: Int] = [:]
        /// Leases held now (mirrors the owner thread's book, for metrics).
        var leasesHeld = 0
    }
    let lock = NSLock()
    var shared = Shared()

    // Owner thread only.
    var connection: AMQPConnection?
    var lifecycle: ConnectionLifecycle
    var confirms = PublisherConfirms<PublishWaiter?>()
    var jobsConsumerTag: String?
    /// The class queues' consumers (when `configuration.classPrefetch` names any), by class.
    var classConsumerTags: [JobClass: String] = [:]
    /// Classes whose slots are all busy: their consumers stay cancelled until one frees.
    var pausedClasses: Set<JobClass> = []
    var controlConsumerTag: String?
    var wantsJobs: Bool
    /// Every job slot is busy: the jobs consumer is cancelled until one frees (no delivery waits unacked).
    var jobsPaused = false
    /// The leases this worker holds (see `LeaseBook`), and who to answer or tell about each, by job id.
    var leaseBook: LeaseBook
    var leaseCallers: [String: LeaseWaiter] = [:]

    /// Creates the connection object; nothing happens on the network until `start()`.
    /// - Parameters:
    ///   - configuration: the broker URL, prefetch, heartbeat and timeouts.
    ///   - logger: receives one line per notable event (connects, losses, dropped stale acks); never credentials.
    public init(configuration: BrokerConfiguration, logger: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        log = logger
        lifecycle = ConnectionLifecycle(initialDelay: configuration.initialReconnectDelay,
                                        maxDelay: configuration.maxReconnectDelay,
                                        maxAttempts: configuration.maxConnectAttempts)
        wantsJobs = configuration.consumesJobs
        leaseBook = LeaseBook(timing: configuration.leaseTiming, firstChannel: AMQPConnection.firstLeaseChannel)
        (deliveries, deliveriesContinuation) = AsyncStream.makeStream(of: Delivery.self)
        (controls, controlsContinuation) = AsyncStream.makeStream(of: ControlMessage.self)
        if !configuration.consumesJobs { deliveriesContinuation.finish() }
        if !configuration.consumesControl { controlsContinuation.finish() }
    }

    /// Spawns the owner thread, which connects (retrying with backoff) and then serves. Idempotent.
    public func start() {
        let first = lock.withLock {
            defer { shared.started = true }
            return !shared.started && !shared.closeRequested
        }
        guard first else { return }
        startNamedThread("sluice-amqp") { [self] in run() }
    }

    /// True while a connection is up (topology declared, consumers running).
    public var isConnected: Bool {
        lock.withLock { shared.connectedGeneration != nil }
    }

    /// The generation of the current (or last) connection: 1 for the first, +1 per reconnect.
    public var generation: Int {
        lock.withLock { shared.lastGeneration }
    }

    /// How many acks/rejects were dropped because their delivery came from an earlier connection.
    public var droppedStaleSettlements: Int {
        lock.withLock { shared.droppedStaleSettlements }
    }

    /// Channels the broker closed so far, by AMQP reply code (e.g. 406 when a delivery outlived consumer_timeout).
    public var channelErrors: [UInt16: Int] {
        lock.withLock { shared.channelErrors }
    }

    /// Job leases held right now.
    public var leasesHeld: Int {
        lock.withLock { shared.leasesHeld }
    }

    /// Acknowledges a delivery: the job's terminal state is committed, the broker may forget the message.
    /// - Parameter delivery: a delivery from `deliveries`; if its connection is gone the ack is dropped and logged.
    public func ack(_ delivery: Delivery) {
        mailbox.post(.ack(delivery))
    }

    /// Returns a delivery to the queue (basic.reject requeue=true), e.g. at shutdown past the grace period.
    /// - Parameter delivery: a delivery from `deliveries`.
    public func requeue(_ delivery: Delivery) {
        mailbox.post(.reject(delivery, requeue: true))
    }

    /// Cancels the jobs consumer (no new deliveries; `deliveries` finishes) but keeps the connection for the
    /// acks of jobs still running. Deliveries already in flight are requeued.
    public func stopConsuming() {
        mailbox.post(.stopConsuming)
    }

    /// Pauses (true) or resumes (false) the jobs consumer without finishing `deliveries`. A worker pauses while
    /// all its slots are busy: jobs are acked when they start, so the prefetch limit no longer holds them back,
    /// and a delivery that waited unacked for a slot could outlive the broker's consumer_timeout.
    /// - Parameter paused: whether to stop taking deliveries.
    public func pauseConsuming(_ paused: Bool) {
        mailbox.post(.pauseConsuming(paused, nil))
    }

    /// Pauses (true) or resumes (false) the consumer of one class queue, while that class's slots are all busy;
    /// the other class and the intake (`sluice.jobs`) go on.
    /// - Parameters:
    ///   - paused: whether to stop taking deliveries of this class.
    ///   - jobClass: the class.
    public func pauseConsuming(_ paused: Bool, jobClass: JobClass) {
        mailbox.post(.pauseConsuming(paused, jobClass))
    }

    /// Settles what is queued in the mailbox, closes the connection and stops the owner thread; returns once it
    /// has, or once `timeout` passed. Publishes still awaiting a confirm fail with `.closed`.
    /// - Parameter timeout: the longest wait; nil waits for the owner thread however long it takes.
    /// - Returns: false when the owner thread was still busy at `timeout` (in a librabbitmq call that waits on a broker
    ///   that does not answer); it stops on its own later, and nothing more is sent meanwhile that matters.
    @discardableResult
    public func close(within timeout: Duration? = nil) -> Bool {
        let wasRunning = lock.withLock {
            let running = shared.started && !shared.closeRequested
            shared.closeRequested = true
            if !shared.started { shared.closedReason = "closed before start" }
            return running
        }
        guard wasRunning else {
            deliveriesContinuation.finish()
            controlsContinuation.finish()
            failQueuedCommands(reason: "closed")
            return true
        }
        mailbox.wake()
        guard let timeout else {
            finished.wait()
            return true
        }
        // A connect, a login or a synchronous call to a broker that stopped answering blocks the owner thread for
        // its own timeouts (10 s, 15 s, a send without any): a stopping worker must not wait that out.
        let (seconds, attoseconds) = timeout.components
        return finished.wait(timeout: .now() + (Double(seconds) + Double(attoseconds) / 1e18)) == .success
    }

    // MARK: Caller side helpers

    func checkCurrent(_ delivery: Delivery) throws(AMQPError) {
        let current = lock.withLock { shared.connectedGeneration }
        guard delivery.generation == current else {
            throw .staleDelivery(generation: delivery.generation, current: current ?? 0)
        }
    }

    func publish(_ message: OutgoingMessage) async throws(AMQPError) {
        if let reason = lock.withLock({ shared.closedReason }) { throw .closed(reason: reason) }
        let result = await withCheckedContinuation { continuation in
            mailbox.post(.publish(message, PublishWaiter(continuation, exchange: message.exchange,
                                                         routingKey: message.routingKey)))
            // The owner thread may have finished between the check above and the post: then nobody else
            // will take the command, and whoever drains it resumes the waiter (exactly once).
            if lock.withLock({ shared.closedReason }) != nil { failQueuedCommands(reason: "closed") }
        }
        try result.get()
    }
}
