import Testing
@testable import JobQueue

/// The lease bookkeeping (docs/ARCHITECTURE.md §5) without a broker: every event the owner thread reports, and the actions it gets.
@Suite("LeaseBook")
struct LeaseBookTests {
    /// Renew every second; a claim lives 8 s, and the holder lets go 1 s before that (7 s after its last claim, with
    /// no heartbeat: the book has not seen a connection come up).
    static let timing = LeaseTiming(renewInterval: .seconds(1), orphanAfter: .seconds(8))
    let t0 = ContinuousClock.now

    static func request(_ jobID: String, _ jobClass: JobClass? = nil) -> LeaseRequest {
        LeaseRequest(jobID: jobID, body: Array("{\"id\":\"\(jobID)\"}".utf8), priority: 5,
                     headers: ["x-sluice-deaths": "0"], holder: "worker-a", jobClass: jobClass)
    }

    /// Headers of a claim this book published with `token`, `ageMs` milliseconds before `wall`.
    static func claim(_ token: String, wall: Int64 = 1_000_000, ageMs: Int64 = 0) -> [String: String] {
        [JobLease.tokenHeader: token, JobLease.holderHeader: "worker-a", JobLease.renewedAtHeader: String(wall - ageMs)]
    }

    /// A book holding `jobID` on channel 3, its first claim back (acquired).
    func held(_ jobID: String = "job-1", jobClass: JobClass? = nil) -> LeaseBook {
        var book = LeaseBook(timing: Self.timing, firstChannel: 3)
        let request = Self.request(jobID, jobClass)
        #expect(book.acquire(request) == .attach(channel: 3))
        #expect(book.attached(request, channel: 3, consumerTag: "ctag-1", token: "tok-1", now: t0)
            == [.publishClaim(request, token: "tok-1")])
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 1, headers: Self.claim("tok-1"), wallClockMilliseconds: 1_000_000, now: t0)
            == [.answer(jobID: jobID, .acquired)])
        return book
    }

    @Test("acquiring: attach on the lowest free channel, publish the first claim, answer when it comes back")
    func acquire() {
        var book = held()
        #expect(book.count == 1)
        // A second lease takes the next channel; the same job again is refused at once.
        #expect(book.acquire(Self.request("job-2")) == .attach(channel: 4))
        #expect(book.acquire(Self.request("job-1")) == .refuse(.heldElsewhere(reason: "this worker already holds the lease of job job-1")))
    }

    @Test("a newer claim of ours replaces the held one; a claim of another holder is acked and dropped")
    func claims() {
        var book = held()
        let t = t0 + .seconds(1)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 2, headers: Self.claim("tok-1"), wallClockMilliseconds: 1_001_000, now: t)
            == [.ack(deliveryTag: 1, channel: 3)])
        #expect(book.leases["job-1"]?.heldClaim == 2)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 3, headers: Self.claim("tok-old"), wallClockMilliseconds: 1_001_000, now: t)
            == [.ack(deliveryTag: 3, channel: 3), .log("dropped a stale claim of job job-1 from worker-a")])
        #expect(book.leases["job-1"]?.heldClaim == 2)
    }

    @Test("a delivery on a channel no lease holds, or to an earlier consumer of a reused channel, is never acked")
    func deliveriesOfClosedChannels() {
        var book = held()
        let t = t0 + .seconds(1)
        // Channel 9 was closed (a release, a fence, a refused attach) after the broker sent this: the broker took it
        // back already, and an ack on a closed channel would close the connection (504 CHANNEL_ERROR).
        #expect(book.claimArrived(on: 9, consumerTag: "ctag-7", deliveryTag: 7, headers: Self.claim("tok-1"),
                                  wallClockMilliseconds: 0, now: t) == [])
        // Released, then channel 3 reopened for another job: a claim read late from the first channel 3 is not
        // the new lease's (its delivery tag would name another message), even with a token this book knows.
        _ = book.release(jobID: "job-1")
        let next = Self.request("job-2")
        #expect(book.acquire(next) == .attach(channel: 3))
        _ = book.attached(next, channel: 3, consumerTag: "ctag-2", token: "tok-2", now: t)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 4, headers: Self.claim("tok-1"),
                                  wallClockMilliseconds: 1_001_000, now: t) == [])
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 5, headers: Self.claim("tok-2"),
                                  wallClockMilliseconds: 1_001_000, now: t) == [])
        #expect(book.leases["job-2"]?.acquiring == true)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-2", deliveryTag: 1, headers: Self.claim("tok-2"),
                                  wallClockMilliseconds: 1_001_000, now: t) == [.answer(jobID: "job-2", .acquired)])
    }

    @Test("an encode lease: a stale claim in its exclusion queue is acked and dropped; its own claim is held")
    func exclusionConsumer() {
        var book = LeaseBook(timing: Self.timing, firstChannel: 3)
        let request = Self.request("job-5", .encode)
        _ = book.attached(request, channel: 3, consumerTag: "ctag-lease", exclusionConsumerTag: "ctag-excl",
                          token: "tok-5", now: t0)
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-excl", deliveryTag: 1, headers: Self.claim("tok-dead"),
                                  wallClockMilliseconds: 1_000_000, now: t0)
            == [.ack(deliveryTag: 1, channel: 3), .log("dropped a stale claim of job job-5 from worker-a")])
        #expect(book.claimArrived(on: 3, consumerTag: "ctag-lease", deliveryTag: 2, headers: Self.claim("tok-5"),
                                  wallClockMilliseconds: 1_000_000, now: t0) == [.answer(jobID: "job-5", .acquired)])
        #expect(book.leases["job-5"]?.heldClaim == 2)
    }

    @Test("an edited job document: the next renewAndFence publishes a claim carrying it at once, and later claims keep it")
    func replacedBody() {
        var book = held()
        #expect(book.renewAndFence(now: t0 + .milliseconds(500)) == [])
        let edited = Array("{\"id\":\"job-1\",\"outputs\":[\"rtmp://b/live/k\"]}".utf8)
        book.replaceBody(jobID: "job-1", body: edited)
        var request = Self.request("job-1")
        request.body = edited
        #expect(book.renewAndFence(now: t0 + .milliseconds(600)) == [.publishClaim(request, token: "tok-1")])
        #expect(book.renewAndFence(now: t0 + .milliseconds(1_700)) == [.publishClaim(request, token: "tok-1")])
        // A job this book does not hold is left alone.
        book.replaceBody(jobID: "job-9", body: edited)
        #expect(book.count == 1)
    }

    @Test("renewal: a claim every renewInterval, none in between")
    func renewal() {
        var book = held()
        #expect(book.renewAndFence(now: t0 + .milliseconds(999)) == [])
        #expect(book.renewAndFence(now: t0 + .seconds(1)) == [.publishClaim(Self.request("job-1"), token: "tok-1")])
        #expect(book.renewAndFence(now: t0 + .milliseconds(1500)) == [])
        #expect(book.renewAndFence(now: t0 + .seconds(2)) == [.publishClaim(Self.request("job-1"), token: "tok-1")])
    }

    @Test("a pass with nothing due is skipped until the next renewal or lapse; a lease attached meanwhile keeps its own schedule")
    func quietPasses() {
        var book = held()
        #expect(book.renewAndFence(now: t0 + .milliseconds(100)) == [])
        let second = Self.request("job-2")
        #expect(book.acquire(second) == .attach(channel: 4))
        #expect(book.attached(second, channel: 4, consumerTag: "ctag-2", token: "tok-2", now: t0 + .milliseconds(200))
            == [.publishClaim(second, token: "tok-2")])
        #expect(book.renewAndFence(now: t0 + .milliseconds(300)) == [])
        #expect(book.renewAndFence(now: t0 + .seconds(1)) == [.publishClaim(Self.request("job-1"), token: "tok-1")])
        #expect(book.renewAndFence(now: t0 + .milliseconds(1_100)) == [])
        #expect(book.renewAndFence(now: t0 + .milliseconds(1_200)) == [.publishClaim(second, token: "tok-2")])
        // No claim of job-1 comes back after t0: renewed every second, it still lapses just after 7 s.
        for elapsed in 2...7 {
            #expect(book.renewAndFence(now: t0 + .seconds(elapsed)).contains(.publishClaim(Self.request("job-1"), token: "tok-1")))
        }
        #expect(book.renewAndFence(now: t0 + .milliseconds(7_001)) == [.lost(jobID: "job-1", reason: LeaseBook.unanswered), .closeChannel(3)])
        #expect(book.count == 1)
    }

    @Test("fencing: no claim back before the margin ahead of expiry loses the lease and closes its channel")
    func fencing() {
        var book = held()
        // Valid until t0 + 8 s − 1 s: still held at 7 s, lost just after.
        #expect(book.fence(now: t0 + .seconds(7)) == [])
        #expect(book.fence(now: t0 + .milliseconds(7001)) == [.lost(jobID: "job-1", reason: LeaseBook.unanswered), .closeChannel(3)])
        #expect(book.count == 0)
        // Its channel is free again.
        #expect(book.acquire(Self.request("job-2")) == .attach(channel: 3))
    }

    @Test("an old claim (renewed long ago on the wall clock) shortens the lease; a caller still acquiring is answered")
    func claimAge() {
        var book = LeaseBook(timing: Self.timing, firstChannel: 3)
        let request = Self.request("job-1")
        _ = book.attached(request, channel: 3, consumerTag: "ctag-1", token: "tok-1", now: t0)
        // Nothing came back in time: the caller, not the job, hears of it.
        #expect(book.fence(now: t0 + .seconds(8))
            == [.answer(jobID: "job-1", .failed(reason: LeaseBook.unanswered)), .closeChannel(3)])

        var aged = held()
        // Our claim came back 5 s after it was published: 8 − 5 − 1 = 2 s left.
        _ = aged.claimArrived(on: 3, consumerTag: "ctag-1", deliveryTag: 2, headers: Self.claim("tok-1", wall: 2_000_000, ageMs: 5000),
                              wallClockMilliseconds: 2_000_000, now: t0)
        #expect(aged.fence(now: t0 + .seconds(2)) == [])
        #expect(aged.fence(now: t0 + .milliseconds(2001)).count == 2)
    }

    @Test("release: the lease's queues (and an encode job's exclusion queue) are deleted on its channel")
    func release() {
        var book = held("job-9", jobClass: .encode)
        #expect(book.release(jobID: "job-9")
            == [.delete(jobID: "job-9", queues: ["sluice.encode-lease.job-9", "sluice.lease.job-9"], channel: 3)])
        #expect(book.count == 0)
        #expect(book.release(jobID: "job-9") == [])
        #expect(book.acquire(Self.request("job-2")) == .attach(channel: 3))
    }

    @Test("connection lost: leases detach, a caller still acquiring is answered, claims are no longer renewed")
    func connectionLost() {
        var book = held()
        let pending = Self.request("job-2")
        #expect(book.acquire(pending) == .attach(channel: 4))
        _ = book.attached(pending, channel: 4, consumerTag: "ctag-2", token: "tok-2", now: t0)
        #expect(book.connectionLost(reason: "socket closed") == [.answer(jobID: "job-2", .failed(reason: "socket closed"))])
        #expect(book.count == 1)
        #expect(book.leases["job-1"]?.attachment == nil)
        #expect(book.leases["job-1"]?.heldClaim == nil)
        #expect(book.channels.isEmpty)
        #expect(book.renewAndFence(now: t0 + .seconds(3)) == [])
    }

    @Test("restored: queues released while away are deleted if unused, then every lease is attached again")
    func restored() {
        var book = held()
        let other = Self.request("job-2", .batch)
        _ = book.acquire(other)
        _ = book.attached(other, channel: 4, consumerTag: "ctag-2", token: "tok-2", now: t0)
        _ = book.claimArrived(on: 4, consumerTag: "ctag-2", deliveryTag: 1, headers: Self.claim("tok-2"), wallClockMilliseconds: 1_000_000, now: t0)
        _ = book.connectionLost(reason: "gone")
        #expect(book.release(jobID: "job-2") == [])
        #expect(book.pendingDeletes == ["sluice.batch-lease.job-2"])
        #expect(book.connectionRestored(now: t0 + .seconds(2), heartbeat: .seconds(10))
            == [.deleteIfUnused(queue: "sluice.batch-lease.job-2", channel: 3), .reattach(Self.request("job-1"), channel: 3)])
        #expect(book.pendingDeletes.isEmpty)
        book.reattached(jobID: "job-1", channel: 3, consumerTag: "ctag-9")
        #expect(book.leases["job-1"]?.attachment == LeaseBook.Attachment(channel: 3, consumerTag: "ctag-9"))
        // Reattached: a fresh claim goes out at once, whatever the interval.
        #expect(book.renewAndFence(now: t0 + .seconds(2)) == [.publishClaim(Self.request("job-1"), token: "tok-1")])
    }

    @Test("restored: a lease that lapsed while away is lost, not taken again; one another worker took over is lost")
    func takeOver() {
        var book = held()
        var second = Self.request("job-2")
        second.headers["x-sluice-attempt"] = "2"
        _ = book.acquire(second)
        _ = book.attached(second, channel: 4, consumerTag: "ctag-2", token: "tok-2", now: t0 + .seconds(5))
        _ = book.claimArrived(on: 4, consumerTag: "ctag-2", deliveryTag: 1, headers: Self.claim("tok-2"), wallClockMilliseconds: 1_000_000, now: t0 + .seconds(5))
        _ = book.connectionLost(reason: "gone")
        let actions = book.connectionRestored(now: t0 + .seconds(8), heartbeat: .seconds(10))
        #expect(actions == [.lost(jobID: "job-1", reason: LeaseBook.lapsedWhileAway),
                            .reattach(second, channel: 3)])
        #expect(book.reattachRefused(jobID: "job-2", channel: 3, refusal: "403 ACCESS_REFUSED")
            == [.lost(jobID: "job-2", reason: "another worker holds it now (403 ACCESS_REFUSED): the job was taken over while this worker was away from the broker")])
        #expect(book.count == 0)
        #expect(book.channels.isEmpty)
    }

    @Test("a delete the connection broke under is retried after the reconnect")
    func interruptedDelete() {
        var book = held()
        _ = book.release(jobID: "job-1")
        book.deleteInterrupted(queues: ["sluice.lease.job-1"])
        _ = book.connectionLost(reason: "gone")
        #expect(book.connectionRestored(now: t0, heartbeat: .seconds(10)) == [.deleteIfUnused(queue: "sluice.lease.job-1", channel: 3)])
    }

    @Test("abandon: nothing is deleted, now or after the reconnect; attached, the channel closes so the held claim returns to its queue")
    func abandon() {
        var book = held()
        let line = LeaseBook.Action.log("left the lease of job job-1 to lapse: its claim expires into sluice.jobs and the job is taken over")
        #expect(book.abandon(jobID: "job-1") == [.closeChannel(3), line])
        #expect(book.count == 0)
        #expect(book.channels.isEmpty)
        #expect(book.pendingDeletes.isEmpty)
        #expect(book.abandon(jobID: "job-1") == [])
        #expect(book.renewAndFence(now: t0 + .seconds(30)) == [])

        // Detached (the publish failed with the connection): the claim is back in its queue; a reconnect neither deletes
        // it nor takes the lease again, so it expires into sluice.jobs.
        var away = held()
        _ = away.connectionLost(reason: "gone")
        #expect(away.abandon(jobID: "job-1") == [.log("left the lease of job job-1 to lapse: its claim expires into sluice.jobs and the job is taken over")])
        #expect(away.connectionRestored(now: t0 + .seconds(1), heartbeat: .seconds(10)) == [])
        #expect(away.pendingDeletes.isEmpty)

        // A release in the same place would delete the claim after the reconnect: the job would be gone.
        var released = held()
        _ = released.connectionLost(reason: "gone")
        #expect(released.release(jobID: "job-1") == [])
        #expect(released.connectionRestored(now: t0 + .seconds(1), heartbeat: .seconds(10))
            == [.deleteIfUnused(queue: "sluice.lease.job-1", channel: 3)])
    }

    @Test("the broker cancelling a lease consumer, or closing its channel, loses the lease")
    func brokerEnds() {
        var book = held()
        #expect(book.consumerCancelled(tag: "someone-else") == [])
        #expect(book.consumerCancelled(tag: "ctag-1")
            == [.closeChannel(3), .lost(jobID: "job-1", reason: "the broker cancelled its lease consumer (the lease queue was deleted)")])
        var closed = held()
        #expect(closed.channelClosed(5, error: "406") == [])
        #expect(closed.channelClosed(3, error: "406 PRECONDITION_FAILED")
            == [.lost(jobID: "job-1", reason: "the broker closed its lease channel: 406 PRECONDITION_FAILED")])
        #expect(closed.count == 0)
    }
}
