import Foundation
import Testing

/// The private nginx-rtmp `scripts/test` starts (scripts/lib/test-services.d/20-nginx-rtmp.sh), and
/// ffmpeg as the publisher and player around it.
enum TestRTMP {
    static let url = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"]
    static let control = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_CTL"]

    /// Under CI the suites run regardless, so a missing server fails them instead of skipping them.
    static var isAvailable: Bool { (url != nil && control != nil) || ProcessInfo.processInfo.environment["CI"] == "true" }
    static let unavailableReason: Comment =
        "SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_CTL are unset: scripts/test sets them after starting nginx-rtmp"

    /// A stream URL of its own under the `live` application.
    static func stream(_ name: String) throws -> String {
        "\(try #require(url))/\(name)-\(UUID().uuidString.prefix(8))"
    }

    /// `stop`, `kill`, `start`, `restart` or `status` on the test server.
    static func server(_ action: String) throws {
        try Command.run(try #require(control), [action])
    }

    /// A loopback port nothing listens on (for a listener of our own, or a destination that refuses).
    static func freePort() throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scripts/lib/free-port").standardizedFileURL.path
        let result = try Command.run(script, [])
        return try #require(Int(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// ffmpeg publishing a file at 1× with stream copy.
    static func publish(_ file: String, to url: String) throws -> BackgroundProcess {
        try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", file, "-c", "copy", "-f", "flv", url])
    }

    /// ffmpeg playing `url` into an FLV file with stream copy; it stops `idle` seconds after data stops.
    static func play(_ url: String, into file: String, idle: Double = 3) throws -> BackgroundProcess {
        try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-rw_timeout", String(Int(idle * 1_000_000)),
                                         "-i", url, "-c", "copy", "-f", "flv", "-y", file])
    }
}

/// A child process running while the test goes on (publishers, players, `sluice run`).
final class BackgroundProcess: @unchecked Sendable {
    let process = Process()
    private let errorFile: String

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // A file, not a pipe: nobody drains a pipe while the test waits, and a full one would block the child.
        errorFile = Fixtures.scratch("stderr") + "/stderr.txt"
        guard FileManager.default.createFile(atPath: errorFile, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errorFile])
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        try process.run()
    }

    /// Waits up to `seconds` for the exit; returns the status, or nil (and kills the process) on timeout.
    @discardableResult
    func wait(seconds: Double) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    var stderr: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

extension Array where Element == String {
    /// True when `part` occurs in this array as one unbroken run (a player that joined at a keyframe).
    func containsContiguous(_ part: [String]) -> Bool {
        guard !part.isEmpty, part.count <= count else { return part.isEmpty }
        return firstRange(of: part) != nil
    }
}
