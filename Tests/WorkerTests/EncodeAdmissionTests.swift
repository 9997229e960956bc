import Foundation
import SluiceTestSupport
@testable import JobQueue
import JobStore
import Testing

/// Admission by cost. Live encode jobs have their own queue and a budget per worker in
/// 720p30-equivalents; one that does not fit stays in the queue for another worker, and copy restreams keep their slots.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(5)))
struct EncodeAdmissionTests {
    /// A listen job waits up to timeout_s for its publisher: a live job that keeps its room while the test looks. Longer
    /// than the test may take on a loaded machine (its time limit), so no job ends and frees its units under the test.
    static func listenJob(_ id: String, port: Int, video: String) -> String {
        let input = #"{"url": "rtmp://127.0.0.1:\#(port)/live/\#(id)", "listen": true, "timeout_s": 600}"#
        return WorkerQueueTests.job(id, input: input, outputs: ["\(id).flv"], extra: #", "video": \#(video)"#)
    }

    static let encode720p30 = #"{"mode": "encode", "width": 1280, "height": 720, "fps": 30}"#
    /// No size: 1080p30 is assumed, 3 units.
    static let encodeUnsized = #"{"mode": "encode", "bitrate_kbps": 4000}"#
    static let copy = #"{"mode": "copy"}"#

    @Test("a worker takes the encode jobs its budget carries; the next waits ready in sluice.jobs.encode without spinning, while copy restreams still start; a second worker takes it")
    func budgetLeavesTheRestForAnotherWorker() async throws {
        let harness = try await QueueHarness("wk-encode-budget")
        let first = try harness.startWorker(id: "w-enc-1", ["--encode-slots", "3", "--live-slots", "4", "--batch-slots", "0",
                                                            "--grace-s", "1"])
        let port = try await StackTests.freePort(following: 3)  // a random port could be another suite's server
        try await harness.enqueue(Self.listenJob("enc-a", port: port, video: Self.encode720p30))
        try await harness.enqueue(Self.listenJob("enc-b", port: port + 1, video: Self.encode720p30))
        let both = try await eventually { try harness.job("enc-a")?.state == .running && harness.job("enc-b")?.state == .running }
        try #require(both, "\(first.log.suffix(3000))")

        // 2 of 3 units are used: a 1080p30 encode (3 units) does not fit and is left for another worker.
        let enqueued = ContinuousClock.now
        try await harness.enqueue(Self.listenJob("enc-c", port: port + 2, video: Self.encodeUnsized))
        let left = await eventually { first.log.contains("left in sluice.jobs.encode for another worker") }
        try #require(left, "\(first.log.suffix(3000))")
        // A copy restream has its own slots: it starts while the encode job waits.
        try await harness.enqueue(Self.listenJob("copy-d", port: port + 3, video: Self.copy))
        try #require(try await eventually { try harness.job("copy-d")?.state == .running }, "\(first.log.suffix(3000))")

        // The waiting job is ready in its queue for anyone, and this worker does not take it again and again: its
        // encode consumer is paused until a unit frees up (or the look again, 15 s later).
        for _ in 0..<3 {
            #expect(try await harness.readyCounts()[Topology.encodeQueue] == 1)
            try await Task.sleep(for: .seconds(1))
        }
        #expect(try harness.job("enc-c") == nil, "a job that did not fit is not recorded here")
        // One deferral, then one more per look again (every 15 s) at most, plus one for a look that began as the
        // count was taken; a spinning worker would defer it hundreds of times a second. (A loaded machine stretches
        // the time this test takes, so the bound follows the time that passed.)
        let deferrals = first.log.components(separatedBy: "left in sluice.jobs.encode").count - 1
        let looks = Int((ContinuousClock.now - enqueued) / .seconds(15))
        #expect(deferrals >= 1 && deferrals <= 2 + looks,
                "a full worker must not spin on the job it cannot take: \(deferrals) deferrals in \(ContinuousClock.now - enqueued)")

        // A second worker with room takes it.
        let second = try harness.startWorker(id: "w-enc-2", ["--encode-slots", "3", "--live-slots", "0", "--batch-slots", "0",
                                                             "--grace-s", "1"])
        let taken = try await eventually { try harness.job("enc-c")?.state == .running }
        try #require(taken, "\(second.log.suffix(3000))")
        #expect(try harness.job("enc-c")?.workerID == "w-enc-2")
        #expect(try harness.job("enc-a")?.workerID == "w-enc-1" && harness.job("copy-d")?.workerID == "w-enc-1")
        #expect(try await eventually { try await harness.readyCounts()[Topology.encodeQueue] == 0 })
        // Running encode jobs hold encode leases, which KEDA's encode trigger counts apart from the restreams'.
        let counts = try await harness.counts()
        for id in ["enc-a", "enc-b", "enc-c"] {
            #expect(counts[JobLease.queueName(jobID: id, jobClass: .encode)] == 1, "\(counts)")
        }
        #expect(counts[JobLease.queueName(jobID: "copy-d", jobClass: .live)] == 1, "\(counts)")

        for worker in [first, second] { worker.kill(SIGTERM) }
        for worker in [first, second] {
            #expect(await worker.exitStatus(within: .seconds(20)) == 0, "\(worker.log.suffix(3000))")
        }
    }

    @Test("a job bigger than a whole budget runs alone on an idle worker; an encode job an older worker put in sluice.jobs.live moves to sluice.jobs.encode")
    func oversizeAndMisrouted() async throws {
        let harness = try await QueueHarness("wk-encode-oversize")
        let worker = try harness.startWorker(id: "w-enc-big", ["--encode-slots", "2", "--live-slots", "1", "--batch-slots", "0",
                                                               "--grace-s", "1"])
        let port = try await StackTests.freePort(following: 3)  // a random port could be another suite's server
        // Published straight into the live queue, as a worker from before the encode class triaged it (once the
        // queue is declared: the default exchange drops a message for a queue that does not exist).
        try #require(try await eventually { try await harness.counts()[Topology.liveQueue] != nil }, "\(worker.log)")
        let connection = try AMQPConnection(configuration: harness.configuration)
        try connection.publish(OutgoingMessage(exchange: "", routingKey: Topology.liveQueue,
                                               body: Array(Self.listenJob("big", port: port, video: Self.encodeUnsized).utf8)))
        // It holds an encode lease, not a live one: it ran from the encode queue, with encode units.
        let running = try await eventually(timeout: .seconds(30)) { try harness.job("big")?.state == .running }
        try #require(running, "\(worker.log.suffix(3000))")
        #expect(worker.log.contains("arrived through sluice.jobs.live; moving it to sluice.jobs.encode"))
        #expect(try await harness.counts()[JobLease.queueName(jobID: "big", jobClass: .encode)] == 1)
        // Its 3 units take the whole budget of 2: the encode consumer is paused, and the next encode job waits in
        // the queue for another worker.
        try await harness.enqueue(Self.listenJob("small", port: port + 1, video: Self.encode720p30))
        #expect(try await eventually { try await harness.readyCounts()[Topology.encodeQueue] == 1 })
        try await Task.sleep(for: .seconds(2))
        #expect(try await harness.readyCounts()[Topology.encodeQueue] == 1)
        #expect(try harness.job("small") == nil)
        worker.kill(SIGTERM)
        #expect(await worker.exitStatus(within: .seconds(20)) == 0, "\(worker.log.suffix(3000))")
    }
}
