// docs/ARCHITECTURE.md §5 (leases; see `JobLease`): the leases a worker holds, applied on the owner thread. What to
// do is decided by the `LeaseBook` (pure, tested without a broker); this file only performs its actions on the lease
// channels and answers the callers.
import CRabbitMQ
import Foundation

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

    /// Leaves a job's lease to the lease mechanism, for a job whose next step the broker did not confirm (the publish
    /// of its retry, hand-back or dead letter failed): its queues are not deleted, so its claim expires into
    /// `sluice.jobs` and the job is taken over, by this worker or another. Returns once the owner thread has let go.
    /// - Parameter jobID: the job id.
    public func abandonLease(jobID: String) async {
        if lock.withLock({ shared.closedReason }) != nil { return }
        await withCheckedContinuation { continuation in
            mailbox.post(.abandonLease(jobID: jobID, LeaseReleaseWaiter(continuation)))
            if lock.withLock({ shared.closedReason }) != nil { failQueuedCommands(reason: "closed") }
        }
    }

    // MARK: Owner thread

    func countChannelError(_ error: any Error) {
        guard case let AMQPError.channelClosed(_, code, _) = error else { return }
        lock.withLock { shared.channelErrors[code, default: 0] += 1 }
    }

    func publishLeaseCount() {
        let count = leaseBook.count
        lock.withLock { shared.leasesHeld = count }
    }

    func acquire(_ request: LeaseRequest, waiter: LeaseWaiter, connection: AMQPConnection) throws(AMQPError) {
        let channel: amqp_channel_t
        switch leaseBook.acquire(request) {
        case let .refuse(outcome):
            waiter.resume(outcome)
            return
        case let .attach(free):
            channel = free
        }
        let tags: (lease: String, exclusion: String?)
        do throws(AMQPError) {
            tags = try attach(request, on: channel, connection: connection)
        } catch let .channelClosed(function, code, reason) {
            countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
            waiter.resume(.heldElsewhere(reason: "the broker refused the lease of job \(request.jobID): \(code) \(reason)"))
            return
        } catch {
            waiter.resume(.failed(reason: error.description))
            throw error
        }
        leaseCallers[request.jobID] = waiter
        try applyLeases(leaseBook.attached(request, channel: channel, consumerTag: tags.lease,
                                           exclusionConsumerTag: tags.exclusion, token: Self.newToken(), now: .now),
                        connection: connection)
    }

    /// Opens a lease channel, declares the job's lease queue and consumes it exclusively (its exclusion queue
    /// too, first, on the same channel: a refusal of either closes the channel, and the job runs elsewhere).
    /// - Returns: the consumer tags of the lease queue and of the exclusion queue.
    func attach(_ request: LeaseRequest, on channel: amqp_channel_t,
                connection: AMQPConnection) throws(AMQPError) -> (lease: String, exclusion: String?) {
        try connection.openLeaseChannel(channel)
        var exclusionTag: String?
        if let exclusion = request.exclusionQueueName {
            try connection.declareLeaseQueue(exclusion, on: channel)
            // A stale claim an earlier holder left in it arrives here and is dropped like one in the lease queue.
            exclusionTag = try connection.consumeExclusively(exclusion, on: channel)
        }
        try connection.declareLeaseQueue(request.queueName, on: channel)
        return (try connection.consumeExclusively(request.queueName, on: channel), exclusionTag)
    }

    func publishClaim(_ request: LeaseRequest, token: String, connection: AMQPConnection) throws(AMQPError) {
        var headers = request.headers
        headers[JobLease.holderHeader] = request.holder
        headers[JobLease.tokenHeader] = token
        headers[JobLease.renewedAtHeader] = String(Self.wallClockMilliseconds())
        let (seconds, attoseconds) = leaseBook.timing.orphanAfter.components
        let message = OutgoingMessage(exchange: "", routingKey: request.queueName,
                                      body: request.body, priority: request.priority,
                                      expirationMilliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000,
                                      headers: headers)
        try connection.publish(message)
        _ = confirms.published(nil)
    }

    /// A claim came back on a lease channel.
    func claimArrived(on channel: amqp_channel_t, consumerTag: String, deliveryTag: UInt64, headers: [String: String],
                      connection: AMQPConnection) throws(AMQPError) {
        try applyLeases(leaseBook.claimArrived(on: channel, consumerTag: consumerTag, deliveryTag: deliveryTag, headers: headers,
                                               wallClockMilliseconds: Self.wallClockMilliseconds(), now: .now),
                        connection: connection)
    }

    /// Each turn of the serve loop: renew claims that are due, and give up leases that lapsed.
    func tendLeases(_ connection: AMQPConnection) throws(AMQPError) {
        try applyLeases(leaseBook.renewAndFence(now: .now), connection: connection)
    }

    /// While disconnected: give up the leases whose claims could have expired by now.
    func fenceLeases() {
        try? applyLeases(leaseBook.fence(now: .now), connection: nil)
    }

    func release(jobID: String, connection: AMQPConnection?) throws(AMQPError) {
        leaseCallers[jobID] = nil
        try applyLeases(leaseBook.release(jobID: jobID), connection: connection)
    }

    func abandon(jobID: String, connection: AMQPConnection?) throws(AMQPError) {
        leaseCallers[jobID] = nil
        try applyLeases(leaseBook.abandon(jobID: jobID), connection: connection)
    }

    /// The connection is gone: every lease is detached (its claim is back in its queue, valid until it expires).
    func detachLeases(reason: String) {
        try? applyLeases(leaseBook.connectionLost(reason: reason), connection: nil)
    }

    /// After a reconnect: take every lease again, or learn that another worker has taken the job over.
    func reattachLeases(_ connection: AMQPConnection) throws(AMQPError) {
        try applyLeases(leaseBook.connectionRestored(now: .now, heartbeat: connection.heartbeat), connection: connection)
    }

    /// How long a blocking call (a connect, a login, an RPC) may take now: the configured `limit`, cut to what is
    /// left before the first lease lapses, so that a broker that stops answering mid-call cannot hold up a fence.
    /// Never below `minimumBlockingCall`: the fence then follows the call's failure.
    func blockingCallLimit(_ limit: Duration) -> Duration {
        guard let deadline = leaseBook.earliestDeadline else { return limit }
        return min(limit, max(deadline - .now, Self.minimumBlockingCall))
    }

    /// The shortest bound `blockingCallLimit` sets: a call on a loopback broker takes a few milliseconds.
    static let minimumBlockingCall = Duration.milliseconds(250)

    /// Performs the book's actions in order. Once the connection fails under one, the I/O of the rest is skipped
    /// (deletes are kept for the next connection) but every caller and job is still told; then the error is thrown.
    func applyLeases(_ actions: [LeaseBook.Action], connection: AMQPConnection?) throws(AMQPError) {
        var failure: AMQPError?
        /// The live connection, or nil once it failed (or there is none).
        var live: AMQPConnection? { failure == nil ? connection : nil }
        for action in actions {
            do throws(AMQPError) {
                switch action {
                case let .answer(jobID, outcome):
                    leaseCallers[jobID]?.resume(outcome)
                    if outcome != .acquired { leaseCallers[jobID] = nil }
                case let .lost(jobID, reason):
                    log("lease of job \(jobID) lost: \(reason)")
                    leaseCallers.removeValue(forKey: jobID)?.onLost(reason)
                case let .log(line):
                    log(line)
                case let .publishClaim(request, token):
                    if let connection = live { try publishClaim(request, token: token, connection: connection) }
                case let .ack(deliveryTag, channel):
                    try live?.ack(deliveryTag: deliveryTag, on: channel)
                case let .closeChannel(channel):
                    try? live?.closeLeaseChannel(channel)
                case let .delete(jobID, queues, channel):
                    guard let connection = live else {
                        leaseBook.deleteInterrupted(queues: queues)
                        continue
                    }
                    try delete(jobID: jobID, queues: queues, channel: channel, connection: connection)
                case let .deleteIfUnused(queue, channel):
                    guard let connection = live else {
                        leaseBook.deleteInterrupted(queues: [queue])
                        continue
                    }
                    try deleteIfUnused(queue, channel: channel, connection: connection)
                case let .reattach(request, channel):
                    guard let connection = live else { continue }
                    try reattach(request, channel: channel, connection: connection)
                }
            } catch {
                if failure == nil { failure = error }
            }
        }
        publishLeaseCount()
        if let failure { throw failure }
    }

    private func delete(jobID: String, queues: [String], channel: amqp_channel_t, connection: AMQPConnection) throws(AMQPError) {
        do throws(AMQPError) {
            for queue in queues { try connection.deleteLeaseQueue(queue, on: channel) }
            try connection.closeLeaseChannel(channel)
        } catch let .channelClosed(function, code, reason) {
            countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
            log("could not delete the lease queue of job \(jobID): \(code) \(reason)")
        } catch {
            // The connection failed: the queues are deleted once it is back, like a release made while disconnected.
            leaseBook.deleteInterrupted(queues: queues)
            throw error
        }
    }

    private func deleteIfUnused(_ queue: String, channel: amqp_channel_t, connection: AMQPConnection) throws(AMQPError) {
        do throws(AMQPError) {
            try connection.openLeaseChannel(channel)
            try connection.deleteLeaseQueue(queue, on: channel, ifUnused: true)
            try connection.closeLeaseChannel(channel)
        } catch .channelClosed {
            // In use elsewhere, or already gone: nothing of ours to delete.
        } catch {
            leaseBook.deleteInterrupted(queues: [queue])
            throw error
        }
    }

    private func reattach(_ request: LeaseRequest, channel: amqp_channel_t, connection: AMQPConnection) throws(AMQPError) {
        do throws(AMQPError) {
            let tags = try attach(request, on: channel, connection: connection)
            leaseBook.reattached(jobID: request.jobID, channel: channel, consumerTag: tags.lease,
                                 exclusionConsumerTag: tags.exclusion)
        } catch let .channelClosed(function, code, reason) {
            countChannelError(AMQPError.channelClosed(function: function, code: code, reason: reason))
            try applyLeases(leaseBook.reattachRefused(jobID: request.jobID, channel: channel, refusal: "\(code) \(reason)"),
                            connection: connection)
        }
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
