import CRabbitMQ
import Foundation

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

    private let configuration: BrokerConfiguration
    private let log: @Sendable (String) -> Void
    private let deliveriesContinuation: AsyncStream<Delivery>.Continuation
    private let controlsContinuation: AsyncStream<ControlMessage>.Continuation
    private let mailbox = Mailbox()
    private let finished = DispatchSemaphore(value: 0)

    private struct Shared {
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
    private let lock = NSLock()
    private var shared = Shared()

    // Owner thread only.
    private var connection: AMQPConnection?
    private var lifecycle: ConnectionLifecycle
    private var confirms = PublisherConfirms<PublishWaiter?>()
    private var jobsConsumerTag: String?
    /// The class queues' consumers (when `configuration.classPrefetch` names any), by class.
    private var classConsumerTags: [JobClass: String] = [:]
    /// Classes whose slots are all busy: their consumers stay cancelled until one frees.
    private var pausedClasses: Set<JobClass> = []
    private var controlConsumerTag: String?
    private var wantsJobs: Bool
    /// Every job slot is busy: the jobs consumer is cancelled until one frees (no delivery waits unacked).
    private var jobsPaused = false
    /// Leases this worker holds, by job id, and the lease channel each is attached on.
    private var leases: [String: HeldLease] = [:]
    private var leaseChannels: [amqp_channel_t: String] = [:]
    /// Lease queues (by name) of finished jobs that could not be deleted while the connection was down.
    private var pendingLeaseDeletes: Set<String> = []

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
        let thread = Thread { [self] in run() }
        thread.name = "sluice-amqp"
        thread.start()
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

    /// Moves a delivery to `sluice.jobs.dead` with `x-sluice-reason`: republished there (confirmed), then acked.
    /// A plain reject through the DLX could not carry the reason, so it is only the fallback if the broker
    /// refuses the republish.
    /// - Parameters:
    ///   - delivery: a delivery from `deliveries`.
    ///   - reason: why the job is dead (no secrets; cut to `Topology.maxReasonBytes`).
    public func deadLetter(_ delivery: Delivery, reason: String) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        headers[Topology.reasonHeader] = String(decoding: reason.utf8.prefix(Topology.maxReasonBytes), as: UTF8.self)
        let message = OutgoingMessage(exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue,
                                      body: delivery.body, priority: delivery.priority, headers: headers)
        do throws(AMQPError) {
            try await publish(message)
        } catch .publishRefused {
            mailbox.post(.reject(delivery, requeue: false))
            return
        }
        ack(delivery)
    }

    /// Sends a delivery to `sluice.jobs.retry` with a per-message TTL, after which the broker returns it to
    /// `sluice.jobs`; acks the original once the broker confirmed the copy.
    /// - Parameters:
    ///   - delivery: a delivery from `deliveries`.
    ///   - delay: the backoff before the job is delivered again (rounded to milliseconds, at least 1).
    ///   - attempt: the attempt number the retried job will carry in `x-sluice-attempt`.
    public func retry(_ delivery: Delivery, after delay: Duration, attempt: Int) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        headers[Topology.attemptHeader] = String(attempt)
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let message = OutgoingMessage(exchange: "", routingKey: Topology.retryQueue, body: delivery.body,
                                      priority: delivery.priority, expirationMilliseconds: milliseconds,
                                      headers: headers)
        try await publish(message)
        ack(delivery)
    }

    /// Publishes a job to `sluice.jobs` (persistent) and returns once the broker confirmed it.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: 0…9 (higher first); values above 9 are treated as 9, as the queue itself would.
    public func publishJob(_ body: [UInt8], priority: UInt8? = nil) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey,
                                          body: body, priority: priority.map { min($0, Topology.maxPriority) }))
    }

    /// Publishes an event to `sluice.events` without waiting (a refused or lost event is logged, not thrown).
    /// - Parameters:
    ///   - routingKey: `job.<state>`, e.g. `job.succeeded`.
    ///   - body: the event JSON (secrets already redacted).
    public func publishEvent(routingKey: String, body: [UInt8]) {
        mailbox.post(.publish(OutgoingMessage(exchange: Topology.eventsExchange, routingKey: routingKey, body: body),
                              nil))
    }

    /// Publishes a control message to every worker and returns once the broker confirmed it.
    /// - Parameter message: the control message.
    public func publishControl(_ message: ControlMessage) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.controlExchange, routingKey: "", body: message.json))
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

    /// Copies a job from the intake (`sluice.jobs`) into its class queue, same body, priority and headers (plus
    /// `x-sluice-redelivered` when the delivery was a redelivery), confirmed, then acks the delivery.
    /// - Parameters:
    ///   - delivery: a delivery from `sluice.jobs`.
    ///   - jobClass: the class queue it goes to.
    public func triage(_ delivery: Delivery, to jobClass: JobClass) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        if delivery.redelivered { headers[Topology.redeliveredHeader] = "1" }
        try await publish(OutgoingMessage(exchange: "", routingKey: jobClass.queueName, body: delivery.body,
                                          priority: delivery.priority, headers: headers))
        ack(delivery)
    }

    /// Settles what is queued in the mailbox, closes the connection and stops the owner thread; returns once it
    /// has. Publishes still awaiting a confirm fail with `.closed`.
    public func close() {
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
            return
        }
        mailbox.wake()
        finished.wait()
    }

    // MARK: Caller side helpers

    private func checkCurrent(_ delivery: Delivery) throws(AMQPError) {
        let current = lock.withLock { shared.connectedGeneration }
        guard delivery.generation == current else {
            throw .staleDelivery(generation: delivery.generation, current: current ?? 0)
        }
    }

    private func publish(_ message: OutgoingMessage) async throws(AMQPError) {
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

    // MARK: Owner thread

    private func run() {
        var action = lifecycle.start()
        while true {
            if lock.withLock({ shared.closeRequested }), action != .closeConnection {
                action = lifecycle.close()
            }
            switch action {
            case let .connect(attempt):
                action = connect(attempt: attempt)
            case let .serve(generation):
                lock.withLock {
                    shared.connectedGeneration = generation
                    shared.lastGeneration = generation
                }
                log("connected to \(configuration.url.redacted) (generation \(generation))")
                action = serve(generation: generation)
            case let .reconnect(delay, failedAttempts):
                tearDown(reason: "connection lost")
                if failedAttempts > 0 {
                    log("reconnecting to \(configuration.url.redacted) in \(delay) (attempt \(failedAttempts + 1))")
                }
                waitOut(delay)
                action = lock.withLock({ shared.closeRequested }) ? lifecycle.close() : lifecycle.backoffElapsed()
            case let .giveUp(reason):
                log("giving up on \(configuration.url.redacted): \(reason)")
                finish(reason: reason)
                return
            case .closeConnection:
                closeGracefully()
                finish(reason: "closed")
                return
            case .none:
                finish(reason: "closed")
                return
            }
        }
    }

    private func connect(attempt: Int) -> ConnectionLifecycle.Action {
        do throws(AMQPError) {
            let connection = try AMQPConnection(configuration: configuration)
            for declaration in TopologyDeclaration.declarations(for: configuration) {
                try connection.declare(declaration)
            }
            try connection.setPrefetch(configuration.prefetch)
            controlConsumerTag = nil
            jobsConsumerTag = nil
            classConsumerTags = [:]
            if configuration.consumesControl {
                let queue = try connection.declareControlQueue()
                controlConsumerTag = try connection.consume(queue: queue, autoAck: true)
            }
            self.connection = connection
            try reattachLeases(connection)
            if wantsJobs && !jobsPaused {
                jobsConsumerTag = try consumeJobs(nil, on: connection)
            }
            if wantsJobs {
                for jobClass in classQueues where !pausedClasses.contains(jobClass) {
                    classConsumerTags[jobClass] = try consumeJobs(jobClass, on: connection)
                }
            }
            return lifecycle.connectSucceeded()
        } catch {
            self.connection = nil
            detachLeases(reason: "connect failed")
            log("cannot connect to \(configuration.url.redacted) (attempt \(attempt)): \(error)")
            return lifecycle.connectFailed(reason: error.description)
        }
    }

    /// The class queues this connection consumes besides `sluice.jobs` (a worker's), in a fixed order.
    private var classQueues: [JobClass] {
        guard configuration.consumedQueue == .jobs else { return [] }
        return JobClass.allCases.filter { configuration.classPrefetch[$0] != nil }
    }

    /// basic.qos then basic.consume: RabbitMQ applies a non-global prefetch to each consumer created after it,
    /// so the intake and each class queue hold their own number of unacked deliveries.
    private func consumeJobs(_ jobClass: JobClass?, on connection: AMQPConnection) throws(AMQPError) -> String {
        if !classQueues.isEmpty {
            try connection.setPrefetch(jobClass.flatMap { configuration.classPrefetch[$0] } ?? configuration.prefetch)
        }
        return try connection.consume(queue: jobClass?.queueName ?? configuration.consumedQueue.name, autoAck: false)
    }

    private func isJobsConsumer(_ tag: String) -> Bool {
        tag == jobsConsumerTag || classConsumerTags.values.contains(tag)
    }

    /// Runs the live connection until it breaks or `close()` is called.
    private func serve(generation: Int) -> ConnectionLifecycle.Action {
        while true {
            guard let connection else { return lifecycle.connectionLost() }
            if lock.withLock({ shared.closeRequested }) { return lifecycle.close() }
            do throws(AMQPError) {
                for command in mailbox.drain() {
                    try execute(command, on: connection, generation: generation)
                }
                if !connection.hasBufferedInput {
                    mailbox.wait(socket: connection.socketDescriptor, timeout: configuration.pollInterval)
                }
                // Bounded, so a flood of input cannot starve the mailbox.
                for _ in 0..<256 {
                    guard let event = try connection.nextEvent() else { break }
                    try handle(event, on: connection, generation: generation)
                }
                try tendLeases(connection)
            } catch {
                countChannelError(error)
                log("lost connection generation \(generation) to \(configuration.url.redacted): \(error)")
                return lifecycle.connectionLost()
            }
        }
    }

    private func execute(_ command: MailboxCommand, on connection: AMQPConnection, generation: Int) throws(AMQPError) {
        switch command {
        case let .ack(delivery):
            guard isCurrent(delivery, generation: generation, settling: "ack") else { return }
            try connection.ack(deliveryTag: delivery.deliveryTag)
        case let .reject(delivery, requeue):
            guard isCurrent(delivery, generation: generation, settling: requeue ? "requeue" : "reject") else { return }
            try connection.reject(deliveryTag: delivery.deliveryTag, requeue: requeue)
        case let .publish(message, waiter):
            do throws(AMQPError) {
                try connection.publish(message)
            } catch {
                waiter?.resume(.failure(.connectionLost(reason: error.description)))
                throw error
            }
            _ = confirms.published(waiter)
        case .stopConsuming:
            guard wantsJobs else { return }
            wantsJobs = false
            if let tag = jobsConsumerTag {
                try connection.cancel(consumerTag: tag)
                jobsConsumerTag = nil
            }
            for (jobClass, tag) in classConsumerTags {
                try connection.cancel(consumerTag: tag)
                classConsumerTags[jobClass] = nil
            }
            deliveriesContinuation.finish()
            log("stopped consuming \(configuration.consumedQueue.name)")
        case let .pauseConsuming(paused, nil):
            guard paused != jobsPaused else { return }
            jobsPaused = paused
            guard wantsJobs else { return }
            if paused, let tag = jobsConsumerTag {
                try connection.cancel(consumerTag: tag)
                jobsConsumerTag = nil
            } else if !paused, jobsConsumerTag == nil {
                jobsConsumerTag = try consumeJobs(nil, on: connection)
            }
        case let .pauseConsuming(paused, jobClass?):
            guard paused != pausedClasses.contains(jobClass) else { return }
            if paused { pausedClasses.insert(jobClass) } else { pausedClasses.remove(jobClass) }
            guard wantsJobs, classQueues.contains(jobClass) else { return }
            if paused, let tag = classConsumerTags[jobClass] {
                try connection.cancel(consumerTag: tag)
                classConsumerTags[jobClass] = nil
            } else if !paused, classConsumerTags[jobClass] == nil {
                classConsumerTags[jobClass] = try consumeJobs(jobClass, on: connection)
            }
        case let .acquireLease(request, waiter):
            try acquire(request, waiter: waiter, connection: connection)
        case let .releaseLease(jobID, waiter):
            try release(jobID: jobID, connection: connection)
            waiter?.resume()
        }
    }

    /// Never settle a tag from an old channel: on the new one it names a different message, or none.
    private func isCurrent(_ delivery: Delivery, generation: Int, settling verb: String) -> Bool {
        guard delivery.generation != generation else { return true }
        lock.withLock { shared.droppedStaleSettlements += 1 }
        log("dropped \(verb) of delivery tag \(delivery.deliveryTag) from connection generation "
            + "\(delivery.generation) (now \(generation)); the broker redelivers that message")
        return false
    }

    private func handle(_ event: InboundEvent, on connection: AMQPConnection, generation: Int) throws(AMQPError) {
        switch event {
        case let .delivery(channel, consumerTag, deliveryTag, redelivered, body, headers, priority):
            if channel >= AMQPConnection.firstLeaseChannel {
                try claimArrived(on: channel, deliveryTag: deliveryTag, headers: headers, connection: connection)
            } else if consumerTag == controlConsumerTag {
                if let message = ControlMessage(json: body) {
                    controlsContinuation.yield(message)
                } else {
                    log("ignored an unrecognised control message (\(body.count) bytes)")
                }
            } else if wantsJobs, isJobsConsumer(consumerTag) {
                let jobClass = classConsumerTags.first { $0.value == consumerTag }?.key
                deliveriesContinuation.yield(Delivery(body: body, deliveryTag: deliveryTag, generation: generation,
                                                      redelivered: redelivered, headers: headers, priority: priority,
                                                      jobClass: jobClass))
            } else {
                // In flight when the consumer was cancelled: give it back for another worker.
                try connection.reject(deliveryTag: deliveryTag, requeue: true)
            }
        case let .confirm(deliveryTag, multiple, acked):
            for waiter in confirms.settle(deliveryTag: deliveryTag, multiple: multiple) {
                if let waiter {
                    waiter.resume(acked ? .success(()) : .failure(.publishRefused(exchange: waiter.exchange,
                                                                                   routingKey: waiter.routingKey)))
                } else if !acked {
                    log("the broker refused (basic.nack) an event publish")
                }
            }
        case let .consumerCancelled(consumerTag) where !isJobsConsumer(consumerTag) && consumerTag != controlConsumerTag:
            // A lease consumer: its queue was deleted (by us on release, or by an operator).
            if let (jobID, lease) = leases.first(where: { $0.value.consumerTag == consumerTag }) {
                leases[jobID] = nil
                if let channel = lease.channel {
                    leaseChannels[channel] = nil
                    try? connection.closeLeaseChannel(channel)
                }
                lost(lease, reason: "the broker cancelled its lease consumer (the lease queue was deleted)")
            }
        case let .consumerCancelled(consumerTag):
            // The queue was deleted or its node went away: reconnecting redeclares it and consumes again.
            throw .channelClosed(function: "basic.cancel from the broker (consumer \(consumerTag))", code: 0,
                                 reason: "consumer cancelled by the broker")
        case let .returned(replyText):
            log("a publish was returned by the broker: \(replyText)")
        case let .leaseChannelClosed(channel, error):
            countChannelError(error)
            if let jobID = leaseChannels.removeValue(forKey: channel), let lease = leases.removeValue(forKey: jobID) {
                lost(lease, reason: "the broker closed its lease channel: \(error)")
            }
        case .ignored:
            break
        }
    }

    /// Drops the broken connection and fails what depended on it.
    private func tearDown(reason: String) {
        lock.withLock { shared.connectedGeneration = nil }
        detachLeases(reason: reason)
        connection?.markBroken()
        connection = nil
        for waiter in confirms.reset() {
            waiter?.resume(.failure(.connectionLost(reason: reason)))
        }
    }

    /// Sleeps out a backoff, still answering the mailbox: settlements of the lost connection are dropped,
    /// publishes wait for the next connection.
    private func waitOut(_ delay: Duration) {
        let deadline = ContinuousClock.now + delay
        while ContinuousClock.now < deadline, !lock.withLock({ shared.closeRequested }) {
            mailbox.wait(socket: nil, timeout: min(deadline - ContinuousClock.now, configuration.pollInterval))
            var keep: [MailboxCommand] = []
            for command in mailbox.drain() {
                switch command {
                case let .ack(delivery), let .reject(delivery, _):
                    _ = isCurrent(delivery, generation: lifecycle.generation + 1, settling: "settlement")
                case .publish:
                    keep.append(command)
                case .stopConsuming:
                    if wantsJobs {
                        wantsJobs = false
                        deliveriesContinuation.finish()
                    }
                case let .pauseConsuming(paused, nil):
                    jobsPaused = paused
                case let .pauseConsuming(paused, jobClass?):
                    if paused { pausedClasses.insert(jobClass) } else { pausedClasses.remove(jobClass) }
                case let .acquireLease(_, waiter):
                    waiter.resume(.failed(reason: "not connected to the broker"))
                case let .releaseLease(jobID, waiter):
                    if let lease = leases.removeValue(forKey: jobID) {
                        pendingLeaseDeletes.insert(lease.request.queueName)
                        if let exclusion = lease.request.exclusionQueueName { pendingLeaseDeletes.insert(exclusion) }
                    }
                    publishLeaseCount()
                    waiter?.resume()
                }
            }
            mailbox.putBack(keep)
            fenceLeases()
        }
    }

    /// Sends what the mailbox holds, waits briefly for outstanding confirms, then closes the connection.
    private func closeGracefully() {
        if let connection {
            let generation = lifecycle.generation
            do throws(AMQPError) {
                for command in mailbox.drain() {
                    try execute(command, on: connection, generation: generation)
                }
                let deadline = ContinuousClock.now + .seconds(5)
                while confirms.count > 0, ContinuousClock.now < deadline {
                    if !connection.hasBufferedInput {
                        mailbox.wait(socket: connection.socketDescriptor, timeout: configuration.pollInterval)
                    }
                    while let event = try connection.nextEvent() {
                        try handle(event, on: connection, generation: generation)
                    }
                }
            } catch {
                log("while closing: \(error)")
                connection.markBroken()
            }
        }
        lock.withLock { shared.connectedGeneration = nil }
        connection = nil  // deinit sends connection.close and destroys the handle
        for waiter in confirms.reset() {
            waiter?.resume(.failure(.closed(reason: "closed before the broker confirmed")))
        }
    }

    private func finish(reason: String) {
        lock.withLock {
            shared.connectedGeneration = nil
            shared.closedReason = reason
        }
        tearDown(reason: reason)
        failQueuedCommands(reason: reason)
        deliveriesContinuation.finish()
        controlsContinuation.finish()
        finished.signal()
    }

    private func failQueuedCommands(reason: String) {
        for command in mailbox.drain() {
            switch command {
            case let .publish(_, waiter): waiter?.resume(.failure(.closed(reason: reason)))
            case let .acquireLease(_, waiter): waiter.resume(.failed(reason: "the broker connection is closed: \(reason)"))
            case let .releaseLease(_, waiter): waiter?.resume()
            case .ack, .reject, .stopConsuming, .pauseConsuming: break
            }
        }
    }
}

