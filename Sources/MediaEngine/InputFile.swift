import Foundation
import MediaJob

/// Opens a file input for reading. Under a root the walk never follows a link, and the file is handed to
/// libavformat as `/proc/self/fd/N`, so nothing swapped in after validation can redirect the read.
final class InputFile: @unchecked Sendable {
    // Reason: immutable after init; the descriptor is closed once, in deinit.
    let descriptor: Int32

    /// What libavformat opens: a new descriptor of the very file this one holds (seekable, like the path).
    var url: String { "file:/proc/self/fd/\(descriptor)" }

    /// - Parameters:
    ///   - path: the file, absolute and under `root`.
    ///   - root: the input root.
    init(path: String, root: String) throws(FileAccessError) {
        guard let components = FileRoots.components(of: path, under: root), let name = components.last else {
            throw FileAccessError(path: path, reason: "is outside the allowed root \(root)")
        }
        let directory = try DirectoryHandle.open(root: root, components: Array(components.dropLast()), creating: false)
        guard name != ".." else { throw FileAccessError(path: path, reason: "a path may not step out of its folder with ..") }
        // O_NONBLOCK: a FIFO planted under the root must not hang the open; regular files ignore it.
        // The folder's descriptor must stay open through the calls that take its number.
        let (descriptor, refusal) = withExtendedLifetime(directory) {
            let descriptor = openat(directory.descriptor, String(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            let code = errno
            return (descriptor, descriptor < 0 ? DirectoryHandle.refusal(at: path, name: String(name), in: directory.descriptor, code: code) : nil)
        }
        if let refusal { throw refusal }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(descriptor)
            throw FileAccessError(path: path, reason: "is not a regular file")
        }
        self.descriptor = descriptor
    }

    deinit { Glibc.close(descriptor) }
}
