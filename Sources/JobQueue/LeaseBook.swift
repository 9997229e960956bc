// docs/ARCHITECTURE.md §5 (leases; see `JobLease`): the bookkeeping of the leases a worker holds, as a state
// machine with no I/O and no clock, so take-over, renewal, fencing and release are tested without a broker.
//
// Fencing: another worker can take a job over only once the broker has dropped the holder's consumer *and* a claim
// left in the lease queue has expired. A claim that came back proves the broker heard this worker when it was
// published, and a broker drops a connection it stops hearing from no sooner than one heartbeat timeout later; a
// claim expires `orphanAfter` after it was published. So a lease is kept until its held claim's publication plus the larger of
// the two while connected (the broker may be cut off from us but cannot have dropped us sooner), and plus
// `orphanAfter` alone once the connection is known lost (the broker may have dropped it at that moment), less the
// safety margin either way.

/// The leases one worker holds: the broker connection's owner thread tells it what happened (a lease attached, a
/// claim came back, time passed, the connection went or came back, a release) and performs the actions it returns,
/// in order, on the lease channels (`BrokerConnection+Leases.swift`). Like `ConnectionLifecycle`, it never
/// touches the network: every instant is given, and so is every token.
///
///     acquire ─attach→ attached (acquiring) ─claim back→ held ─renew due→ publish claim …
///     held ─connection lost→ detached ─restored→ reattach ─refused→ lost (taken over elsewhere)
///     any ─past validUntil(_:)→ lost (fenced)    any ─release→ queues deleted (now, or after the reconnect)
///     any ─abandon→ forgotten, claims left in the queue (they expire into `sluice.jobs`: a take-over)
struct LeaseBook: Sendable {
    /// An AMQP channel number (`amqp_channel_t`).
    typealias Channel = UInt16

    /// Where a lease is attached on the current connection.
    struct Attachment: Equatable, Sendable {
        var channel: Channel
        /// The consumer of the lease queue.
        var consumerTag: String
        /// The consumer of an encode job's exclusion queue, on the same channel.
        var exclusionConsumerTag: String?

        init(channel: Channel, consumerTag: String, exclusionConsumerTag: String? = nil) {
            self.channel = channel
            self.consumerTag = consumerTag
            self.exclusionConsumerTag = exclusionConsumerTag
        }

        /// Whether a delivery to `tag` is for one of this attachment's consumers (and not for a consumer of an
        /// earlier channel of the same number, whose frames may still be read after it closed).
        func owns(consumerTag tag: String) -> Bool {
            tag == consumerTag || tag == exclusionConsumerTag
        }
    }

    /// One lease this worker holds.
    struct Lease: Equatable, Sendable {
        var request: LeaseRequest
        /// Random per lease: claims carrying another token are stale and dropped.
        let token: String
        /// The lease's channel and consumer while attached to the current connection; nil while detached.
        var attachment: Attachment?
        /// The claim delivered to us and not yet acked (at most one: a newer one replaces it).
        var heldClaim: UInt64?
        /// When the last fresh claim was published; nil: publish one at the next tending.
        var lastPublish: ContinuousClock.Instant?
        /// When the held claim was published (before it came back: when the lease was attached). The broker heard
        /// this worker then, and the claim expires `orphanAfter` later once nobody holds it.
        var claimSentAt: ContinuousClock.Instant
        /// The caller of `acquireLease` still waits for the first claim to come back.
        var acquiring: Bool
    }

    /// The first step of taking a lease.
    enum AcquireStep: Equatable, Sendable {
        /// Answer the caller at once.
        case refuse(LeaseOutcome)
        /// Open this channel and consume the lease's queues exclusively, then report `attached` (or the refusal).
        case attach(channel: Channel)
    }

    /// What the owner thread must do, in order.
    enum Action: Equatable, Sendable {
        /// Answer the caller of `acquireLease` for this job.
        case answer(jobID: String, LeaseOutcome)
        /// Publish a fresh claim of the lease (per-message TTL `orphanAfter`) carrying its token.
        case publishClaim(LeaseRequest, token: String)
        /// basic.ack of a claim on its lease channel.
        case ack(deliveryTag: UInt64, channel: Channel)
        /// Delete a released lease's queues (its claims go with them) on its channel, then close the channel.
        /// A connection that fails under it is reported with `deleteInterrupted`.
        case delete(jobID: String, queues: [String], channel: Channel)
        /// Delete a queue released while disconnected, unless someone consumes it (a worker that took the job
        /// over keeps its lease), on a channel opened and closed for it.
        case deleteIfUnused(queue: String, channel: Channel)
        /// Attach a lease again on a new connection; report `reattached` or `reattachRefused`.
        case reattach(LeaseRequest, channel: Channel)
        /// Close a lease channel: the consumer goes with it, and a held claim returns to the queue.
        case closeChannel(Channel)
        /// The lease is gone: its job must stop at once, because another worker may take it over.
        case lost(jobID: String, reason: String)
        /// A line for the worker's log.
        case log(String)
    }

