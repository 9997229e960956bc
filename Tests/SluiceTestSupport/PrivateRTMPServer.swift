import Foundation

/// An nginx-rtmp of one test's own (scripts/lib/nginx-rtmp.sh on a free loopback port), for a test that kills and
/// restarts its server mid-stream. The server scripts/test starts is shared by the suites that run at the same time:
/// killing it cut their publishers and players (a fallback test's second publish then never arrived).
public final class PrivateRTMPServer: Sendable {
    /// rtmp://127.0.0.1:PORT/live
    public let url: String
    private let directory: String
    private let port: Int

    private static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/lib").standardizedFileURL.path

    /// Starts the server and waits until it accepts connections.
    public init() throws {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        directory = (base as NSString).appendingPathComponent("nginx-rtmp-\(UUID().uuidString.prefix(8))")
        let free = try Self.run(Self.scripts + "/free-port", ["20000", "40000"])
        guard let port = Int(free.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw PrivateRTMPServerError(description: "free-port printed \(free)")
        }
        self.port = port
        let started = try Self.run(Self.scripts + "/nginx-rtmp.sh", ["start", directory, String(port)])
        guard let url = started.split(separator: "\n").first.map(String.init), url.hasPrefix("rtmp://") else {
            throw PrivateRTMPServerError(description: "nginx-rtmp.sh start printed \(started)")
        }
        self.url = url
    }

    /// Its statistics page's unix socket (RTMPServerStatistics' `socket:`).
    public var statSocket: String { directory + "/stat.sock" }

    /// A stream URL of its own under the `live` application.
    public func stream(_ name: String) -> String { "\(url)/\(name)-\(UUID().uuidString.prefix(8))" }

    /// `kill` (SIGKILL, as a crash), `start`, `stop` or `restart`.
    public func control(_ action: String) throws {
        _ = try Self.run(Self.scripts + "/nginx-rtmp.sh", [action, directory, String(port)])
    }

    deinit {
        _ = try? Self.run(Self.scripts + "/nginx-rtmp.sh", ["stop", directory, String(port)])
    }

    /// Runs a script to its end; its output goes through a file, not a pipe, since nginx daemonizes and a daemon that
    /// inherited the pipe would hold it open.
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "/private-rtmp-\(UUID().uuidString).out"
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output])
        }
        defer { try? FileManager.default.removeItem(atPath: output) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw PrivateRTMPServerError(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(text)")
        }
        return text
    }
}

public struct PrivateRTMPServerError: Error, CustomStringConvertible {
    public let description: String
}
