import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// The broker restarts mid-job (its RabbitMQ application stopped and started again, state kept). This test
/// runs a broker of its own: restarting the shared one would disturb every other test.
@Suite("Broker restart", .enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason))
struct BrokerRestartTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let harness = repository.appendingPathComponent("scripts/lib/rabbitmq.sh").path

    /// Runs the broker harness with output to a file (a node it starts must not hold a pipe of ours).
    static func broker(_ arguments: [String], log: String) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/sh")
                    process.arguments = ["-c", "\"$0\" \"$@\" >> \(log) 2>&1 < /dev/null", harness] + arguments
                    try process.run()
                    process.waitUntilExit()
                    return process.terminationStatus
                })
            }.start()
        }
    }

    @Test("the worker reconnects within 10 s, the job succeeds once, and nothing stays queued")
    func restartMidJob() async throws {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("restart-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        chmod(folder, 0o755)
        // A port whose distribution and epmd ports (derived from it) are free too.
        let portText = try await Subprocess.check(BrokerRestartTests.harness, ["free-port"])
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let nodeDir = folder + "/rabbitmq"
        let log = folder + "/broker.log"
        #expect(try await BrokerRestartTests.broker(["start", nodeDir, String(port)], log: log) == 0)
        defer {
            let stop = Process()
            stop.executableURL = URL(fileURLWithPath: "/bin/sh")
            stop.arguments = ["-c", "\"$0\" stop \"$1\" \"$2\" > /dev/null 2>&1 < /dev/null", BrokerRestartTests.harness, nodeDir, String(port)]
            try? stop.run()
            stop.waitUntilExit()
        }
        let url = "amqp://guest:guest@127.0.0.1:\(port)/%2F"
        let database = folder + "/worker.sqlite"
        let clip = try await Media.clip(seconds: 8)
        let worker = try WorkerProcess(arguments: [
            "worker", "--amqp-url", url, "--db", database, "--input-root", Media.inputRoot,
            "--output-root", folder + "/out", "--worker-id", "w-restart", "--heartbeat-s", "5",
        ], log: folder + "/worker.log")
        defer { worker.kill(SIGKILL) }
        try #require(await eventually { worker.log.contains("connected to") }, "\(worker.log)")

        let job = #"{"id": "survives-restart", "input": {"url": "\#(clip)", "realtime": true}, "outputs": ["r.flv"]}"#
        try job.write(toFile: folder + "/job.json", atomically: true, encoding: .utf8)
        #expect(try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", url, folder + "/job.json"]).status == 0)
        let store = try JobStore(path: database)
        try #require(try await eventually { try store.job(id: "survives-restart")?.state == .running }, "\(worker.log)")
        let connectionsBefore = worker.log.components(separatedBy: "connected to").count

        // Restart the broker's application mid-job; durable queues and persistent messages survive it.
        try await Task.sleep(for: .seconds(1))
        #expect(try await BrokerRestartTests.broker(["ctl", nodeDir, String(port), "stop_app"], log: log) == 0)
        #expect(try await BrokerRestartTests.broker(["ctl", nodeDir, String(port), "start_app"], log: log) == 0)
        // From the broker's return, not from before rabbitmqctl, whose own start takes 4-5 s idle and many more on a
        // loaded machine: the worker's part is the reconnect.
        let restarted = ContinuousClock.now
        #expect(try await eventually(timeout: .seconds(10)) {
            worker.log.components(separatedBy: "connected to").count > connectionsBefore
        }, "no reconnect within 10 s of the restart: \(worker.log.suffix(2000))")
        #expect(ContinuousClock.now - restarted < .seconds(20))

        // The job ends succeeded (finished on, or redelivered and run again) and is never dead-lettered.
        #expect(try await eventually(timeout: .seconds(40)) { try store.job(id: "survives-restart")?.state == .succeeded },
                "\(worker.log.suffix(3000))")
        let record = try #require(try store.job(id: "survives-restart"))
        #expect(record.attempts <= 2)
        #expect(FileManager.default.fileExists(atPath: folder + "/out/r.flv"))
        let probe = try await Subprocess.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", folder + "/out/r.flv"])
        #expect((Double(probe.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 7)
        // Nothing left on the queue once the worker has settled the delivery, and nothing dead-lettered.
        #expect(try await eventually(timeout: .seconds(15)) {
            let listing = try await Subprocess.check(BrokerRestartTests.harness, ["ctl", nodeDir, String(port), "list_queues", "name", "messages"])
            let counts = Dictionary(uniqueKeysWithValues: listing.split(separator: "\n").compactMap { line -> (String, Int)? in
                let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
                guard fields.count == 2, let count = Int(fields[1]) else { return nil }
                return (String(fields[0]), count)
            })
            return counts["sluice.jobs"] == 0 && counts["sluice.jobs.live"] == 0 && counts["sluice.jobs.batch"] == 0
                && counts["sluice.jobs.dead"] == 0
        })
    }
}