    let timing: LeaseTiming
    /// The heartbeat timeout negotiated on the current (or last) connection; zero: none, or not connected yet.
    private(set) var heartbeat: Duration = .zero { didSet { quietUntil = nil } }
    /// The lowest channel number a lease may use (those below belong to the jobs, publishes and control).
    let firstChannel: Channel
    /// The leases held, by job id.
    private(set) var leases: [String: Lease] = [:] { didSet { quietUntil = nil } }
    /// Until when `renewAndFence` has nothing to do: no renewal is due and no lease lapses before it (what its last
    /// pass found; any change to the leases forgets it). The serve loop turns with every frame the broker sends, a few
    /// hundred times a second with a hundred leases, and each turn walked every lease.
    private var quietUntil: ContinuousClock.Instant?
    /// The job whose lease is attached (or being reattached) on each channel.
    private(set) var channels: [Channel: String] = [:]
    /// Lease queues of released jobs still to delete once the broker is reachable.
    private(set) var pendingDeletes: Set<String> = []

    /// - Parameters:
    ///   - timing: renewal interval, claim TTL and safety margin.
    ///   - firstChannel: the lowest channel number leases may use.
    init(timing: LeaseTiming, firstChannel: Channel) {
        self.timing = timing
        self.firstChannel = firstChannel
    }

    /// Leases held now (for metrics).
    var count: Int { leases.count }

    /// Past this instant another worker may run the lease's job: its claim may have expired in the broker.
    func validUntil(_ lease: Lease) -> ContinuousClock.Instant {
        // Attached: the broker drops our consumer no sooner than a heartbeat timeout after it last heard us, and
        // the claims it then returns expire no sooner than `orphanAfter` after they were published.
        let bound = lease.attachment == nil ? timing.orphanAfter : max(timing.orphanAfter, heartbeat)
        return lease.claimSentAt + bound - timing.safetyMargin
    }

    /// The first instant a lease lapses (nil: none held): the owner thread bounds its blocking calls by it, so that
    /// a broker that stops answering mid-call cannot hold a fence up.
    var earliestDeadline: ContinuousClock.Instant? {
        leases.values.reduce(nil) { earliest, lease in min(earliest ?? validUntil(lease), validUntil(lease)) }
    }

    /// The lowest channel number no lease is attached on.
    var freeChannel: Channel {
        var channel = firstChannel
        while channels[channel] != nil { channel += 1 }
        return channel
    }

    // MARK: Acquire

    /// A worker asks for a job's lease.
    mutating func acquire(_ request: LeaseRequest) -> AcquireStep {
        guard leases[request.jobID] == nil else {
            return .refuse(.heldElsewhere(reason: "this worker already holds the lease of job \(request.jobID)"))
        }
        return .attach(channel: freeChannel)
    }

    /// The lease's queues are consumed exclusively on `channel`: publish the first claim, and answer the caller
    /// once it comes back.
    mutating func attached(_ request: LeaseRequest, channel: Channel, consumerTag: String,
                           exclusionConsumerTag: String? = nil, token: String,
                           now: ContinuousClock.Instant) -> [Action] {
        let attachment = Attachment(channel: channel, consumerTag: consumerTag, exclusionConsumerTag: exclusionConsumerTag)
        leases[request.jobID] = Lease(request: request, token: token, attachment: attachment,
                                      lastPublish: now, claimSentAt: now, acquiring: true)
        channels[channel] = request.jobID
        return [.publishClaim(request, token: token)]
    }

    // MARK: Claims and time