// MARK: - Job leases (DESIGN §5, long jobs; see `JobLease`)

/// One lease this worker holds. Owner thread only.
struct HeldLease {
    var request: LeaseRequest
    /// Random per lease: claims carrying another token are stale and dropped.
    let token: String
    /// The lease channel while attached to the current connection; nil while disconnected.
    var channel: amqp_channel_t?
    var consumerTag: String?
    /// The claim delivered to us and not yet acked (at most one: a newer one replaces it).
    var heldClaim: UInt64?
    /// When the last fresh claim was published.
    var lastPublish: ContinuousClock.Instant?
    /// Past this instant the broker may already have expired our claim: the job may be taken over elsewhere.
    var validUntil: ContinuousClock.Instant
    let onLost: @Sendable (String) -> Void
    /// The caller of `acquireLease`, answered when the first claim has come back to us.
    var acquireWaiter: LeaseWaiter?
}

extension BrokerConnection {
    /// Takes the lease of a job before it runs (see `JobLease`): returns `.acquired` once the first claim is
    /// in the broker and delivered back to this worker, so the job message can be acked.
    /// - Parameters:
    ///   - request: the job and the headers its claims carry.
    ///   - onLost: called (on the connection's thread) if the lease is lost later: the job must stop at once,
    ///     because another worker may take it over.
    public func acquireLease(_ request: LeaseRequest, onLost: @escaping @Sendable (String) -> Void) async -> LeaseOutcome {
        if let reason = lock.withLock({ shared.closedReason }) { return .failed(reason: "the broker connection is closed: \(reason)") }
        return await withCheckedContinuation { continuation in
            mailbox.post(.acquireLease(request, LeaseWaiter(continuation, onLost: onLost)))
            if lock.withLock({ shared.closedReason }) != nil { failQueuedCommands(reason: "closed") }
        }
    }

