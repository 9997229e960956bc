import Foundation
import SluiceTestSupport
import Testing

/// The local stack without Docker, end to end as an operator runs it: `scripts/stack up`, a test stream
/// published into its RTMP server, the restream example from jobs/examples enqueued, the restreamed FLV
/// checked with ffprobe, `scripts/stack down`.
@Suite("scripts/stack", .enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason))
struct StackTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a shell command line in the repository with output to a file (daemons it starts must not hold a pipe).
    static func shell(_ line: String, environment: [String: String], log: String) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/bash")
                    process.arguments = ["-c", "\(line) >> \(log) 2>&1 < /dev/null"]
                    process.currentDirectoryURL = StackTests.repository
                    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                    try process.run()
                    process.waitUntilExit()
                    return process.terminationStatus
                })
            }.start()
        }
    }

    /// A free loopback port; for a broker node (`rabbitmq.sh free-port`), one whose distribution and epmd ports,
    /// derived from it, are free too.
    /// `following`: the next ports up to PORT + `following` are free too (listen jobs on consecutive ports).
    static func freePort(broker: Bool = false, following: Int = 0) async throws -> Int {
        let (script, arguments) = broker ? ("scripts/lib/rabbitmq.sh", ["free-port"])
            : ("scripts/lib/free-port", ["20000", "40000"] + (0..<following).map { String($0 + 1) })
        let output = try await Subprocess.check(StackTests.repository.appendingPathComponent(script).path, arguments)
        return try #require(Int(output.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("up, publish, enqueue the restream example, ffprobe the output, down")
    func endToEnd() async throws {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let stack = (base as NSString).appendingPathComponent("stack-\(UUID().uuidString.prefix(8))")
        let log = stack + ".log"
        let amqpPort = try await StackTests.freePort(broker: true)
        let rtmpPort = try await StackTests.freePort()
        let httpPort = try await StackTests.freePort()
        let environment: [String: String] = [
            "SLUICE_STACK_DIR": stack, "SLUICE_STACK_AMQP_PORT": String(amqpPort),
            "SLUICE_STACK_RTMP_PORT": String(rtmpPort), "SLUICE_STACK_HTTP_PORT": String(httpPort),
            "SLUICE_BIN": Subprocess.sluice,
        ]
        let up = try await StackTests.shell("scripts/stack up", environment: environment, log: log)
        var publisher: Process?
        defer {
            publisher?.terminate()
            let down = Process()
            down.executableURL = URL(fileURLWithPath: "/bin/bash")
            down.arguments = ["-c", "scripts/stack down >> \(log) 2>&1 < /dev/null"]
            down.currentDirectoryURL = StackTests.repository
            down.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            try? down.run()
            down.waitUntilExit()
        }
        #expect(up == 0, "scripts/stack up failed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(try await StackTests.shell("scripts/stack status", environment: environment, log: log) == 0)

        // A 20 s test stream into the stack's RTMP server.
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re",
                            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
                            "-t", "20", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "25", "-pix_fmt", "yuv420p",
                            "-c:a", "aac", "-f", "flv", "rtmp://127.0.0.1:\(rtmpPort)/live/cam42"]
        ffmpeg.standardOutput = FileHandle.nullDevice
        ffmpeg.standardError = FileHandle.nullDevice
        try ffmpeg.run()
        publisher = ffmpeg
        try await Task.sleep(for: .seconds(2))

        // The example, pointed at this stack's port and given an id of its own.
        let example = try String(contentsOf: StackTests.repository.appendingPathComponent("jobs/examples/stack-restream.json"), encoding: .utf8)
        let id = "stack-e2e-\(UUID().uuidString.prefix(8))"
        let job = example.replacingOccurrences(of: "127.0.0.1:31935", with: "127.0.0.1:\(rtmpPort)")
            .replacingOccurrences(of: "\"stack-restream\"", with: "\"\(id)\"")
        let jobPath = stack + "/job.json"
        try job.write(toFile: jobPath, atomically: true, encoding: .utf8)
        let amqpURL = try String(contentsOfFile: stack + "/amqp-url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let enqueue = try await StackTests.shell("\(Subprocess.sluice) enqueue \(jobPath)", environment: ["SLUICE_AMQP_URL": amqpURL], log: log)
        #expect(enqueue == 0)

        // One of the two workers takes it; the FLV is renamed into place when the job succeeds.
        let output = stack + "/media/out/cam42-restreamed.flv"
        let deadline = Deadline(seconds: 40)
        while !FileManager.default.fileExists(atPath: output) && !deadline.hasPassed { try await Task.sleep(for: .milliseconds(250)) }
        #expect(FileManager.default.fileExists(atPath: output), "no output; log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let probe = try await Subprocess.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "default=nw=1", output])
        #expect(probe.contains("codec_name=h264"))
        #expect(probe.contains("codec_name=aac"))
        let duration = probe.split(separator: "\n").first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst("duration=".count)) } ?? 0
        #expect(duration > 4 && duration < 8, "duration \(duration)")
        var states: [String] = []
        for worker in ["worker-1", "worker-2"] {
            let row = try await Subprocess.check("sqlite3", ["\(stack)/\(worker).sqlite", "SELECT state FROM jobs WHERE id = '\(id)'"])
            states.append(row.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(states.sorted() == ["", "succeeded"], "one worker ran it: \(states)")
    }
}
