import Foundation
import MediaFormats

/// Why a file could not be opened, created or published; `path` is the file or folder as the job named it.
public struct FileAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The `errno` behind it (0 when the refusal is ours, e.g. a symbolic link).
    public var code: Int32

    public init(path: String, reason: String, code: Int32 = 0) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    /// The failed call's `errno`, worded like the rest of our messages (`no space left on device`).
    static func system(_ path: String, _ code: Int32 = errno) -> FileAccessError {
        FileAccessError(path: path, reason: FileAccessError.text(code), code: code)
    }

    static func text(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    public var description: String { "\(path): \(reason)" }
}

/// The folders a job may touch when the job comes from someone else (the worker's roots): every file
/// is reached from its root one component at a time without following symbolic links, so a link planted or
/// swapped in after the job was validated cannot lead outside.
public struct FileRoots: Sendable, Equatable {
    /// Absolute, already resolved: paths handed to the engine start with these.
    public var input: String
    public var output: String

    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// The components of `path` below `root`; nil when `path` is not under it.
    package static func components(of path: String, under root: String) -> [Substring]? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: true)
    }
}

/// An open directory, the anchor for `openat`/`renameat`/`unlinkat` on the names inside it.
/// Immutable; the descriptor is closed once, in deinit.
package final class DirectoryHandle: Sendable {
    package let descriptor: Int32
    /// How messages name it (the path as the job gave it).
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { Glibc.close(descriptor) }

    /// Opens `path` as given, following links (the operator chose it), creating missing folders on the way.
    static func open(trusted path: String, creating: Bool) throws(FileAccessError) -> DirectoryHandle {
        let directory = path.isEmpty ? "." : path
        if creating {
            var walked = directory.hasPrefix("/") ? "/" : ""
            for component in directory.split(separator: "/") {
                walked = PathText.appending(String(component), to: walked)
                // EEXIST also for a file in the way: the open below names it.
                if mkdir(walked, 0o755) != 0 && errno != EEXIST {
                    let error = FileAccessError.system(walked)
                    throw FileAccessError(path: walked, reason: "cannot create the folder: \(error.reason)", code: error.code)
                }
            }
        }
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(directory) }
        return DirectoryHandle(descriptor: descriptor, path: directory)
    }

    /// Opens `root` (following links: the operator chose it), then each component below it with
    /// `O_NOFOLLOW`, creating missing folders with `mkdirat` when `creating`. A component that is a
    /// symbolic link, `..`, or not a folder is refused.
    /// - Parameters:
    ///   - root: the allowed root.
    ///   - components: the folders below the root, outermost first.
    ///   - creating: create missing folders (outputs) or refuse them (inputs).
    package static func open(root: String, components: [Substring], creating: Bool) throws(FileAccessError) -> DirectoryHandle {
        var current = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw .system(root) }
        var walked = root
        for component in components {
            walked = PathText.appending(String(component), to: walked)
            if component == "." { continue }
            guard component != ".." else {
                Glibc.close(current)
                throw FileAccessError(path: walked, reason: "a path may not step out of its folder with ..")
            }
            var next = openat(current, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT && creating {
                // EEXIST: another job created it meanwhile; the open below still refuses a link.
                if mkdirat(current, String(component), 0o755) != 0 && errno != EEXIST {
                    let error = FileAccessError.system(walked)
                    Glibc.close(current)
                    throw FileAccessError(path: walked, reason: "cannot create the folder: \(error.reason)", code: error.code)
                }
                next = openat(current, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if next < 0 {
                let code = errno
                let refusal = DirectoryHandle.refusal(at: walked, name: String(component), in: current, code: code)
                Glibc.close(current)
                throw refusal
            }
            Glibc.close(current)
            current = next
        }
        return DirectoryHandle(descriptor: current, path: walked)
    }

    /// Names the reason an `openat` failed: a symbolic link (ELOOP, or ENOTDIR on some kernels) is said so.
    package static func refusal(at path: String, name: String, in directory: Int32, code: Int32) -> FileAccessError {
        if code == ELOOP || code == ENOTDIR {
            var info = stat()
            if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK {
                return FileAccessError(path: path, reason: "is a symbolic link, which is not followed under an allowed root", code: code)
            }
        }
        return .system(path, code)
    }
}
