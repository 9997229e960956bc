import Foundation
import Testing

/// A tmpfs of a few MB mounted for one test, to fill up for real (`mount` needs root, which CI has).
final class TinyDisk {
    let path: String

    /// Whether tmpfs mounts work here, probed once. Under `CI=true` tests run regardless, so a refused
    /// mount fails them instead of skipping them silently.
    static let isAvailable: Bool = {
        let probe = NSTemporaryDirectory() + "sluice-tmpfs-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? Command.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], check: false).status) == 0 else { return false }
        _ = try? Command.run("/bin/umount", [probe], check: false)
        return true
    }()
    static let shouldRun = isAvailable || ProcessInfo.processInfo.environment["CI"] == "true"
    static let skipReason: Comment = "mount -t tmpfs is refused here (not root?): full-disk tests skipped; under CI=true they fail instead"

    /// Mounts a tmpfs of `megabytes` at `path` (created if missing).
    init(at path: String, megabytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Command.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
    }

    /// Unmounts (lazily, in case a test's process still holds a file there).
    func unmount() {
        _ = try? Command.run("/bin/umount", ["-l", path], check: false)
    }

    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
