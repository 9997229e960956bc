import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// Live and batch jobs side by side, each class with its own slots, neither starving the other.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct WorkerSlotsTests {
    @Test("a burst of batch jobs filling the batch slot does not hold a live job back")
    func batchBurstDoesNotStarveLive() async throws {
        let harness = try await QueueHarness("wk-slots-batch")
        let clip = try await Media.clip(seconds: 3)
        let worker = try harness.startWorker(id: "w-slots-batch", ["--batch-slots", "1", "--live-slots", "2"])
        for index in 0..<4 {
            try await harness.enqueue(WorkerQueueTests.job("batch-\(index)", input: #"{"url": "\#(clip)", "realtime": true}"#,
                                                           outputs: ["b\(index).flv"]))
        }
        try #require(try await eventually { try harness.job("batch-0")?.state == .running }, "\(worker.log.suffix(3000))")
        // Queued behind four 3 s batch jobs on one queue, this would run after the last of them was taken; on its
        // own class it runs while the burst still waits (batch-3 not yet taken, however slow the machine).
        let input = #"{"url": "rtmp://127.0.0.1:9/live/k", "timeout_s": 2}"#
        try await harness.enqueue(WorkerQueueTests.job("live-0", input: input, outputs: ["l.flv"], extra: #", "max_attempts": 1"#))
        let ran = try await eventually(timeout: .seconds(15)) { try harness.job("live-0")?.state == .failed }
        try #require(ran, "\(worker.log.suffix(3000))")
        #expect(try harness.job("batch-3") == nil, "the live job ran only after the batch burst")
        #expect(try harness.store.jobs(state: .running).map(\.id).allSatisfy { $0.hasPrefix("batch") })
        // The batch slot is still one at a time: the burst goes on after the live job, one by one.
        #expect(try await eventually(timeout: .seconds(30)) { try harness.store.jobs(state: .succeeded).count == 4 })
        let batches = try (0..<4).map { try #require(try harness.job("batch-\($0)")) }
        for (earlier, later) in zip(batches, batches.dropFirst()) {
            let finished = try #require(earlier.finishedAt)
            let started = try #require(later.startedAt)
            #expect(started >= finished.addingTimeInterval(-0.5), "\(later.id) started before \(earlier.id) ended")
        }
        #expect(try await eventually { try await harness.queued() == 0 })
    }

    @Test("live slots full of waiting restreams do not hold a batch job back; the next live job waits in sluice.jobs.live")
    func liveSlotsFullDoNotStarveBatch() async throws {
        let harness = try await QueueHarness("wk-slots-live")
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-slots-live", ["--batch-slots", "1", "--live-slots", "1", "--grace-s", "1"])
        let port = try await StackTests.freePort(following: 3)  // a random port could be another suite's server
        for index in 0..<2 {
            // A listen input waits up to timeout_s for its publisher: a live job that keeps its slot.
            let input = #"{"url": "rtmp://127.0.0.1:\#(port + index)/live/key\#(index)", "listen": true, "timeout_s": 60}"#
            try await harness.enqueue(WorkerQueueTests.job("listen-\(index)", input: input, outputs: ["l\(index).flv"]))
        }
        try #require(try await eventually { try harness.job("listen-0")?.state == .running }, "\(worker.log.suffix(3000))")
        // One live slot: the second restream must wait in its queue whatever the batch side does.
        try await harness.enqueue(WorkerQueueTests.job("file", input: clip, outputs: ["f.flv"]))
        let done = try await eventually(timeout: .seconds(20)) { try harness.job("file")?.state == .succeeded }
        try #require(done, "\(worker.log.suffix(3000))")
        #expect(try harness.job("listen-0")?.state == .running)
        #expect(try harness.job("listen-1") == nil, "one live slot: the second restream must wait (in submission order)")
        #expect(try await harness.counts()["sluice.jobs.live"] == 1)
        worker.kill(SIGTERM)
        #expect(await worker.exitStatus(within: .seconds(15)) == 0, "\(worker.log.suffix(3000))")
    }
}
