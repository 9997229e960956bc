import Foundation
import JobQueue
@testable import Sluice
import SluiceTestSupport
import Testing

/// A worker told to stop always stops. The real `sluice worker` runs live copy jobs (pulled from a private nginx-rtmp,
/// published back to it and archived to FLV) and a file job (paced at 1×, to a file and to nginx); then, at once,
/// nginx is killed, the broker is cut off (through a relay of the test's own, so the broker the other suites share
/// stays up), the database's folder is removed, and the worker gets SIGTERM. It must exit 0 within its grace plus its
/// own bound, and leave nothing running.
///
/// It runs twice, the broker reset once and silent once; `SLUICE_STOP_STRESS=N` runs it N times (the stop stress run)
/// and prints how many exited within the bound, the slowest exit and the median.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason),
       .timeLimit(.minutes(Int64(2 + StopScenario.rounds))))
struct WorkerStopTests {
    @Test("SIGTERM while inputs, destinations, the broker and the database's folder vanish at once: exit 0 within the grace and the worker's bound, nothing left running")
    func stopsWhateverVanishes() async throws {
        let rounds = StopScenario.rounds
        var stops: [StopScenario.Stop] = []
        for round in 0..<rounds {
            let cut = TCPRelay.Cut.allCases[round % TCPRelay.Cut.allCases.count]
            let stop = try await StopScenario.run(cut: cut, name: "wk-stop-\(round)")
            print("WorkerStopTests: round \(round + 1) of \(rounds), broker \(cut.rawValue): status \(stop.status.map(String.init) ?? "still running") after \(StopScenario.text(stop.seconds)) s")
            stop.check()
            stops.append(stop)
        }
        let times = stops.map(\.seconds).sorted()
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        print("WorkerStopTests: \(stops.filter(\.passed).count) of \(rounds) workers exited 0 within \(StopScenario.text(StopScenario.bound)) s, nothing left running; slowest \(StopScenario.text(times.last ?? 0)) s, median \(StopScenario.text(median)) s")
        #expect(stops.count == rounds && stops.allSatisfy(\.passed))
    }
}

/// One run of the stop scenario and what it takes to judge it.
enum StopScenario {
    /// The worker's `--grace-s`: the file job is still running when it passes, so it is interrupted and handed back.
    static let grace = 3.0
    /// The worker's own bound past the grace (`WorkerConfiguration.stopOverrun`: jobs settling, then the broker closing).
    static let overrun: Double = {
        let (seconds, attoseconds) = WorkerConfiguration(workerID: "stop", paths: .trusted).stopOverrun.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }()
    /// What a loaded machine may add on top (two cores shared with other builds and suites): the bound is the
    /// product's promise plus this, so a slow machine never fails the test, and a hang (no bound at all) always does.
    static let slack = 10.0
    /// The exit is asserted within this many seconds of the SIGTERM.
    static var bound: Double { grace + overrun + slack }

    /// Rounds: one per way of cutting the broker off, or SLUICE_STOP_STRESS of them (the stress run).
    static let rounds = max(1, Int(ProcessInfo.processInfo.environment["SLUICE_STOP_STRESS"] ?? "") ?? TCPRelay.Cut.allCases.count)

    /// How one stop went.
    struct Stop {
        var status: Int32?
        var seconds: Double
        /// Children the worker had when it was signalled, still alive after it exited.
        var orphans: [Int32]
        var pidGone: Bool
        var log: String

        var passed: Bool { status == 0 && seconds < StopScenario.bound && orphans.isEmpty && pidGone }

        func check() {
            #expect(status != nil, "still running \(StopScenario.text(seconds)) s after SIGTERM: \(log.suffix(4000))")
            #expect(status == 0, "exit status \(status.map(String.init) ?? "none"): \(log.suffix(4000))")
            #expect(seconds < StopScenario.bound, "exited after \(StopScenario.text(seconds)) s: \(log.suffix(4000))")
            #expect(orphans.isEmpty, "children left running: \(orphans)")
            #expect(pidGone, "the worker's pid is still there")
            #expect(log.contains("stopped"), "the worker did not finish its stop: \(log.suffix(4000))")
        }
    }

