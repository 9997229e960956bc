// DESIGN §5 (long jobs; see `JobLease`): the leases a worker holds, taken, renewed, fenced, re-taken after a
// reconnect and released on the owner thread.
import CRabbitMQ
import Foundation

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

    // MARK: Owner thread

    func countChannelError(_ error: any Error) {
        guard case let AMQPError.channelClosed(_, code, _) = error else { return }
        lock.withLock { shared.channelErrors[code, default: 0] += 1 }
    }

    func publishLeaseCount() {
        let count = leases.count
        lock.withLock { shared.leasesHeld = count }
    }

    var timing: LeaseTiming { configuration.leaseTiming }

    func acquire(_ request: LeaseRequest, waiter: LeaseWaiter, connection: AMQPConnection) throws(AMQPError) {
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
    var freeLeaseChannel: amqp_channel_t {
        var channel = AMQPConnection.firstLeaseChannel
        while leaseChannels[channel] != nil { channel += 1 }
        return channel
    }

    /// Opens a lease channel, declares the job's lease queue and consumes it exclusively (its exclusion queue
    /// too, first, on the same channel: a refusal of either closes the channel, and the job runs elsewhere).
    func attach(_ request: LeaseRequest, connection: AMQPConnection) throws(AMQPError) -> (amqp_channel_t, String) {
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

    func publishClaim(_ lease: inout HeldLease, connection: AMQPConnection) throws(AMQPError) {
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
    func claimArrived(on channel: amqp_channel_t, deliveryTag: UInt64, headers: [String: String],
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
    func tendLeases(_ connection: AMQPConnection) throws(AMQPError) {
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
    func fenceLeases() {
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

    func lost(_ lease: HeldLease, reason: String) {
        publishLeaseCount()
        if let waiter = lease.acquireWaiter {
            waiter.resume(.failed(reason: reason))
            return
        }
        log("lease of job \(lease.request.jobID) lost: \(reason)")
        lease.onLost(reason)
    }

    func release(jobID: String, connection: AMQPConnection) throws(AMQPError) {
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
        } catch {
            // The connection failed: the queues are deleted once it is back, like a release made while disconnected.
            pendingLeaseDeletes.insert(lease.request.queueName)
            if let exclusion = lease.request.exclusionQueueName { pendingLeaseDeletes.insert(exclusion) }
            throw error
        }
    }

    /// The connection is gone: every lease is detached (its claim is back in its queue, valid until it expires).
    func detachLeases(reason: String) {
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
    func reattachLeases(_ connection: AMQPConnection) throws(AMQPError) {
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
