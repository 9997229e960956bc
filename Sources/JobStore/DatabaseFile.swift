// The job database holds submitted specs, which may carry stream keys: only its owner may read it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the database file and its WAL sidecars with owner-only permissions.
enum DatabaseFile {
    /// Owner read/write, nothing for group and others.
    static let mode: mode_t = 0o600

    /// SQLite's WAL-mode companions of the main file; SQLite gives them the main file's mode.
    static let sidecarSuffixes = ["-wal", "-shm"]

    /// Creates `path` with mode 0600 before SQLite would create it with 0644, and tightens an existing file.
    static func preparePrivate(at path: String) throws(JobStoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: lastErrorText())
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .cannotOpen(path: path, reason: lastErrorText())
        }
        // An older or hand-made file may be group/world readable; the specs in it must not be.
        if status.st_mode & 0o077 != 0, fchmod(descriptor, mode) != 0 {
            throw .cannotOpen(path: path, reason: "cannot restrict it to mode 0600: \(lastErrorText())")
        }
    }

    /// Tightens the `-wal` and `-shm` files if they exist and are wider than 0600.
    static func restrictSidecars(of path: String) throws(JobStoreError) {
        for suffix in sidecarSuffixes {
            let sidecar = path + suffix
            var status = stat()
            // Absent sidecars are fine: SQLite creates them later with the main file's mode.
            guard stat(sidecar, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            guard chmod(sidecar, mode) == 0 else {
                throw .cannotOpen(path: sidecar, reason: "cannot restrict it to mode 0600: \(lastErrorText())")
            }
        }
    }

    /// The text of the current `errno`.
    private static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }
}