    /// Gives a job's lease up once the job has ended (its claims are deleted with the queue, so nothing takes
    /// the job over). Returns when the broker has done it, or it is queued for the next connection.
    /// - Parameter jobID: the job id.
    public func releaseLease(jobID: String) async {
        if lock.withLock({ shared.closedReason }) != nil { return }
        await withCheckedContinuation { continuation in
            mailbox.post(.releaseLease(jobID: jobID, LeaseReleaseWaiter(continuation)))
            if lock.withLock({ shared.closedReason }) != nil { failQueuedCommands(reason: "closed") }
        }
    }

    /// Publishes a job back to `sluice.jobs` (persistent, confirmed): a hand-over on shutdown, carrying
    /// `headers` (who handed it over, when its output stopped).
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: message headers.
    public func handOver(body: [UInt8], priority: UInt8?, headers: [String: String]) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey,
                                          body: body, priority: priority, headers: headers))
    }

    /// Publishes a job to `sluice.jobs.dead` with `x-sluice-reason` (confirmed), without a delivery to settle.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: headers to keep.
    ///   - reason: why it is dead (cut to `Topology.maxReasonBytes`).
    public func deadLetter(body: [UInt8], priority: UInt8?, headers: [String: String], reason: String) async throws(AMQPError) {
        var headers = headers
        headers[Topology.reasonHeader] = String(decoding: reason.utf8.prefix(Topology.maxReasonBytes), as: UTF8.self)
        try await publish(OutgoingMessage(exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue,
                                          body: body, priority: priority, headers: headers))
    }

    /// Publishes a job to `sluice.jobs.retry` with a per-message TTL (confirmed), without a delivery to settle.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: headers to keep.
    ///   - delay: the wait before `sluice.jobs` gets it back (at least 1 ms).
    public func retry(body: [UInt8], priority: UInt8?, headers: [String: String], after delay: Duration) async throws(AMQPError) {
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        try await publish(OutgoingMessage(exchange: "", routingKey: Topology.retryQueue, body: body, priority: priority,
                                          expirationMilliseconds: milliseconds, headers: headers))
    }

    // MARK: Owner thread

    fileprivate func countChannelError(_ error: any Error) {
        guard case let AMQPError.channelClosed(_, code, _) = error else { return }
        lock.withLock { shared.channelErrors[code, default: 0] += 1 }
    }

    fileprivate func publishLeaseCount() {
        let count = leases.count
        lock.withLock { shared.leasesHeld = count }
    }

    private var timing: LeaseTiming { configuration.leaseTiming }

    fileprivate func acquire(_ request: LeaseRequest, waiter: LeaseWaiter, connection: AMQPConnection) throws(AMQPError) {
        guard leases[request.jobID] == nil else {
            waiter.resume(.heldElsewhere(reason: "this worker already holds the lease of job \(request.jobID)"))
            return
        }
        let channel: amqp_channel_t
        let tag: String
        do throws(AMQPError) {
            (channel, tag) = try attach(request, connection: connection)
        } catch let .channelClosed(function, code, reason) {
            countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
            waiter.resume(.heldElsewhere(reason: "the broker refused the lease of job \(request.jobID): \(code) \(reason)"))
            return
        } catch {
            waiter.resume(.failed(reason: error.description))
            throw error
        }
        var lease = HeldLease(request: request, token: Self.newToken(), channel: channel, consumerTag: tag,
                              validUntil: .now + timing.orphanAfter - timing.safetyMargin,
                              onLost: waiter.onLost, acquireWaiter: waiter)
        try publishClaim(&lease, connection: connection)
        leases[request.jobID] = lease
        leaseChannels[channel] = request.jobID
        publishLeaseCount()
    }

    /// The lowest lease channel number no lease is attached on.
    private var freeLeaseChannel: amqp_channel_t {
        var channel = AMQPConnection.firstLeaseChannel
        while leaseChannels[channel] != nil { channel += 1 }
        return channel
    }

    /// Opens a lease channel, declares the job's lease queue and consumes it exclusively (its exclusion queue
    /// too, first, on the same channel: a refusal of either closes the channel, and the job runs elsewhere).
    private func attach(_ request: LeaseRequest, connection: AMQPConnection) throws(AMQPError) -> (amqp_channel_t, String) {
        let channel = freeLeaseChannel
        try connection.openLeaseChannel(channel)
        if let exclusion = request.exclusionQueueName {
            try connection.declareLeaseQueue(exclusion, on: channel)
            // A stale claim an earlier holder left in it arrives here and is dropped like one in the lease queue.
            _ = try connection.consumeExclusively(exclusion, on: channel)
        }
        try connection.declareLeaseQueue(request.queueName, on: channel)
        return (channel, try connection.consumeExclusively(request.queueName, on: channel))
    }

    private func publishClaim(_ lease: inout HeldLease, connection: AMQPConnection) throws(AMQPError) {
        var headers = lease.request.headers
        headers[JobLease.holderHeader] = lease.request.holder
        headers[JobLease.tokenHeader] = lease.token
        headers[JobLease.renewedAtHeader] = String(Self.wallClockMilliseconds())
        let (seconds, attoseconds) = timing.orphanAfter.components
        let message = OutgoingMessage(exchange: "", routingKey: lease.request.queueName,
                                      body: lease.request.body, priority: lease.request.priority,
                                      expirationMilliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000,
                                      headers: headers)
        try connection.publish(message)
        _ = confirms.published(nil)
        lease.lastPublish = .now
    }

    /// A claim came back on a lease channel: keep ours (ack the one it replaces), drop anyone else's.
    fileprivate func claimArrived(on channel: amqp_channel_t, deliveryTag: UInt64, headers: [String: String],
                                  connection: AMQPConnection) throws(AMQPError) {
        guard let jobID = leaseChannels[channel], var lease = leases[jobID], lease.channel == channel else {
            try connection.ack(deliveryTag: deliveryTag, on: channel)
            return
        }
        guard headers[JobLease.tokenHeader] == lease.token else {
            // A claim of an earlier holder (a hand-over, or a worker that died): its job runs here now.
            try connection.ack(deliveryTag: deliveryTag, on: channel)
            log("dropped a stale claim of job \(jobID) from \(headers[JobLease.holderHeader] ?? "an unknown holder")")
            return
        }
        if let old = lease.heldClaim { try connection.ack(deliveryTag: old, on: channel) }
        lease.heldClaim = deliveryTag
        let age = Duration.milliseconds(max(0, Self.wallClockMilliseconds() - (Int64(headers[JobLease.renewedAtHeader] ?? "") ?? 0)))
        lease.validUntil = .now + timing.orphanAfter - min(age, timing.orphanAfter) - timing.safetyMargin
        lease.acquireWaiter?.resume(.acquired)
        lease.acquireWaiter = nil
        leases[jobID] = lease
    }

    /// Each turn of the serve loop: renew claims that are due, and give up leases that lapsed.
    fileprivate func tendLeases(_ connection: AMQPConnection) throws(AMQPError) {
        let now = ContinuousClock.now
        for jobID in Array(leases.keys) {
            guard var lease = leases[jobID], lease.channel != nil else { continue }
            if lease.lastPublish.map({ now - $0 >= timing.renewInterval }) ?? true {
                try publishClaim(&lease, connection: connection)
                leases[jobID] = lease
            }
        }
        fenceLeases()
    }

    /// A lease whose claim could have expired in the broker by now is lost: another worker may run the job.
    fileprivate func fenceLeases() {
        let now = ContinuousClock.now
        for (jobID, lease) in leases where now > lease.validUntil {
            leases[jobID] = nil
            if let channel = lease.channel {
                leaseChannels[channel] = nil
                // Our consumer goes with the channel; a held claim returns to the queue and takes its course.
                try? connection?.closeLeaseChannel(channel)
            }
            lost(lease, reason: "no claim of the lease came back from the broker before it could expire")
        }
    }

    fileprivate func lost(_ lease: HeldLease, reason: String) {
        publishLeaseCount()
        if let waiter = lease.acquireWaiter {
            waiter.resume(.failed(reason: reason))
            return
        }
        log("lease of job \(lease.request.jobID) lost: \(reason)")
        lease.onLost(reason)
    }

    fileprivate func release(jobID: String, connection: AMQPConnection) throws(AMQPError) {
        guard let lease = leases.removeValue(forKey: jobID) else { return }
        publishLeaseCount()
        guard let channel = lease.channel else {
            pendingLeaseDeletes.insert(lease.request.queueName)
            if let exclusion = lease.request.exclusionQueueName { pendingLeaseDeletes.insert(exclusion) }
            return
        }
        leaseChannels[channel] = nil
        do throws(AMQPError) {
            try connection.deleteLeaseQueue(lease.request.queueName, on: channel)
            if let exclusion = lease.request.exclusionQueueName { try connection.deleteLeaseQueue(exclusion, on: channel) }
            try connection.closeLeaseChannel(channel)
        } catch let .channelClosed(function, code, reason) {
            countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
            log("could not delete the lease queue of job \(jobID): \(code) \(reason)")
        }
    }

    /// The connection is gone: every lease is detached (its claim is back in its queue, valid until it expires).
    fileprivate func detachLeases(reason: String) {
        leaseChannels.removeAll()
        for jobID in Array(leases.keys) {
            guard var lease = leases[jobID] else { continue }
            if let waiter = lease.acquireWaiter {
                leases[jobID] = nil
                waiter.resume(.failed(reason: reason))
                continue
            }
            lease.channel = nil
            lease.consumerTag = nil
            lease.heldClaim = nil
            leases[jobID] = lease
        }
        publishLeaseCount()
    }

    /// After a reconnect: take every lease again, or learn that another worker has taken the job over.
    fileprivate func reattachLeases(_ connection: AMQPConnection) throws(AMQPError) {
        for queue in pendingLeaseDeletes {
            // Only if nobody consumes it: a worker that has taken the job over keeps its lease.
            let channel = freeLeaseChannel
            do throws(AMQPError) {
                try connection.openLeaseChannel(channel)
                try connection.deleteLeaseQueue(queue, on: channel, ifUnused: true)
                try connection.closeLeaseChannel(channel)
            } catch .channelClosed {
                // In use elsewhere, or already gone: nothing of ours to delete.
            }
        }
        pendingLeaseDeletes.removeAll()
        fenceLeases()
        for jobID in Array(leases.keys) {
            guard var lease = leases[jobID] else { continue }
            do throws(AMQPError) {
                let (channel, tag) = try attach(lease.request, connection: connection)
                lease.channel = channel
                lease.consumerTag = tag
                lease.lastPublish = nil
                leases[jobID] = lease
                leaseChannels[channel] = jobID
            } catch let .channelClosed(function, code, reason) {
                countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
                leases[jobID] = nil
                lost(lease, reason: "another worker holds it now (\(code) \(reason)): the job was taken over while this worker was away from the broker")
            }
        }
        publishLeaseCount()
    }

    static func newToken() -> String {
        (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined(separator: "-")
    }

    /// Wall-clock milliseconds since 1970 (claims and hand-overs carry them between workers).
    public static func wallClockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
