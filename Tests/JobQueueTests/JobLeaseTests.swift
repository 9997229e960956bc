import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// Job leases against the real broker (docs/ARCHITECTURE.md §5, long jobs): exclusion, renewal, take-over, release.
// The time limit guards against a hang, not speed: each rabbitmqctl call boots an Erlang VM, which takes up to
// 20 s on a loaded machine.
@Suite("Job leases", .enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(3)))
struct JobLeaseTests {
    /// A worker-like connection with short lease timing (renew 0.5 s, orphaned after 3 s).
    private func worker(_ vhost: String, consumesJobs: Bool = false, log: LogLines = LogLines()) async throws -> BrokerConnection {
        // The test made the vhost (setupTestVhost): making it again here would close the connections of the
        // workers it already has.
        var configuration = try await TestBroker.configuration(vhost: vhost, creatingVhost: false)
        configuration.consumesJobs = consumesJobs
        configuration.consumesControl = false
        configuration.leaseTiming = LeaseTiming(renewInterval: .milliseconds(500), orphanAfter: .seconds(3))
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        try #require(await eventually { connection.isConnected }, "no connection: \(log.all)")
        return connection
    }

    private func request(_ id: String, holder: String) -> LeaseRequest {
        LeaseRequest(jobID: id, body: Array(#"{"id":"\#(id)"}"#.utf8), priority: 3,
                     headers: [JobLease.deathsHeader: "1"], holder: holder)
    }

    private func request(_ id: String, holder: String, jobClass: JobClass) -> LeaseRequest {
        LeaseRequest(jobID: id, body: Array(#"{"id":"\#(id)"}"#.utf8), priority: 3, headers: [:], holder: holder,
                     jobClass: jobClass)
    }

    private static func setupTestVhost(_ name: String) async throws {
        _ = try await TestBroker.configuration(vhost: name)
    }

    @Test("a lease is exclusive across connections; released, it can be taken again and nothing takes the job over")
    func exclusiveAndReleased() async throws {
        try await Self.setupTestVhost("jq-lease-x")
        let a = try await worker("jq-lease-x")
        let b = try await worker("jq-lease-x", consumesJobs: true)
        defer { a.close(); b.close() }
        let jobs = Collector(b.deliveries)
        #expect(await a.acquireLease(request("j1", holder: "a"), onLost: { _ in }) == .acquired)
        #expect(a.leasesHeld == 1)
        guard case let .heldElsewhere(reason) = await b.acquireLease(request("j1", holder: "b"), onLost: { _ in }) else {
            Issue.record("a second holder was let in")
            return
        }
        #expect(reason.contains("403"), "\(reason)")
        // Held past several renewals and past the claim TTL: a live holder's claim never expires.
        try await Task.sleep(for: .seconds(4))
        #expect(jobs.all.isEmpty, "the job was taken over from a live holder")
        await a.releaseLease(jobID: "j1")
        #expect(a.leasesHeld == 0)
        #expect(await b.acquireLease(request("j1", holder: "b"), onLost: { _ in }) == .acquired)
        await b.releaseLease(jobID: "j1")
        try await Task.sleep(for: .seconds(4))
        #expect(jobs.all.isEmpty, "a released lease left a claim behind")
        let queues = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-lease-x"), "--quiet", "--no-table-headers", "name"])
        #expect(!queues.contains(JobLease.queueName(jobID: "j1")), "\(queues)")
    }

    @Test("a holder that vanishes: its claim expires into sluice.jobs with the job, the holder and the deaths")
    func orphanedClaimIsTakenOver() async throws {
        try await Self.setupTestVhost("jq-lease-orphan")
        let holder = try await worker("jq-lease-orphan")
        let taker = try await worker("jq-lease-orphan", consumesJobs: true)
        defer { taker.close() }
        let jobs = Collector(taker.deliveries)
        #expect(await holder.acquireLease(request("j2", holder: "h"), onLost: { _ in }) == .acquired)
        // Gone without releasing the lease, as a crash: the broker returns the held claim to the lease queue.
        let vanished = ContinuousClock.now
        holder.close()
        let delivery = try #require(await jobs.wait(for: 1, timeout: .seconds(10)).first, "no take-over")
        // The claim expires 3 s after its last renewal (orphanAfter); the rest is the broker's dead-lettering and
        // delivery, given the margin of a loaded machine.
        #expect(ContinuousClock.now - vanished < .seconds(8))
        #expect(String(decoding: delivery.body, as: UTF8.self) == #"{"id":"j2"}"#)
        #expect(delivery.headers[JobLease.holderHeader] == "h")
        #expect(delivery.headers[JobLease.tokenHeader] != nil)
        #expect(delivery.headers[JobLease.deathsHeader] == "1")
        #expect(delivery.priority == 3)
        // The taker can hold it now: nobody else does.
        #expect(await taker.acquireLease(request("j2", holder: "t"), onLost: { _ in }) == .acquired)
        await taker.releaseLease(jobID: "j2")
    }

    @Test("a holder whose connection is cut reconnects and takes its lease again: not lost, no take-over")
    func reconnectKeepsOrLosesTheLease() async throws {
        try await Self.setupTestVhost("jq-lease-reconnect")
        let log = LogLines()
        let holder = try await worker("jq-lease-reconnect", log: log)
        defer { holder.close() }
        let lost = LogLines()
        #expect(await holder.acquireLease(request("j3", holder: "h"), onLost: lost.logger) == .acquired)
        try await PrivateBroker.ctl(["close_all_connections", "-p", PrivateBroker.vhost("jq-lease-reconnect"), "test: hiccup"])
        #expect(await eventually(timeout: .seconds(10)) { holder.generation == 2 && holder.isConnected })
        try await Task.sleep(for: .seconds(4))
        #expect(lost.all.isEmpty, "lost after a hiccup: \(lost.all) \(log.all)")
        #expect(holder.leasesHeld == 1)
        await holder.releaseLease(jobID: "j3")
    }

    @Test("an encode lease holds the live name too: a copy of the job classed live is refused both ways; released, both queues go")
    func encodeLeaseExcludesLiveCopies() async throws {
        try await Self.setupTestVhost("jq-lease-encode")
        let logA = LogLines(), logB = LogLines()
        let a = try await worker("jq-lease-encode", log: logA)
        let b = try await worker("jq-lease-encode", log: logB)
        defer { a.close(); b.close() }
        #expect(request("e1", holder: "a", jobClass: .encode).queueName == "sluice.encode-lease.e1")
        #expect(request("e1", holder: "a", jobClass: .encode).exclusionQueueName == "sluice.lease.e1")
        #expect(request("e1", holder: "a", jobClass: .live).exclusionQueueName == nil)
        #expect(await a.acquireLease(request("e1", holder: "a", jobClass: .encode), onLost: { _ in }) == .acquired)
        // A worker from before the encode class (or the same id re-enqueued as a copy job) asks for the live name.
        let liveCopy = await b.acquireLease(request("e1", holder: "b", jobClass: .live), onLost: { _ in })
        guard case let .heldElsewhere(reason) = liveCopy else {
            Issue.record("a live copy of a running encode job was not refused as held elsewhere: \(liveCopy); a: \(logA.all); b: \(logB.all)")
            return
        }
        #expect(reason.contains("403"), "\(reason)")
        let queues = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-lease-encode"), "--quiet", "--no-table-headers", "name", "messages", "consumers"])
        let rows = Dictionary(uniqueKeysWithValues: queues.split(separator: "\n").compactMap { line -> (String, [Int])? in
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count == 3, let messages = Int(fields[1]), let consumers = Int(fields[2]) else { return nil }
            return (String(fields[0]), [messages, consumers])
        })
        // One claim, or two for the moment of a renewal (the fresh claim is published before the held one is acked,
        // and a renewal is due every 0.5 s while rabbitmqctl takes seconds to answer).
        let claim = rows["sluice.encode-lease.e1"]
        #expect(claim?[1] == 1 && (1...2).contains(claim?[0] ?? 0), "the claim lives under the encode name: \(queues)")
        #expect(rows["sluice.lease.e1"] == [0, 1], "the live name is held, empty: \(queues)")
        await a.releaseLease(jobID: "e1")

        // The other way: a live copy job runs; an encode copy of it is refused at the live name.
        #expect(await b.acquireLease(request("e1", holder: "b", jobClass: .live), onLost: { _ in }) == .acquired)
        let encodeCopy = await a.acquireLease(request("e1", holder: "a", jobClass: .encode), onLost: { _ in })
        guard case .heldElsewhere = encodeCopy else {
            Issue.record("an encode copy of a running live job was not refused as held elsewhere: \(encodeCopy); a: \(logA.all); b: \(logB.all)")
            return
        }
        #expect(a.leasesHeld == 0)
        await b.releaseLease(jobID: "e1")
        #expect(await a.acquireLease(request("e1", holder: "a", jobClass: .encode), onLost: { _ in }) == .acquired)
        await a.releaseLease(jobID: "e1")
        let after = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-lease-encode"), "--quiet", "--no-table-headers", "name"])
        #expect(!after.contains("sluice.encode-lease.e1") && !after.contains("sluice.lease.e1"), "\(after)")
    }

    @Test("whether a job's lease still holds a claim: held, abandoned (the claim back in its queue), expired, released, never taken")
    func claimWaitsFollowsTheLease() async throws {
        try await Self.setupTestVhost("jq-lease-claim")
        let holder = try await worker("jq-lease-claim")
        let taker = try await worker("jq-lease-claim", consumesJobs: true)
        defer { holder.close(); taker.close() }
        let jobs = Collector(taker.deliveries)
        #expect(try holder.claimWaits(jobID: "c1") == false, "a job never leased has no claim")
        #expect(await holder.acquireLease(request("c1", holder: "h"), onLost: { _ in }) == .acquired)
        #expect(try holder.claimWaits(jobID: "c1"), "a held lease: the holder settles the job")
        // Left to lapse, as after a settle the broker did not confirm: the claim waits in its queue, unheld.
        await holder.abandonLease(jobID: "c1")
        #expect(holder.leasesHeld == 0)
        #expect(try await eventually { try taker.claimWaits(jobID: "c1") }, "the abandoned lease's claim is not in its queue")
        // The claim expires into sluice.jobs: then its queue holds nothing, and the copy that came is what settles it.
        let copy = try #require(await jobs.wait(for: 1, timeout: .seconds(10)).first, "the abandoned claim never expired")
        #expect(String(decoding: copy.body, as: UTF8.self) == #"{"id":"c1"}"#)
        #expect(try taker.claimWaits(jobID: "c1") == false, "an expired claim still counted")
        #expect(await taker.acquireLease(request("c1", holder: "t"), onLost: { _ in }) == .acquired)
        #expect(try holder.claimWaits(jobID: "c1"), "the taker's lease is not seen")
        await taker.releaseLease(jobID: "c1")
        #expect(try holder.claimWaits(jobID: "c1") == false, "a released lease still counted")
    }
}

