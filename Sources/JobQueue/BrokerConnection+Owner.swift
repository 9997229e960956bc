// The owner thread of the librabbitmq connection (not thread-safe): connects and reconnects with backoff, declares
// the topology, runs the consumers, drains the mailbox and dispatches what the broker sends.
import CRabbitMQ
import Foundation

extension BrokerConnection {
    func run() {
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

    func connect(attempt: Int) -> ConnectionLifecycle.Action {
        // A lease that lapsed during the backoff is given up before a connect that may block for its timeouts.
        fenceLeases()
        var bounded = configuration
        bounded.connectTimeout = blockingCallLimit(configuration.connectTimeout)
        bounded.rpcTimeout = blockingCallLimit(configuration.rpcTimeout)
        do throws(AMQPError) {
            let connection = try AMQPConnection(configuration: bounded)
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
    var classQueues: [JobClass] {
        guard configuration.consumedQueue == .jobs else { return [] }
        return JobClass.allCases.filter { configuration.classPrefetch[$0] != nil }
    }

    /// basic.qos then basic.consume: RabbitMQ applies a non-global prefetch to each consumer created after it,
    /// so the intake and each class queue hold their own number of unacked deliveries.
    func consumeJobs(_ jobClass: JobClass?, on connection: AMQPConnection) throws(AMQPError) -> String {
        if !classQueues.isEmpty {
            try connection.setPrefetch(jobClass.flatMap { configuration.classPrefetch[$0] } ?? configuration.prefetch)
        }
        return try connection.consume(queue: jobClass?.queueName ?? configuration.consumedQueue.name, autoAck: false)
    }

    func isJobsConsumer(_ tag: String) -> Bool {
        tag == jobsConsumerTag || classConsumerTags.values.contains(tag)
    }

    /// Runs the live connection until it breaks or `close()` is called.
    func serve(generation: Int) -> ConnectionLifecycle.Action {
        while true {
            guard let connection else { return lifecycle.connectionLost() }
            if lock.withLock({ shared.closeRequested }) { return lifecycle.close() }
            do throws(AMQPError) {
                // One bound for every call and every write of this turn: a broker that stops answering or taking bytes
                // cannot hold the owner thread past the first lease's deadline (docs/ARCHITECTURE.md §5).
                let bound = blockingCallLimit(configuration.rpcTimeout)
                try connection.setRPCTimeout(bound)
                try connection.setSendDeadline(bound)
                try execute(mailbox.drain(), on: connection, generation: generation)
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

    /// Executes commands in order. When the connection fails under one, the rest go back to the mailbox, where the
    /// backoff answers them (a release waiter left in a dropped batch would hold its job's settlement forever).
    func execute(_ commands: [MailboxCommand], on connection: AMQPConnection, generation: Int) throws(AMQPError) {
        for (index, command) in commands.enumerated() {
            do throws(AMQPError) {
                try execute(command, on: connection, generation: generation)
            } catch {
                mailbox.putBack(Array(commands[(index + 1)...]))
                throw error
            }
        }
    }

    func execute(_ command: MailboxCommand, on connection: AMQPConnection, generation: Int) throws(AMQPError) {
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
            // First: a basic.cancel that fails below (the connection died under it) must not leave the stream open.
            deliveriesContinuation.finish()
            if let tag = jobsConsumerTag {
                try connection.cancel(consumerTag: tag)
                jobsConsumerTag = nil
            }
            for (jobClass, tag) in classConsumerTags {
                try connection.cancel(consumerTag: tag)
                classConsumerTags[jobClass] = nil
            }
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
            // The caller is answered even when the connection fails under the delete (which is then retried after the
            // reconnect): a waiter left behind would hold its job's settlement forever.
            defer { waiter?.resume() }
            try release(jobID: jobID, connection: connection)
        case let .abandonLease(jobID, waiter):
            defer { waiter?.resume() }
            try abandon(jobID: jobID, connection: connection)
        case let .replaceLeaseBody(jobID, body):
            replaceHeldLeaseBody(jobID: jobID, body: body)
        }
    }

    /// Never settle a tag from an old channel: on the new one it names a different message, or none.
    func isCurrent(_ delivery: Delivery, generation: Int, settling verb: String) -> Bool {
        guard delivery.generation != generation else { return true }
        lock.withLock { shared.droppedStaleSettlements += 1 }
        log("dropped \(verb) of delivery tag \(delivery.deliveryTag) from connection generation "
            + "\(delivery.generation) (now \(generation)); the broker redelivers that message")
        return false
    }

    func handle(_ event: InboundEvent, on connection: AMQPConnection, generation: Int) throws(AMQPError) {
        switch event {
        case let .delivery(channel, consumerTag, deliveryTag, redelivered, body, headers, priority):
            if channel >= AMQPConnection.firstLeaseChannel {
                try claimArrived(on: channel, consumerTag: consumerTag, deliveryTag: deliveryTag, headers: headers,
                                 connection: connection)
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
            try applyLeases(leaseBook.consumerCancelled(tag: consumerTag), connection: connection)
        case let .consumerCancelled(consumerTag):
            // The queue was deleted or its node went away: reconnecting redeclares it and consumes again.
            throw .channelClosed(function: "basic.cancel from the broker (consumer \(consumerTag))", code: 0,
                                 reason: "consumer cancelled by the broker")
        case let .returned(replyText):
            log("a publish was returned by the broker: \(replyText)")
        case let .leaseChannelClosed(channel, error):
            countChannelError(error)
            try applyLeases(leaseBook.channelClosed(channel, error: "\(error)"), connection: connection)
        case .ignored:
            break
        }
    }

    /// Drops the broken connection and fails what depended on it.
    func tearDown(reason: String) {
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
    func waitOut(_ delay: Duration) {
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
                    // Detached: its queues are deleted once the connection is back.
                    try? release(jobID: jobID, connection: nil)
                    waiter?.resume()
                case let .abandonLease(jobID, waiter):
                    // Detached: the claim is back in its queue already.
                    try? abandon(jobID: jobID, connection: nil)
                    waiter?.resume()
                case let .replaceLeaseBody(jobID, body):
                    replaceHeldLeaseBody(jobID: jobID, body: body)
                }
            }
            mailbox.putBack(keep)
            fenceLeases()
        }
    }

    /// How long closing waits for outstanding confirms: by then only events and claims wait for one (a job's own
    /// publishes were awaited before), so a stopping worker does not wait long for a broker that may be gone.
    static let closeConfirmWait = Duration.seconds(2)

    /// Sends what the mailbox holds, waits briefly for outstanding confirms, then closes the connection.
    func closeGracefully() {
        if let connection {
            let generation = lifecycle.generation
            do throws(AMQPError) {
                try execute(mailbox.drain(), on: connection, generation: generation)
                let deadline = ContinuousClock.now + Self.closeConfirmWait
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

    func finish(reason: String) {
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

    func failQueuedCommands(reason: String) {
        for command in mailbox.drain() {
            switch command {
            case let .publish(_, waiter): waiter?.resume(.failure(.closed(reason: reason)))
            case let .acquireLease(_, waiter): waiter.resume(.failed(reason: "the broker connection is closed: \(reason)"))
            case let .releaseLease(_, waiter), let .abandonLease(_, waiter): waiter?.resume()
            case .ack, .reject, .stopConsuming, .pauseConsuming, .replaceLeaseBody: break
            }
        }
    }
}
