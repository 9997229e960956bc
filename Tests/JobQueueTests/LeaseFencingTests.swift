import Testing
@testable import JobQueue

/// How long a lease is kept (docs/ARCHITECTURE.md §5, fencing), with the worker's default timing: claims live 3 s and
/// are renewed every second, the holder lets go 0.5 s early, and the connection's heartbeat timeout is 10 s.
@Suite("LeaseBook fencing")
struct LeaseFencingTests {
    static let timing = LeaseTiming(orphanAfter: .seconds(3))
    static let heartbeat = Duration.seconds(10)
    let t0 = ContinuousClock.now
    /// The wall clock (milliseconds) at `t0`.
    static let wall0: Int64 = 5_000_000

    static func request(_ jobID: String) -> LeaseRequest {
        LeaseRequest(jobID: jobID, body: Array("{\"id\":\"\(jobID)\"}".utf8), priority: nil, headers: [:], holder: "worker-a")
    }

    /// Headers of a claim of ours published at `sentAt` milliseconds after `t0`.
    static func claim(sentAt: Int64) -> [String: String] {
        [JobLease.tokenHeader: "tok-1", JobLease.holderHeader: "worker-a", JobLease.renewedAtHeader: String(wall0 + sentAt)]
    }

    /// `t0` plus some milliseconds.
    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    /// A book on a connection with `heartbeat`, holding job-1 on channel 3, its first claim (delivery 1) back at `t0`.
    func held(heartbeat: Duration = heartbeat) -> LeaseBook {
        var book = LeaseBook(timing: Self.timing, firstChannel: 3)
        #expect(book.connectionRestored(now: t0, heartbeat: heartbeat) == [])
        let request = Self.request("job-1")
        #expect(book.acquire(request) == .attach(channel: 3))
        _ = book.attached(request, channel: 3, consumerTag: "ctag-1", token: "tok-1", now: t0)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 1, headers: Self.claim(sentAt: 0),
                                  wallClockMilliseconds: Self.wall0, now: t0) == [.answer(jobID: "job-1", .acquired)])
        return book
    }

    @Test("the worker's timing: claims renewed every third of their TTL, the margin a sixth of it (at most 1 s)")
    func workerTiming() {
        #expect(Self.timing.renewInterval == .seconds(1) && Self.timing.orphanAfter == .seconds(3))
        #expect(Self.timing.safetyMargin == .milliseconds(500))
        let long = LeaseTiming(orphanAfter: .seconds(15))
        #expect(long.renewInterval == .seconds(5) && long.safetyMargin == .seconds(1))
    }

    @Test("kill -9 at any moment: the claim left behind is never older than the renewal interval, so it expires within the TTL")
    func killedHolderLeavesAFreshClaim() {
        var book = held()
        var tag: UInt64 = 1
        var oldest = Duration.zero
        // Ten seconds of renewals whose claims come back 30 ms after they went out; a kill could come at any step.
        for step in stride(from: Int64(10), through: 10_000, by: 10) {
            for action in book.renewAndFence(now: at(step)) {
                guard case .publishClaim = action else {
                    Issue.record("unexpected \(action) at \(step) ms")
                    continue
                }
                tag += 1
                _ = book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: tag, headers: Self.claim(sentAt: step),
                                      wallClockMilliseconds: Self.wall0 + step + 30, now: at(step + 30))
            }
            guard let held = book.leases["job-1"] else {
                Issue.record("the lease was lost at \(step) ms")
                return
            }
            oldest = max(oldest, at(step) - held.claimSentAt)
        }
        // The held claim expires at its publication + 3 s: between 2 s and 3 s after a kill.
        #expect(oldest <= .milliseconds(1040), "held a claim \(oldest) old")
        #expect(book.count == 1)
    }

    @Test("partition: nothing comes back; the lease is kept for the heartbeat timeout less the margin, then fenced")
    func partition() {
        var book = held()
        // Renewals go out and nothing comes back: the broker cannot drop us before it went 10 s without hearing us.
        var renewals = 0
        for step in stride(from: Int64(100), through: 9_500, by: 100) {
            let actions = book.renewAndFence(now: at(step))
            #expect(!actions.contains { if case .lost = $0 { true } else { false } }, "fenced at \(step) ms")
            renewals += actions.count
        }
        #expect(renewals == 9)
        #expect(book.renewAndFence(now: at(9_501)) == [.lost(jobID: "job-1", reason: LeaseBook.unanswered), .closeChannel(3)])
        #expect(book.count == 0)
    }

    @Test("partition with a heartbeat shorter than the claims (or none): the claim TTL bounds the lease")
    func shortHeartbeat() {
        for heartbeat in [Duration.seconds(2), .zero] {
            var book = held(heartbeat: heartbeat)
            #expect(book.fence(now: at(2_500)) == [])
            #expect(book.fence(now: at(2_501)).count == 2, "heartbeat \(heartbeat)")
        }
    }

    @Test("slow renewals: a claim that comes back late keeps the lease from when it was published, not from its arrival")
    func slowRenewals() {
        var book = held()
        _ = book.renewAndFence(now: at(1_000))
        // Published at 1 s, back at 8 s: valid until 1 + 10 − 0.5 s.
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 2, headers: Self.claim(sentAt: 1_000),
                                  wallClockMilliseconds: Self.wall0 + 8_000, now: at(8_000)) == [.ack(deliveryTag: 1, channel: 3)])
        #expect(book.leases["job-1"]?.claimSentAt == at(1_000))
        #expect(book.fence(now: at(10_500)) == [])
        #expect(book.fence(now: at(10_501)).count == 2)
    }

    @Test("connection lost and back within the claim's TTL: the lease is kept, and bounded by the heartbeat again once reattached")
    func reconnectWithinTheBound() {
        var book = held()
        _ = book.renewAndFence(now: at(1_000))
        _ = book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 2, headers: Self.claim(sentAt: 1_000),
                              wallClockMilliseconds: Self.wall0 + 1_020, now: at(1_020))
        #expect(book.connectionLost(reason: "socket closed") == [])
        // The broker may have dropped us at once: our claim expires 3 s after it went out, so the lease ends at 3.5 s.
        #expect(book.earliestDeadline == at(3_500))
        #expect(book.fence(now: at(3_000)) == [])
        #expect(book.connectionRestored(now: at(3_400), heartbeat: Self.heartbeat) == [.reattach(Self.request("job-1"), channel: 3)])
        book.reattached(jobID: "job-1", channel: 3, consumerTag: "ctag-2")
        // Attached to a live connection again: the heartbeat timeout bounds it, from the claim the broker gave back.
        #expect(book.fence(now: at(3_600)) == [])
        #expect(book.earliestDeadline == at(10_500))
        #expect(book.renewAndFence(now: at(3_600)) == [.publishClaim(Self.request("job-1"), token: "tok-1")])
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-2", deliveryTag: 1, headers: Self.claim(sentAt: 1_000),
                                  wallClockMilliseconds: Self.wall0 + 3_610, now: at(3_610)) == [])
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-2", deliveryTag: 2, headers: Self.claim(sentAt: 3_600),
                                  wallClockMilliseconds: Self.wall0 + 3_620, now: at(3_620)) == [.ack(deliveryTag: 1, channel: 3)])
        #expect(book.earliestDeadline == at(13_100))
        #expect(book.count == 1)
    }

    @Test("connection lost and back past the claim's TTL: the lease was fenced while away and is not taken again")
    func reconnectPastTheBound() {
        var book = held()
        #expect(book.connectionLost(reason: "socket closed") == [])
        // Still away at 2.5 s: lost then, before another worker could run the job.
        #expect(book.fence(now: at(2_500)) == [])
        #expect(book.fence(now: at(2_501)) == [.lost(jobID: "job-1", reason: LeaseBook.lapsedWhileAway)])
        #expect(book.connectionRestored(now: at(4_000), heartbeat: Self.heartbeat) == [])

        // The same when the connection comes back before any fence ran: restoring fences first.
        var late = held()
        _ = late.connectionLost(reason: "socket closed")
        #expect(late.connectionRestored(now: at(2_501), heartbeat: Self.heartbeat)
            == [.lost(jobID: "job-1", reason: LeaseBook.lapsedWhileAway)])
        #expect(late.count == 0 && late.channels.isEmpty)
    }

    @Test("the earliest deadline is the first lease to lapse; none without leases")
    func earliestDeadline() {
        var book = LeaseBook(timing: Self.timing, firstChannel: 3)
        #expect(book.earliestDeadline == nil)
        book = held()
        let second = Self.request("job-2")
        #expect(book.acquire(second) == .attach(channel: 4))
        _ = book.attached(second, channel: 4, consumerTag: "ctag-9", token: "tok-9", now: at(2_000))
        #expect(book.earliestDeadline == at(9_500))
        _ = book.release(jobID: "job-1")
        #expect(book.earliestDeadline == at(11_500))
    }
}
