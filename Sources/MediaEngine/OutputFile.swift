import Foundation
import MediaFormats
import Synchronization

/// A file output while it is written: a temporary `.NAME.<random>.part`, created exclusively (never through
/// a link, never over an existing file) in its folder, and renamed onto `NAME` in that same folder only
/// when the job succeeds. Until then nothing carries the final name; a failure removes the temporary file
/// and leaves an earlier `NAME` as it was.
public final class OutputFile: @unchecked Sendable {
    // Reason: `directory`, the names and `path` are immutable; `state` is guarded by its mutex.
    let directory: DirectoryHandle
    /// The final name inside `directory`.
    let name: String
    let temporaryName: String
    /// The output's path as the job named it (for messages).
    let path: String

    private enum State { case writing, published, discarded }
    private let state = Mutex(State.writing)

    /// Random hex digits in the temporary name: another process cannot predict (and plant) it.
    static let randomDigits = 16

    private init(directory: DirectoryHandle, name: String, temporaryName: String, path: String) {
        self.directory = directory
        self.name = name
        self.temporaryName = temporaryName
        self.path = path
    }

    /// Creates the folder (walked without links under `root`, or as given without one) and the temporary
    /// file in it. Returns the file and its descriptor, open for writing, which the caller owns.
    /// - Parameters:
    ///   - path: the output, absolute under `root` when there is one.
    ///   - root: the output root; nil uses the path as given (`sluice run`: the operator is trusted).
    public static func create(path: String, root: String?) throws(FileAccessError) -> (OutputFile, descriptor: Int32) {
        let directory: DirectoryHandle
        let name: String
        if let root {
            guard let components = FileRoots.components(of: path, under: root), let last = components.last else {
                throw FileAccessError(path: path, reason: "is outside the allowed root \(root)")
            }
            directory = try DirectoryHandle.open(root: root, components: Array(components.dropLast()), creating: true)
            name = String(last)
        } else {
            name = PathText.lastComponent(path)
            directory = try DirectoryHandle.open(trusted: PathText.parent(path), creating: true)
        }
        guard !name.isEmpty, name != ".", name != ".." else { throw FileAccessError(path: path, reason: "names no file") }
        // A name that is taken (by chance or by a planted file) is never opened: try another.
        for _ in 0..<8 {
            let temporaryName = OutputFile.temporaryName(for: name)
            // The folder's descriptor must stay open through the call that takes its number.
            let descriptor = withExtendedLifetime(directory) {
                openat(directory.descriptor, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            }
            if descriptor >= 0 {
                return (OutputFile(directory: directory, name: name, temporaryName: temporaryName, path: path), descriptor)
            }
            guard errno == EEXIST else { throw .system(path) }
        }
        throw FileAccessError(path: path, reason: "cannot create a temporary file next to it: every name tried exists", code: EEXIST)
    }

    /// `.NAME.<16 hex digits>.part`: hidden, unpredictable, and still saying what it becomes.
    static func temporaryName(for name: String) -> String {
        var random = SystemRandomNumberGenerator()
        let digits = String(random.next() as UInt64, radix: 16)
        return ".\(name).\(String(repeating: "0", count: randomDigits - digits.count))\(digits).part"
    }

    /// Renames the temporary file onto the final name, atomically, in the folder opened at the start (a
    /// link at the final name is replaced, not followed). On failure the temporary file is removed.
    public func publish() throws(FileAccessError) {
        let publishing = state.withLock { state in
            guard state == .writing else { return false }
            state = .published
            return true
        }
        guard publishing else { return }
        guard renameat(directory.descriptor, temporaryName, directory.descriptor, name) == 0 else {
            let error = FileAccessError.system(path)
            unlinkat(directory.descriptor, temporaryName, 0)
            throw FileAccessError(path: path, reason: "cannot rename the finished file into place: \(error.reason)", code: error.code)
        }
    }

    /// Removes the temporary file (once; nothing after `publish`).
    public func discard() {
        let discarding = state.withLock { state in
            guard state == .writing else { return false }
            state = .discarded
            return true
        }
        if discarding { unlinkat(directory.descriptor, temporaryName, 0) }
    }
}
