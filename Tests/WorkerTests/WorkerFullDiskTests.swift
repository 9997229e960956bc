import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JobStore
import SluiceTestSupport
import Testing

/// Full disks under a running worker: the output root or the database's volume fills up; the
/// job fails (or waits) with a message that says so, `/healthz` says why it is unhealthy, and the worker
/// process carries on with the next job.
// The time limit guards against a hang, not speed: a test's own waits add up to 70 s, and its broker vhost
// (rabbitmqctl boots an Erlang VM) and fixtures take a loaded machine up to a minute more.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason),
       .enabled(if: TinyDisk.shouldRun, TinyDisk.skipReason), .timeLimit(.minutes(4)))
struct WorkerFullDiskTests {
    /// About 3.5 MB of lossless H.264 under the input root: more than a 2 MB tmpfs holds.
    static func bigInput() async throws -> String {
        let name = "big-lossless.mp4"
        let path = (Media.inputRoot as NSString).appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: path) {
            _ = try await Subprocess.check("ffmpeg", [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", path + ".tmp.mp4",
            ])
            try FileManager.default.moveItem(atPath: path + ".tmp.mp4", toPath: path)
        }
        return name
    }

    static func httpBase(_ worker: WorkerProcess) async -> String? {
        var base: String?
        _ = await eventually(timeout: .seconds(10)) {
            base = worker.log.firstMatch(of: /on (http:\/\/127\.0\.0\.1:[0-9]+)\//).map { String($0.1) }
            return base != nil
        }
        return base
    }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: try #require(URL(string: url)))
        return (try #require(response as? HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
    }

    @Test("the output root fills up: that job fails naming its output, nothing is left, the next job succeeds on the same worker; /healthz names the floor")
    func outputRootFull() async throws {
        let harness = try await QueueHarness("wk-full-out")
        let disk = try TinyDisk(at: harness.outputRoot, megabytes: 2)
        defer { disk.unmount() }
        let big = try await Self.bigInput()
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-full-out", ["--http", "127.0.0.1:0", "--min-free-mb", "3"])
        try await harness.enqueue(WorkerQueueTests.job("too-big", input: big, outputs: ["big.flv"]))
        try await harness.enqueue(WorkerQueueTests.job("fits", input: clip, outputs: ["fits.flv"]))

        try #require(try await eventually(timeout: .seconds(40)) { try harness.job("fits")?.state == .succeeded }, "\(worker.log.suffix(3000))")
        let failed = try #require(try harness.job("too-big"))
        #expect(failed.state == .failed && failed.attempts == 1, "\(failed.state)")
        #expect(failed.error?.contains("output big.flv: no space left on device") == true, "\(failed.error ?? "")")
        #expect(disk.names == ["fits.flv"], "on the output root: \(disk.names)")
        #expect(try await Media.videoHashes(harness.output("fits.flv")) == (try await Media.videoHashes((Media.inputRoot as NSString).appendingPathComponent(clip))))
        #expect(worker.isRunning)

        let http = try #require(await Self.httpBase(worker), "no listening line: \(worker.log)")
        let health = try await Self.get(http + "/healthz")
        #expect(health.status == 503)
        #expect(health.body.contains("output root \(harness.outputRoot) has "), "\(health.body)")
        #expect(health.body.contains("below the floor of 3 MB"), "\(health.body)")
    }

    @Test("the database's volume fills up: the worker stays up and unhealthy with the reason, and runs the job once there is room")
    func databaseFull() async throws {
        let harness = try await QueueHarness("wk-full-db")
        let disk = try TinyDisk(at: harness.folder + "/dbdisk", megabytes: 2)
        defer { disk.unmount() }
        let database = disk.path + "/jobs.sqlite"
        _ = try JobStore(path: database)
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-full-db", ["--db", database, "--http", "127.0.0.1:0", "--min-free-mb", "1"])
        let http = try #require(await Self.httpBase(worker), "no listening line: \(worker.log)")
        // Fill what is left of the volume (dd stops at ENOSPC and says so).
        let filler = disk.path + "/filler"
        _ = try await Subprocess.run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k"])
        try await harness.enqueue(WorkerQueueTests.job("waits-for-room", input: clip, outputs: ["room.flv"]))

        let unhealthy = try await eventually(timeout: .seconds(10)) {
            let reply = try await Self.get(http + "/healthz")
            return reply.status == 503 && reply.body.contains("database folder \(disk.path) has 0")
        }
        let reply = try await Self.get(http + "/healthz")
        #expect(unhealthy, "\(reply.body)")
        // SQLite's word for ENOSPC; the job goes back to the queue instead of taking the worker down.
        #expect(try await eventually(timeout: .seconds(10)) { worker.log.contains("database or disk is full") }, "\(worker.log.suffix(2000))")
        try await Task.sleep(for: .seconds(3))
        #expect(worker.isRunning, "\(worker.log.suffix(2000))")
        #expect(!FileManager.default.fileExists(atPath: harness.output("room.flv")))

        try FileManager.default.removeItem(atPath: filler)
        let store = try JobStore(path: database)
        #expect(try await eventually(timeout: .seconds(30)) { try store.job(id: "waits-for-room")?.state == .succeeded }, "\(worker.log.suffix(3000))")
        #expect(FileManager.default.fileExists(atPath: harness.output("room.flv")))
        let recovered = try await eventually(timeout: .seconds(5)) { try await Self.get(http + "/healthz").status == 200 }
        let finalHealth = try await Self.get(http + "/healthz")
        #expect(recovered, "\(finalHealth.body)")
    }
}
