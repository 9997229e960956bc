import Foundation
import SluiceTestSupport
import MediaJob
import Testing
@testable import LiveRelay
import JobDocument

/// The private nginx-rtmp `scripts/test` starts (scripts/lib/test-services.d/20-nginx-rtmp.sh), ffmpeg as
/// publisher, player and framemd5 referee, and small helpers around the engine.
enum Live {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["SLUICE_TEST_RTMP_URL"]
    static let control = environment["SLUICE_TEST_RTMP_CTL"]
    /// Under CI the suites run regardless, so a missing server fails them instead of skipping them.
    static var isAvailable: Bool { (url != nil && control != nil) || environment["CI"] == "true" }
    static let unavailableReason: Comment = "SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_CTL are unset: run through scripts/test"

    static let directory: String = {
        let base = environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("liverelay-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func scratch(_ name: String) -> String {
        let path = (directory as NSString).appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static let fixtureLock = NSLock()

    /// Where fixtures live, shared by the run's test processes (each makes one under a name of its own, then renames it
    /// into place, so a reader never sees half a file).
    static let fixtures: String = {
        let base = environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("liverelay-fixtures")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Makes the fixture `name` with ffmpeg's `arguments` (its output path appended) unless it exists.
    private static func makeFixture(_ name: String, _ arguments: [String]) throws -> String {
        try fixtureLock.withLock {
            let path = (fixtures as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: path) { return path }
            let own = (fixtures as NSString).appendingPathComponent("making-\(getpid())-\(name)")
            try run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + arguments + [own])
            guard rename(own, path) == 0 else { throw LiveTestError("could not rename \(own) to \(path)") }
            return path
        }
    }

    /// 320x240 30 fps H.264 with a keyframe every second and B-frames, AAC 48 kHz without PNS.
    static func fixture(seconds: Int) throws -> String {
        try makeFixture("live-\(seconds)s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                                 "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:beep_factor=3",
                                                 "-t", String(seconds), "-c:v", "libx264", "-preset", "veryfast", "-g", "30",
                                                 "-pix_fmt", "yuv420p", "-bf", "2", "-c:a", "aac", "-aac_pns", "0", "-b:a", "96k",
                                                 "-shortest"])
    }

    /// 320x240 30 fps H.264 (Baseline, as aiortc takes) with one keyframe every 20 s, AAC 48 kHz: a stream whose next keyframe is
    /// far away for whoever joins it late.
    static func longGOPFixture(seconds: Int) throws -> String {
        try makeFixture("live-gop20-baseline-\(seconds)s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                                       "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                                       "-t", String(seconds), "-c:v", "libx264", "-preset", "veryfast", "-g", "600",
                                                       "-keyint_min", "600", "-sc_threshold", "0", "-profile:v", "baseline", "-pix_fmt", "yuv420p", "-bf", "0",
                                                       "-c:a", "aac", "-b:a", "96k", "-shortest"])
    }

