import Foundation
import JobQueue
import JobStore
@testable import Sluice
import SluiceTestSupport
import Testing

/// How fast a restream comes back when the worker that runs it goes, and that it never runs twice
/// (docs/ARCHITECTURE.md §5, fencing): kill -9, SIGTERM, and a worker cut off from the broker. nginx-rtmp's statistics
/// page, sampled every 200 ms, is the referee; the bounds are generous (speed is measured by `scripts/bench takeover`).
@Suite("Take-over timing", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct TakeOverTimingTests {
    @Test("kill -9 of the holder: the destination has a new publisher within 10 s, and the job's record shows the take-over")
    func killedHolder() async throws {
        let (fixture, holder, other, first) = try await LongRestream.running("fast-kill", settle: .seconds(4))
        let killed = ContinuousClock.now
        holder.process.kill(SIGKILL)
        let watch = try await fixture.watchDestination(until: .seconds(20), every: .milliseconds(200)) {
            try fixture.publishers(of: fixture.destination).contains { !first.contains($0) }
        }
        let resumed = try #require(watch.firstPublish(notIn: first), "never resumed: \(fixture.diagnosis(other))")
        #expect(resumed - killed < .seconds(10), "resumed \(resumed - killed) after the kill")
        #expect(watch.maxPublishers == 1)
        // Recorded with the first progress that shows output (every second).
        let recorded = try await eventually(timeout: .seconds(10)) { try fixture.store(other.id).job(id: fixture.id)?.takeovers == 1 }
        let record = try fixture.store(other.id).job(id: fixture.id)
        #expect(recorded, "\(String(describing: record))")
        let events = try fixture.store(other.id).events(jobID: fixture.id)
        #expect(events.contains { $0.kind == .takeover && $0.message?.contains("from worker \(holder.id)") == true },
                "\(events.map { $0.message ?? "" })")
        print("take-over after kill -9: \(resumed - killed) until the destination had a publisher again")
    }

    @Test("SIGTERM of the holder: handed over to exactly one of two other workers, and no copy runs after it")
    func handedOverOnce() async throws {
        let (fixture, holder, other, first) = try await LongRestream.running("fast-term", settle: .seconds(4))
        let third = try fixture.startWorker("w-c")
        try #require(await eventually { third.process.log.contains("connected to") }, "\(third.process.log)")
        let signalled = ContinuousClock.now
        holder.process.kill(SIGTERM)
        #expect(await holder.process.exitStatus(within: .seconds(15)) == 0, "\(holder.process.log.suffix(2000))")
        // Past the take-over, and past several claim TTLs: a claim of the holder left anywhere would have run again by then.
        let watch = try await fixture.watchDestination(until: .seconds(14), every: .milliseconds(200)) { false }
        let resumed = try #require(watch.firstPublish(notIn: first), "never resumed: \(fixture.diagnosis(other))")
        #expect(resumed - signalled < .seconds(10), "resumed \(resumed - signalled) after SIGTERM")
        #expect(watch.maxPublishers == 1)
        #expect(watch.publisherIDs.filter { !first.contains($0) }.count == 1,
                "publishers after the hand-over: \(watch.publisherIDs), before: \(first)")
        let runs = try [other, third].filter { try fixture.store($0.id).job(id: fixture.id)?.state == .running }
        #expect(runs.count == 1, "running on \(runs.map(\.id))")
        #expect(try fixture.store(holder.id).job(id: fixture.id)?.error?.contains("handed over") == true)
        // One take-over, the hand-over; none from a claim of the holder that lapsed into `sluice.jobs` after it.
        let takeovers = try [other, third].flatMap { try fixture.store($0.id).events(jobID: fixture.id) }.filter { $0.kind == .takeover }
        #expect(takeovers.count == 1 && takeovers.first?.message?.contains("handed over on shutdown") == true,
                "\(takeovers.map { $0.message ?? "" })")
        print("hand-over on SIGTERM: \(resumed - signalled) until the destination had a publisher again")
    }

    @Test("a holder cut off from the broker stops its copy no later than heartbeat + 3 s after the other's starts")
    func partitionedHolder() async throws {
        let heartbeat = 4
        let fixture = try await LongRestream("cut", seconds: 60)
        let broker = try BrokerURL(parsing: fixture.amqpURL)
        let relay = try TCPRelay(to: broker.host == "localhost" ? "127.0.0.1" : broker.host, port: broker.port)
        defer { relay.stop() }
        let relayed = fixture.amqpURL.replacingOccurrences(of: ":\(broker.port)/", with: ":\(relay.port)/")
        // The holder reaches the broker through the relay only; it takes the job before the other worker starts.
        let holder = try fixture.startWorker("w-cut", broker: relayed, heartbeat: heartbeat)
        try await fixture.enqueue()
        try #require(try await eventually(timeout: .seconds(30)) {
            try fixture.store(holder.id).job(id: fixture.id)?.state == .running && (try? fixture.publishers(of: fixture.destination).count) == 1
        }, "\(holder.process.log.suffix(3000))")
        let other = try fixture.startWorker("w-direct", heartbeat: heartbeat)
        try #require(await eventually { other.process.log.contains("connected to") }, "\(other.process.log)")
        try await Task.sleep(for: .seconds(2))
        let first = try fixture.publishers(of: fixture.destination)

        let cut = ContinuousClock.now
        relay.cut(.silent)
        let watch = try await fixture.watchDestination(until: .seconds(60), every: .milliseconds(200)) {
            try fixture.publishers(of: fixture.destination).contains { !first.contains($0) }
        }
        let resumed = try #require(watch.firstPublish(notIn: first),
                                   "never taken over: \(other.process.log.suffix(3000)) \(holder.process.log.suffix(3000))")
        let stopped = try #require(watch.lastSample(with: first), "the holder's publisher was never seen")
        // Sampled every 200 ms: the holder's copy stopped before the first sample without it, the other's began after
        // the last one without it.
        let overlap = stopped + .milliseconds(200) - resumed
        #expect(overlap <= .seconds(heartbeat + 3) + .seconds(2), "the cut-off copy ran \(overlap) past the other's start")
        #expect(holder.process.log.contains("lease of job \(fixture.id) lost"), "\(holder.process.log.suffix(3000))")
        #expect(watch.maxPublishers == 1)
        let recorded = try await eventually(timeout: .seconds(10)) { try fixture.store(other.id).job(id: fixture.id)?.takeovers == 1 }
        let record = try fixture.store(other.id).job(id: fixture.id)
        #expect(recorded, "\(String(describing: record))")
        print("cut off from the broker: the holder's copy stopped \(stopped - cut) after the cut, the other's began \(resumed - cut) after it")
        holder.process.kill(SIGKILL)
        other.process.kill(SIGKILL)
    }
}

extension DestinationWatch {
    /// The last sample in which one of `ids` (the stopped holder's publishers) still publishes.
    func lastSample(with ids: [String]) -> ContinuousClock.Instant? {
        samples.last { $0.ids.contains { ids.contains($0) } }?.at
    }
}

/// How long a handed-over job waits for the previous holder's lease between tries.
@Suite("Hand-over lease waits")
struct LeaseWaitDelayTests {
    @Test("0.2 s at first, doubling to 1 s; every allowed wait together still gives the previous holder about half a minute")
    func delays() {
        #expect((0..<5).map(Worker.leaseWaitDelay) == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        let total = (0..<DeliveryLineage.maxLeaseWaits).map(Worker.leaseWaitDelay).reduce(.zero, +)
        #expect(total >= .seconds(25) && total <= .seconds(30), "\(total)")
    }
}