    /// A claim came back on a lease channel: keep ours (ack the one it replaces), drop anyone else's.
    ///
    /// A delivery to no consumer of an attached lease is left alone, never acked: its channel was closed (a
    /// release, a fence, a refused attach) after the broker sent it, so the broker already took it back (or
    /// deleted it with its queue). An ack on that closed channel would make the broker close the whole connection
    /// (504 CHANNEL_ERROR), and on a reopened channel of the same number it would name another delivery.
    /// - Parameters:
    ///   - consumerTag: the consumer the delivery is for.
    ///   - headers: the claim's headers (token, holder, renewed-at).
    ///   - wallClockMilliseconds: now, on the wall clock that claims carry between workers.
    ///   - now: now, on the monotonic clock.
    mutating func claimArrived(on channel: Channel, consumerTag: String, deliveryTag: UInt64, headers: [String: String],
                               wallClockMilliseconds: Int64, now: ContinuousClock.Instant) -> [Action] {
        guard let jobID = channels[channel], var lease = leases[jobID], let attachment = lease.attachment,
              attachment.channel == channel, attachment.owns(consumerTag: consumerTag) else {
            return []
        }
        guard headers[JobLease.tokenHeader] == lease.token else {
            // A claim of an earlier holder (a hand-over, or a worker that died): its job runs here now.
            return [.ack(deliveryTag: deliveryTag, channel: channel),
                    .log("dropped a stale claim of job \(jobID) from \(headers[JobLease.holderHeader] ?? "an unknown holder")")]
        }
        var actions: [Action] = []
        if let old = lease.heldClaim { actions.append(.ack(deliveryTag: old, channel: channel)) }
        lease.heldClaim = deliveryTag
        let renewedAt = Int64(headers[JobLease.renewedAtHeader] ?? "") ?? 0
        let age = Duration.milliseconds(max(0, wallClockMilliseconds - renewedAt))
        // The claim now held decides; an older one of ours redelivered after a reconnect counts from its own publication.
        lease.claimSentAt = now - min(age, max(timing.orphanAfter, heartbeat))
        if lease.acquiring {
            lease.acquiring = false
            actions.append(.answer(jobID: jobID, .acquired))
        }
        leases[jobID] = lease
        return actions
    }

    /// Each turn of the serve loop: renew the claims that are due, and give up the leases that lapsed.
    mutating func renewAndFence(now: ContinuousClock.Instant) -> [Action] {
        if let quietUntil, now < quietUntil { return [] }
        var actions: [Action] = []
        // Only the due ones are sorted (the actions' order is the job ids'), not every lease on every pass.
        let due = leases.compactMap { jobID, lease in
            lease.attachment != nil && lease.lastPublish.map({ now - $0 >= timing.renewInterval }) ?? true ? jobID : nil
        }
        for jobID in due.sorted() {
            guard var lease = leases[jobID] else { continue }
            lease.lastPublish = now
            leases[jobID] = lease
            actions.append(.publishClaim(lease.request, token: lease.token))
        }
        actions += fence(now: now)
        quietUntil = leases.values.reduce(nil) { quiet, lease in
            // A detached lease renews nothing; a lapse counts from the first instant past `validUntil`.
            let renewal = lease.attachment == nil ? nil : lease.lastPublish.map { $0 + timing.renewInterval }
            let next = min(renewal ?? validUntil(lease), validUntil(lease))
            return min(quiet ?? next, next)
        }
        return actions
    }

    /// A lease whose claim could have expired in the broker by now is lost: another worker may run the job.
    mutating func fence(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        let lapsed = leases.compactMap { jobID, lease in now > validUntil(lease) ? jobID : nil }
        for jobID in lapsed.sorted() {
            guard let lease = leases[jobID] else { continue }
            leases[jobID] = nil
            // The job first: closing the channel is a call that a broker which stopped answering holds up.
            actions.append(ending(lease, reason: lease.attachment == nil ? LeaseBook.lapsedWhileAway : LeaseBook.unanswered))
            if let channel = lease.attachment?.channel {
                channels[channel] = nil
                // Our consumer goes with the channel; a held claim returns to the queue and takes its course.
                actions.append(.closeChannel(channel))
            }
        }
        return actions
    }

    /// Why a lease attached to a live connection was fenced.
    static let unanswered = "no claim of the lease came back from the broker before it could have handed the job to another worker"
    /// Why a lease was fenced while its connection was down.
    static let lapsedWhileAway = "the broker connection was lost and not restored before the lease's claim could expire"

    /// The job's document changed while it runs (an output edit): later claims carry `body`, and the next `renewAndFence`
    /// renews the claim at once, so a worker that takes the job over runs the edited job.
    mutating func replaceBody(jobID: String, body: [UInt8]) {
        guard var lease = leases[jobID] else { return }
        lease.request.body = body
        lease.lastPublish = nil
        leases[jobID] = lease
    }

    // MARK: Release

    /// The job ended: delete its lease queues (claims included) so nothing takes it over; while detached, once
    /// the connection is back.
    mutating func release(jobID: String) -> [Action] {
        guard let lease = leases.removeValue(forKey: jobID) else { return [] }
        guard let channel = lease.attachment?.channel else {
            pendingDeletes.formUnion(LeaseBook.queues(of: lease.request))
            return []
        }
        channels[channel] = nil
        return [.delete(jobID: jobID, queues: LeaseBook.queues(of: lease.request), channel: channel)]
    }