    /// 1280x720 30 fps H.264 at a constant 20 Mb/s (filler included) with a keyframe every second and no B-frames,
    /// AAC 48 kHz: enough bytes a second to fill a stalled destination's buffers within a few seconds.
    static func highBitrateFixture(seconds: Int) throws -> String {
        try makeFixture("live-20M-\(seconds)s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                                                     "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                                     "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast",
                                                     "-b:v", "20M", "-minrate", "20M", "-maxrate", "20M", "-bufsize", "20M",
                                                     "-x264-params", "nal-hrd=cbr", "-g", "30", "-pix_fmt", "yuv420p",
                                                     "-c:a", "aac", "-b:a", "128k", "-shortest"])
    }

    /// A stream URL of its own under nginx's `live` application.
    static func stream(_ name: String) throws -> String {
        "\(try #require(url))/\(name)-\(UUID().uuidString.prefix(8))"
    }

    /// A loopback port nothing listens on.
    static func freePort() throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scripts/lib/free-port").standardizedFileURL.path
        return try #require(Int(try run(script, []).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    static func publish(_ file: String, to url: String, extra: [String] = []) throws -> Child {
        try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", file, "-c", "copy"] + extra + ["-f", "flv", url])
    }

    /// ffmpeg playing `url` into `file`. `idle` (its rw_timeout) is how long it waits for the stream to start, and a
    /// third of how long it waits after the stream ends before it exits (SluiceTests' `TestRTMP.play`: ffmpeg 5.1 exits
    /// 3 rw_timeouts after the publisher leaves nginx-rtmp): 8 s, since a player attached before the job published
    /// waited more than 3 s for the first frame once in CI (Chromium encoding in software beside it) and gave up (EIO).
    static func play(_ url: String, into file: String, idle: Double = 8) throws -> Child {
        try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-rw_timeout", String(Int(idle * 1_000_000)),
                                      "-i", url, "-c", "copy", "-f", "flv", "-y", file])
    }

    /// framemd5 hashes of every decoded frame of the first `v` or `a` stream.
    static func frames(_ path: String, _ kind: String) throws -> [String] {
        var options: [String] = []
        // Every stored frame, the audio's priming included (an .mp4's edit list and an HLS init segment's iTunSMPB
        // would have the decoder skip it: FLV, the usual other side, cannot say it).
        if path.hasSuffix(".mp4") { options = ["-ignore_editlist", "1", "-flags2", "+skip_manual"] }
        if path.hasSuffix(".m3u8") { options = ["-flags2", "+skip_manual"] }
        let sync = kind == "v" ? ["-fps_mode", "passthrough"] : []
        let text = try run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error"] + options
                           + ["-i", path, "-map", "0:\(kind):0"] + sync + ["-f", "framemd5", "-"])
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            return line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        let errorPath = Live.directory + "/run-\(UUID().uuidString.prefix(8)).err"
        guard FileManager.default.createFile(atPath: errorPath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errorPath])
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw LiveTestError("\(executable) \(arguments.last ?? "") exited \(process.terminationStatus): \(message.suffix(1500))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Options for a live copy job from `input` to `outputs`.
    static func options(input: String, listen: Bool = false, outputs: [String], timeout: Double = 5, maxDuration: Double? = nil,
                        reconnect: ReconnectPolicy = ReconnectPolicy(attempts: 10, initialDelay: 0.2, maxDelay: 0.5)) -> MediaJobOptions {
        var options = MediaJobOptions(inputURL: input, inputName: Live.redact(input))
        options.liveInput = true
        options.inputTimeout = timeout
        options.maxDuration = maxDuration
        options.reconnect = reconnect
        if listen { options.inputOptions["listen"] = "1" }
        options.outputs = outputs.map { OutputDescription(target: .network(url: $0), kind: .flv, name: Live.redact($0)) }
        return options
    }

    /// The URL with its last path component (the key) hidden, as Redaction does.
    static func redact(_ url: String) -> String {
        guard let slash = url.lastIndex(of: "/") else { return url }
        return url[..<slash] + "/***"
    }

    /// Threads of this process now.
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// User plus system CPU seconds this process (or its reaped children) has used.
    static func cpuSeconds(children: Bool = false) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Resident memory of this process, KiB (VmRSS).
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Waits until `condition` holds, up to `seconds`.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}

struct LiveTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A job started on the engine, its completion awaited from the test's thread.
final class RunningJob: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: Result<MediaJobResult, MediaJobError>?
    private var snapshots: [MediaJobProgress] = []
    let interrupter = Interrupter()

    init(_ engine: RelayEngine, _ options: MediaJobOptions) {
        engine.start(options, interrupter: interrupter, progress: { [self] snapshot in
            lock.withLock { snapshots.append(snapshot) }
        }, completion: { [self] result in
            lock.withLock { outcome = result }
            done.signal()
        })
    }

    /// The job's end, or nil after `seconds` (the job is then cancelled).
    func wait(seconds: Double) -> Result<MediaJobResult, MediaJobError>? {
        if done.wait(timeout: .now() + seconds) == .timedOut {
            interrupter.cancel()
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        return lock.withLock { outcome }
    }

    var latestProgress: MediaJobProgress? { lock.withLock { snapshots.last } }
}

/// A child process (ffmpeg) running beside the test (SluiceTestSupport).
typealias Child = BackgroundProcess
