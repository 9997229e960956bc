import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// `sluice worker` and `sluice enqueue` with `--jobs-queue-type quorum` against the private RabbitMQ.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct QuorumWorkerTests {
    @Test("a job enqueued by the CLI on a quorum sluice.jobs runs to success on a worker declaring the same")
    func jobRunsOnQuorumQueue() async throws {
        let harness = try await QueueHarness("wk-quorum", jobsQueueType: .quorum(deliveryLimit: 5))
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-quorum", ["--jobs-queue-type", "quorum", "--jobs-delivery-limit", "5"])
        let document = (harness.folder as NSString).appendingPathComponent("quorum-job.json")
        try WorkerQueueTests.job("quorum-1", input: clip, outputs: ["quorum-1.flv"]).write(toFile: document, atomically: true, encoding: .utf8)
        let enqueued = try await harness.sluice(["enqueue", "--amqp-url", harness.url, "--jobs-queue-type", "quorum",
                                                 "--jobs-delivery-limit", "5", document])
        #expect(enqueued.status == 0, "\(enqueued.output)")
        let done = try await eventually(timeout: .seconds(40)) { try harness.job("quorum-1")?.state == .succeeded }
        try #require(done, "worker log: \(worker.log.suffix(3000))")
        let queues = try await PrivateBroker.ctl(["list_queues", "-p", harness.vhost, "--quiet", "--no-table-headers", "name", "type"])
        #expect(queues.split(separator: "\n").contains { $0.hasPrefix("sluice.jobs\t") && $0.contains("quorum") }, "\(queues)")
        #expect(try await harness.queued() == 0)

        // A client left on the classic default is refused with a reason, not silently split off.
        let mismatched = try await harness.sluice(["enqueue", "--amqp-url", harness.url, document])
        #expect(mismatched.status != 0)
        #expect(mismatched.output.contains("PRECONDITION_FAILED"), "\(mismatched.output)")
    }
}