    static func text(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

    static func run(cut: TCPRelay.Cut, name: String) async throws -> Stop {
        let harness = try await QueueHarness(name)
        let broker = harness.configuration.url
        let relay = try TCPRelay(to: broker.host == "localhost" ? "127.0.0.1" : broker.host, port: broker.port)
        defer { relay.stop() }
        let nginx = try PrivateRTMPServer()
        let loop = try await Media.clip(seconds: 4)
        let long = try await Media.clip(seconds: 60)
        let source = nginx.stream("source")
        let publisher = try BackgroundProcess("ffmpeg", [
            "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
            "-i", (Media.inputRoot as NSString).appendingPathComponent(loop), "-c", "copy", "-f", "flv", source,
        ])
        defer { publisher.end() }

        let databaseFolder = (harness.folder as NSString).appendingPathComponent("database")
        try FileManager.default.createDirectory(atPath: databaseFolder, withIntermediateDirectories: true)
        let workerID = "w-\(name)"
        let worker = try WorkerProcess(environment: QueueHarness.secretsEnvironment, arguments: [
            "worker", "--amqp-url", "amqp://\(broker.user):\(broker.password)@127.0.0.1:\(relay.port)/\(harness.vhost)",
            "--db", (databaseFolder as NSString).appendingPathComponent("jobs.sqlite"),
            "--input-root", Media.inputRoot, "--output-root", harness.outputRoot, "--worker-id", workerID,
            "--grace-s", String(grace), "--progress-s", "1", "--lease-orphan-s", "8",
        ], log: (harness.folder as NSString).appendingPathComponent("worker.log"))
        defer { worker.kill(SIGKILL) }

        let live = (0..<3).map { "live-\($0)" }
        for id in live {
            try await harness.enqueue(WorkerQueueTests.job(id, input: source, outputs: [nginx.stream(id), "\(id).flv"]))
        }
        try await harness.enqueue(WorkerQueueTests.job("file", input: #"{"url": "\#(long)", "realtime": true}"#,
                                                       outputs: ["file.flv", nginx.stream("file")]))
        // Running means every output of every job has taken bytes (the live ones have their input too).
        let running = try await eventually(timeout: .seconds(45)) {
            (live + ["file"]).allSatisfy { id in harness.events.of(id).contains(where: Self.everyOutputWritten) }
        }
        try #require(running, "jobs not running: \(harness.events.all.map { "\($0.id) \($0.kind)" }.suffix(40)); \(worker.log.suffix(3000))")

        let children = Self.children(of: worker.pid)
        try nginx.control("kill")
        relay.cut(cut)
        try FileManager.default.removeItem(atPath: databaseFolder)
        let signalled = ContinuousClock.now
        worker.kill(SIGTERM)
        let status = await worker.exitStatus(within: .milliseconds(Int64(bound * 1000)))
        let elapsed = ContinuousClock.now - signalled
        let (seconds, attoseconds) = elapsed.components
        return Stop(status: status, seconds: Double(seconds) + Double(attoseconds) / 1e18,
                    orphans: children.filter { kill($0, 0) == 0 }, pidGone: kill(worker.pid, 0) != 0 && errno == ESRCH,
                    log: worker.log)
    }

    /// A `job.progress` event in which every output has written bytes.
    static func everyOutputWritten(_ event: EventTap.Event) -> Bool {
        guard event.kind == "job.progress",
              let body = try? JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any],
              let outputs = body["outputs"] as? [[String: Any]], !outputs.isEmpty else { return false }
        return outputs.allSatisfy { (($0["bytes"] as? NSNumber)?.intValue ?? 0) > 0 }
    }

    /// The processes whose parent is `pid` now (Linux: the 4th field of /proc/PID/stat, after the command in
    /// parentheses).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.range(of: ")", options: .backwards) else { return nil }
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }
}
