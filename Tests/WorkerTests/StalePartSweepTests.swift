import Foundation
import SluiceTestSupport
import JobQueue
import JobStore
import MediaEngine
import Sluice
import Testing
import MediaJob

/// A worker sweeps its output root at start (and every ten minutes) for temporary files whose writers
/// are gone for good: old, held open by nobody, and of a job whose lease nobody holds.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct StalePartSweepTests {
    /// Creates `.NAME.<owner of job>.<16 hex>.part` in `folder` under the root, last written `hoursAgo` hours ago.
    static func part(_ harness: QueueHarness, job: String, name: String, folder: String = "", hoursAgo: Double) throws -> String {
        let directory = (harness.outputRoot as NSString).appendingPathComponent(folder)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(".\(name).\(PartOwner(jobID: job).tag).00000000000000ab.part")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("some bytes".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -hoursAgo * 3600)], ofItemAtPath: path)
        return path
    }

    @Test("at start: an old part of a job nobody holds goes (known to this worker or not); one whose lease is held, a fresh one and finished files stay")
    func sweepAtStart() async throws {
        let harness = try await QueueHarness("wk-stale-parts")
        for id in ["gone", "held", "fresh"] {
            _ = try harness.store.receive(NewJob(id: id, spec: "{}", specRedacted: "{}", input: "in.mp4", outputs: [NewOutput(url: "\(id).flv")]))
        }
        let lease = LeaseRequest(jobID: "held", body: Array("{}".utf8), priority: nil, headers: [:], holder: "another-worker")
        #expect(await harness.publisher.acquireLease(lease, onLost: { _ in }) == .acquired)

        let gone = try Self.part(harness, job: "gone", name: "gone.flv", folder: "cam/day1", hoursAgo: 48)
        let stranger = try Self.part(harness, job: "ran-on-a-worker-whose-database-is-gone", name: "x.aac", hoursAgo: 30)
        let held = try Self.part(harness, job: "held", name: "held.flv", hoursAgo: 48)
        let fresh = try Self.part(harness, job: "fresh", name: "fresh.flv", hoursAgo: 1)
        let finished = harness.output("gone.flv")
        #expect(FileManager.default.createFile(atPath: finished, contents: Data("done".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -48 * 3600)], ofItemAtPath: finished)

        let worker = try harness.startWorker(id: "w-sweep")
        let swept = await eventually(timeout: .seconds(45)) { worker.log.contains("kept 1 stale temporary file") }
        try #require(swept, "\(worker.log.suffix(3000))")
        #expect(!FileManager.default.fileExists(atPath: gone))
        #expect(!FileManager.default.fileExists(atPath: stranger))
        #expect(FileManager.default.fileExists(atPath: held))
        #expect(FileManager.default.fileExists(atPath: fresh))
        #expect(FileManager.default.fileExists(atPath: finished))
        #expect(worker.log.contains("removed 2 stale temporary files nobody writes"), "\(worker.log.suffix(3000))")
        #expect(harness.partFiles().count == 2)

        worker.kill(SIGTERM)
        #expect(await worker.exitStatus(within: .seconds(30)) == 0)
        await harness.publisher.releaseLease(jobID: "held")
    }
}