    /// The job's next step could not be confirmed by the broker (the publish of its retry, hand-back or dead letter
    /// failed): nothing is deleted, so the claims stay in the lease queue, and the job goes on from there. Attached,
    /// the channel is closed: the consumer goes with it, the held claim returns to the queue with its original expiry,
    /// expires into `sluice.jobs` and any worker takes the job over. Detached, the claim is back in its queue already.
    mutating func abandon(jobID: String) -> [Action] {
        guard let lease = leases.removeValue(forKey: jobID) else { return [] }
        let line = Action.log("left the lease of job \(jobID) to lapse: its claim expires into \(Topology.jobsQueue) and the job is taken over")
        guard let channel = lease.attachment?.channel else { return [line] }
        channels[channel] = nil
        return [.closeChannel(channel), line]
    }

    /// The connection failed under a delete: the queues are deleted after the reconnect.
    mutating func deleteInterrupted(queues: [String]) {
        pendingDeletes.formUnion(queues)
    }

    // MARK: The connection

    /// The connection is gone: every lease is detached (its claim may be back in its queue, expiring `orphanAfter`
    /// after it was published, so the lease is valid that long only); a caller still waiting for its first claim is answered.
    mutating func connectionLost(reason: String) -> [Action] {
        channels.removeAll()
        var actions: [Action] = []
        for jobID in leases.keys.sorted() {
            guard var lease = leases[jobID] else { continue }
            if lease.acquiring {
                leases[jobID] = nil
                actions.append(.answer(jobID: jobID, .failed(reason: reason)))
                continue
            }
            lease.attachment = nil
            lease.heldClaim = nil
            leases[jobID] = lease
        }
        return actions
    }

    /// A new connection is up: delete what was released meanwhile, give up what lapsed, and take every other
    /// lease again (or learn that another worker has taken its job over).
    /// - Parameters:
    ///   - now: now.
    ///   - heartbeat: the heartbeat timeout negotiated on the new connection (zero: none).
    mutating func connectionRestored(now: ContinuousClock.Instant, heartbeat: Duration) -> [Action] {
        self.heartbeat = heartbeat
        var actions: [Action] = pendingDeletes.sorted().map { .deleteIfUnused(queue: $0, channel: freeChannel) }
        pendingDeletes.removeAll()
        actions += fence(now: now)
        for jobID in leases.keys.sorted() {
            guard var lease = leases[jobID] else { continue }
            let channel = freeChannel
            channels[channel] = jobID
            lease.attachment = nil
            lease.lastPublish = nil
            leases[jobID] = lease
            actions.append(.reattach(lease.request, channel: channel))
        }
        return actions
    }

    /// A lease is consumed exclusively again on its reserved channel; its next tending publishes a claim.
    mutating func reattached(jobID: String, channel: Channel, consumerTag: String, exclusionConsumerTag: String? = nil) {
        guard var lease = leases[jobID], channels[channel] == jobID else { return }
        lease.attachment = Attachment(channel: channel, consumerTag: consumerTag, exclusionConsumerTag: exclusionConsumerTag)
        leases[jobID] = lease
    }

    /// The broker refused to attach a lease again: another worker holds it now.
    /// - Parameter refusal: the broker's reply code and text.
    mutating func reattachRefused(jobID: String, channel: Channel, refusal: String) -> [Action] {
        if channels[channel] == jobID { channels[channel] = nil }
        guard let lease = leases.removeValue(forKey: jobID) else { return [] }
        return [ending(lease, reason: "another worker holds it now (\(refusal)): the job was taken over while this worker was away from the broker")]
    }

    /// The broker cancelled a consumer that is not one of the connection's own: a lease's queue was deleted (by
    /// an operator, or under us).
    mutating func consumerCancelled(tag: String) -> [Action] {
        guard let (jobID, lease) = leases.first(where: { $0.value.attachment?.consumerTag == tag }) else { return [] }
        leases[jobID] = nil
        var actions: [Action] = []
        if let channel = lease.attachment?.channel {
            channels[channel] = nil
            actions.append(.closeChannel(channel))
        }
        actions.append(ending(lease, reason: "the broker cancelled its lease consumer (the lease queue was deleted)"))
        return actions
    }

    /// The broker closed a lease channel (the channel is already gone).
    /// - Parameter error: what the broker said.
    mutating func channelClosed(_ channel: Channel, error: String) -> [Action] {
        guard let jobID = channels.removeValue(forKey: channel), let lease = leases.removeValue(forKey: jobID) else { return [] }
        return [ending(lease, reason: "the broker closed its lease channel: \(error)")]
    }

    // MARK: Helpers

    /// How a lease that ends without a release is reported: to a caller still acquiring it, or to its job.
    private func ending(_ lease: Lease, reason: String) -> Action {
        lease.acquiring ? .answer(jobID: lease.request.jobID, .failed(reason: reason)) : .lost(jobID: lease.request.jobID, reason: reason)
    }

    /// A lease's queues: the lease queue, and the exclusion queue an encode job also holds.
    static func queues(of request: LeaseRequest) -> [String] {
        [request.queueName] + (request.exclusionQueueName.map { [$0] } ?? [])
    }
}
