import Foundation
import Testing

/// A tmpfs of a few MB mounted for one test, to fill up for real (`mount` needs root, which CI has).
public final class TinyDisk: Sendable {
    public let path: String

    /// Whether tmpfs mounts work here, probed once. Under `CI=true` tests run regardless, so a refused
    /// mount fails them instead of skipping them silently.
    public static let isAvailable: Bool = {
        let probe = NSTemporaryDirectory() + "sluice-tmpfs-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]))?.status == 0 else { return false }
        _ = try? run("/bin/umount", [probe])
        return true
    }()
    public static let shouldRun = isAvailable || ProcessInfo.processInfo.environment["CI"] == "true"
    public static let skipReason: Comment = "mount -t tmpfs is refused here (not root?): full-disk tests skipped; under CI=true they fail instead"

    public struct MountError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Mounts a tmpfs of `megabytes` at `path` (created if missing); `inodes` caps its files and folders.
    public init(at path: String, megabytes: Int, inodes: Int? = nil) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let options = "size=\(megabytes)m" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
        let mount = try TinyDisk.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path])
        guard mount.status == 0 else { throw MountError(description: "mount -t tmpfs at \(path) failed: \(mount.output)") }
    }

    /// Unmounts (lazily, in case a process of the test still holds a file there).
    public func unmount() {
        _ = try? TinyDisk.run("/bin/umount", ["-l", path])
    }

    public var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    private static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
