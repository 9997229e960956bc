import Foundation

/// The worker's link to RabbitMQ: one dedicated thread owns the librabbitmq connection (which is not
/// thread-safe), reconnects with backoff, and takes acks and publishes from any thread through a mailbox.
/// Call `start()` once and `close()` when done (the owner thread keeps the object alive until then).
public final class BrokerConnection: @unchecked Sendable {
    // Reason: `shared` is guarded by `lock`; `connection`, `lifecycle`, `confirms` and the consumer fields are
    // touched only by the owner thread; everything else is immutable or thread-safe (Mailbox, continuations).

    /// Job deliveries from `sluice.jobs`; finishes after `stopConsuming()` or `close()`.
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
    }
    private let lock = NSLock()
    private var shared = Shared()

    // Owner thread only.
    private var connection: AMQPConnection?
    private var lifecycle: ConnectionLifecycle
    private var confirms = PublisherConfirms<PublishWaiter?>()
    private var jobsConsumerTag: String?
    private var controlConsumerTag: String?
    private var wantsJobs: Bool

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
            for declaration in TopologyDeclaration.all {
                try connection.declare(declaration)
            }
            try connection.setPrefetch(configuration.prefetch)
            controlConsumerTag = nil
            jobsConsumerTag = nil
            if configuration.consumesControl {
                let queue = try connection.declareControlQueue()
                controlConsumerTag = try connection.consume(queue: queue, autoAck: true)
            }
            if wantsJobs {
                jobsConsumerTag = try connection.consume(queue: Topology.jobsQueue, autoAck: false)
            }
            self.connection = connection
            return lifecycle.connectSucceeded()
        } catch {
            log("cannot connect to \(configuration.url.redacted) (attempt \(attempt)): \(error)")
            return lifecycle.connectFailed(reason: error.description)
        }
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
            } catch {
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
            deliveriesContinuation.finish()
            log("stopped consuming \(Topology.jobsQueue)")
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
        case let .delivery(consumerTag, deliveryTag, redelivered, body, headers, priority):
            if consumerTag == controlConsumerTag {
                if let message = ControlMessage(json: body) {
                    controlsContinuation.yield(message)
                } else {
                    log("ignored an unrecognised control message (\(body.count) bytes)")
                }
            } else if consumerTag == jobsConsumerTag, wantsJobs {
                deliveriesContinuation.yield(Delivery(body: body, deliveryTag: deliveryTag, generation: generation,
                                                      redelivered: redelivered, headers: headers, priority: priority))
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
        case let .consumerCancelled(consumerTag):
            // The queue was deleted or its node went away: reconnecting redeclares it and consumes again.
            throw .channelClosed(function: "basic.cancel from the broker (consumer \(consumerTag))", code: 0,
                                 reason: "consumer cancelled by the broker")
        case let .returned(replyText):
            log("a publish was returned by the broker: \(replyText)")
        case .ignored:
            break
        }
    }

    /// Drops the broken connection and fails what depended on it.
    private func tearDown(reason: String) {
        lock.withLock { shared.connectedGeneration = nil }
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
                }
            }
            mailbox.putBack(keep)
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
            if case let .publish(_, waiter) = command {
                waiter?.resume(.failure(.closed(reason: reason)))
            }
        }
    }
}
