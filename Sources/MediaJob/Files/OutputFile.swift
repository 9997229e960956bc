import Foundation
import Glibc
import MediaFormats
import NIOConcurrencyHelpers

/// A file output while it is written: a temporary `.NAME.<random>.part`, created exclusively (never through
/// a link, never over an existing file) in its folder, and renamed onto `NAME` in that same folder only
/// when the job succeeds. Until then nothing carries the final name; a failure removes the temporary file
/// and leaves an earlier `NAME` as it was.
///
/// It also owns the descriptor the output is written through, and the one loop that writes a file output's bytes
/// (`write`), so a failed write of any file output names the file and its cause the same way.
///
/// Writes are made by one thread at a time (the output's own, or the archive's chain).
public final class OutputFile: Sendable {
    let directory: DirectoryHandle
    /// The final name inside `directory`.
    let name: String
    let temporaryName: String
    /// The output's path as the job named it (for messages).
    public let path: String

    private enum State { case writing, published, discarded }
    private let state = NIOLockedValueBox(State.writing)
    /// The temporary file's bytes were synced by `sync()` (on the output's own thread), so `publish` need not again.
    private let synced = NIOLockedValueBox(false)
    /// The temporary file, open for writing until `closeForWriting`.
    public let descriptor: Int32
    /// False once the descriptor is closed.
    private let writing = NIOLockedValueBox(true)
    /// True when the file can seek back (a regular file), so a header can be patched at the end.
    public let isSeekable: Bool

    /// Random hex digits in the temporary name: another process cannot predict (and plant) it.
    static let randomDigits = 16

    private init(directory: DirectoryHandle, name: String, temporaryName: String, path: String, descriptor: Int32) {
        self.directory = directory
        self.name = name
        self.temporaryName = temporaryName
        self.path = path
        self.descriptor = descriptor
        isSeekable = lseek(descriptor, 0, SEEK_CUR) >= 0
    }

    deinit { try? closeForWriting() }

    /// Creates the folder (walked without links under `root`, or as given without one) and the temporary
    /// file in it, open for writing (`write`) until `closeForWriting`.
    /// - Parameters:
    ///   - path: the output, absolute under `root` when there is one.
    ///   - root: the output root; nil uses the path as given (`sluice run`: the operator is trusted).
    ///   - owner: the job writing it, named in the temporary name so that a later attempt can sweep it.
    public static func create(path: String, root: String?, owner: PartOwner? = nil) throws(FileAccessError) -> OutputFile {
        let (directory, name) = try folder(of: path, root: root, creating: true)
        // A name that is taken (by chance or by a planted file) is never opened: try another.
        for _ in 0..<8 {
            let temporaryName = OutputFile.temporaryName(for: name, owner: owner)
            // The folder's descriptor must stay open through the call that takes its number.
            let descriptor = withExtendedLifetime(directory) {
                openat(directory.descriptor, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            }
            if descriptor >= 0 {
                // Held until the writer closes it: a sweep of stale parts never takes a part someone still writes.
                _ = flock(descriptor, LOCK_SH | LOCK_NB)
                return OutputFile(directory: directory, name: name, temporaryName: temporaryName, path: path, descriptor: descriptor)
            }
            guard errno == EEXIST else { throw .system(path) }
        }
        throw FileAccessError(path: path, reason: "cannot create a temporary file next to it: every name tried exists", code: EEXIST)
    }

    /// The folder an output goes in (opened; created when asked) and the output's name in it.
    static func folder(of path: String, root: String?, creating: Bool) throws(FileAccessError) -> (DirectoryHandle, String) {
        let directory: DirectoryHandle
        let name: String
        if let root {
            guard let components = FileRoots.components(of: path, under: root), let last = components.last else {
                throw FileAccessError(path: path, reason: "is outside the allowed root \(root)")
            }
            directory = try DirectoryHandle.open(root: root, components: Array(components.dropLast()), creating: creating)
            name = String(last)
        } else {
            name = PathText.lastComponent(path)
            directory = try DirectoryHandle.open(trusted: PathText.parent(path), creating: creating)
        }
        guard !name.isEmpty, name != ".", name != ".." else { throw FileAccessError(path: path, reason: "names no file") }
        return (directory, name)
    }

    /// `.NAME.<16 hex digits>.part`, or `.NAME.<owner tag>.<16 hex digits>.part` with an owner: hidden,
    /// unpredictable, and still saying what it becomes and (with an owner) whose it is.
    static func temporaryName(for name: String, owner: PartOwner? = nil) -> String {
        var random = SystemRandomNumberGenerator()
        let digits = String(random.next() as UInt64, radix: 16)
        let ownerText = owner.map { "\($0.tag)." } ?? ""
        return ".\(name).\(ownerText)\(String(repeating: "0", count: randomDigits - digits.count))\(digits).part"
    }

    /// Writes all of `bytes` at the end of the temporary file, or at `offset` leaving the end where it is, retrying
    /// on EINTR. A failure (a full disk: ENOSPC) names the file and the cause.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) throws(FileAccessError) {
        guard writing.withLockedValue({ $0 }) else { throw FileAccessError(path: path, reason: "written after it was closed", code: EBADF) }
        var done = 0
        while done < bytes.count {
            let start = bytes.baseAddress?.advanced(by: done), count = bytes.count - done
            let written = offset.map { pwrite(descriptor, start, count, off_t($0) + off_t(done)) } ?? Glibc.write(descriptor, start, count)
            if written < 0 {
                if errno == EINTR { continue }
                throw .system(path)
            }
            done += written
        }
    }

    /// Closes the descriptor (once); a late write error that only the close reports (NFS, quotas) is thrown.
    public func closeForWriting() throws(FileAccessError) {
        let open = writing.withLockedValue { open in
            defer { open = false }
            return open
        }
        guard open, Glibc.close(descriptor) != 0 else { return }
        throw .system(path)
    }

    /// Makes the finished file durable under its final name: syncs the temporary file's bytes, renames it onto
    /// the final name, atomically, in the folder opened at the start (a link at the final name is replaced, not
    /// followed), then syncs the folder, so that once this returns (and the job is recorded `succeeded`) a power
    /// loss leaves either the old state or the whole file, never an empty or missing one. On a failure before the
    /// rename the temporary file is removed. (`rename` and `syncFolders` do the same for several files at once.)
    public func publish() throws(FileAccessError) {
        try rename()
        try syncFolder()
    }

    /// `publish` without its last step: the file's bytes synced and the file renamed onto its final name, but the
    /// folder not synced yet. A job with several outputs renames them all, then syncs their folders once each
    /// (`OutputFile.syncFolders`) before it records success.
    public func rename() throws(FileAccessError) { try rename(syncing: true) }

    /// Renames the finished file onto its name without syncing it or its folder: for a file that matters only while
    /// the job runs and that a crash makes worthless anyway (a live playlist's window: its segments, parts and
    /// playlists, replaced or removed within seconds). Its bytes reach the disk by writeback; readers see them at
    /// once through the page cache. What outlives the job is synced at its end (`syncPublished`).
    public func publishTransient() throws(FileAccessError) { try rename(syncing: false) }

    private func rename(syncing: Bool) throws(FileAccessError) {
        let publishing = state.withLockedValue { state in
            guard state == .writing else { return false }
            state = .published
            return true
        }
        guard publishing else { return }
        do {
            if syncing, !synced.withLockedValue({ $0 }) { try syncTemporaryFile() }
        } catch {
            unlinkat(directory.descriptor, temporaryName, 0)
            throw error
        }
        // A file the rename replaces (an earlier run's output) is held open across it, so that the rename does not
        // free its blocks on the job's path: on ext4 that took 12-15 ms per 45 MB file inside renameat. The last
        // reference goes on a queue of its own, beside the folder sync and the job's commit. A small file (a live
        // playlist, replaced every part or segment by each of a hundred outputs) is freed in the rename at no cost:
        // holding it would wake that queue's thread for every playlist.
        // Only a regular file is opened (opening a device or a FIFO could do something of its own).
        var existing = stat()
        let replaced = fstatat(directory.descriptor, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 && existing.st_mode & S_IFMT == S_IFREG
            && existing.st_size >= Self.heldReplacedBytes
            ? openat(directory.descriptor, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) : -1
        guard renameat(directory.descriptor, temporaryName, directory.descriptor, name) == 0 else {
            let error = FileAccessError.system(path)
            if replaced >= 0 { close(replaced) }
            unlinkat(directory.descriptor, temporaryName, 0)
            throw FileAccessError(path: path, reason: "cannot rename the finished file into place: \(error.reason)", code: error.code)
        }
        if replaced >= 0 { Self.letGo(replaced) }
    }

    /// The size from which a replaced file is held open across the rename and let go on `replacedFiles`.
    static let heldReplacedBytes = 1 << 20

    /// Where replaced files are closed (and their blocks freed), off the threads that finish jobs.
    private static let replacedFiles = DispatchQueue(label: "sluice.replaced-files", qos: .utility)

    private static func letGo(_ descriptor: Int32) {
        replacedFiles.async { close(descriptor) }
    }

    /// Syncs the folder the file was renamed in: the rename is an entry in the folder, and without this sync it
    /// can be lost while the job says succeeded.
    public func syncFolder() throws(FileAccessError) {
        guard Self.sync(directory.descriptor) else {
            let error = FileAccessError.system(path)
            throw FileAccessError(path: path, reason: "renamed into place, but its folder could not be synced: \(error.reason)",
                                  code: error.code)
        }
    }

    /// Syncs the folders of renamed files, each folder once however many of the files are in it (a folder's sync
    /// commits the file system's journal: on ext4 the three outputs of one job waited for three commits in a row).
    /// - Returns: the index of the first file whose folder could not be synced, and why; nil when all were.
    public static func syncFolders(of files: [OutputFile]) -> (index: Int, error: FileAccessError)? {
        var synced = Set<FolderIdentity>()
        for (index, file) in files.enumerated() {
            var info = stat()
            // A folder that cannot be identified is synced anyway: a second sync costs time, a missing one durability.
            if fstat(file.directory.descriptor, &info) == 0,
               !synced.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted {
                continue
            }
            do throws(FileAccessError) { try file.syncFolder() } catch { return (index, error) }
        }
        return nil
    }

    private struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// Syncs the finished temporary file now, ahead of `publish`: each output's thread syncs its own file, so a job's
    /// outputs reach the disk side by side instead of one after another in `publish`. The file stays hidden until then.
    public func sync() throws(FileAccessError) {
        try syncTemporaryFile()
        synced.withLockedValue { $0 = true }
    }

    /// fsync of the temporary file, through a descriptor of its own (the writer's is closed by now).
    private func syncTemporaryFile() throws(FileAccessError) {
        let descriptor = openat(directory.descriptor, temporaryName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = FileAccessError.system(path)
            throw FileAccessError(path: path, reason: "cannot open the finished file to sync it: \(error.reason)", code: error.code)
        }
        defer { close(descriptor) }
        guard Self.sync(descriptor) else {
            let error = FileAccessError.system(path)
            throw FileAccessError(path: path, reason: "cannot sync the finished file to disk: \(error.reason)", code: error.code)
        }
    }

    /// fsync, retried on EINTR; a descriptor that cannot be synced at all (EINVAL: a file system without
    /// fsync, such as some FUSE mounts) counts as synced, since nothing more can be done there.
    private static func sync(_ descriptor: Int32) -> Bool {
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            return errno == EINVAL
        }
        return true
    }

    /// Writes `bytes` as the whole of a file and publishes it (synced, renamed into place, its folder synced): a
    /// segment or a playlist that must be complete and durable before anything names it.
    /// With `durable` false it is renamed into place without either sync (`publishTransient`).
    public static func publishWhole(_ bytes: [UInt8], path: String, root: String?, owner: PartOwner?,
                                    durable: Bool = true) throws(FileAccessError) {
        let file = try OutputFile.create(path: path, root: root, owner: owner)
        do throws(FileAccessError) {
            try bytes.withUnsafeBufferPointer { (buffer) throws(FileAccessError) in try file.write(UnsafeRawBufferPointer(buffer)) }
            try file.closeForWriting()
            if durable { try file.publish() } else { try file.publishTransient() }
        } catch {
            file.discard()
            throw error
        }
    }

    /// Makes files published by `publishTransient` durable: each synced, then each of their folders once. A live
    /// playlist's last window, before the final playlist that names it is published.
    public static func syncPublished(paths: [String], root: String?) throws(FileAccessError) {
        var folders: [(handle: DirectoryHandle, path: String)] = []
        var seen = Set<String>()
        for path in paths {
            let (directory, name) = try folder(of: path, root: root, creating: false)
            let descriptor = withExtendedLifetime(directory) {
                openat(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard descriptor >= 0 else {
                let error = FileAccessError.system(path)
                throw FileAccessError(path: path, reason: "cannot open the published file to sync it: \(error.reason)", code: error.code)
            }
            defer { close(descriptor) }
            guard sync(descriptor) else {
                let error = FileAccessError.system(path)
                throw FileAccessError(path: path, reason: "cannot sync the published file to disk: \(error.reason)", code: error.code)
            }
            if seen.insert(PathText.parent(path)).inserted { folders.append((directory, path)) }
        }
        for (directory, path) in folders where !sync(directory.descriptor) {
            let error = FileAccessError.system(path)
            throw FileAccessError(path: path, reason: "its folder could not be synced: \(error.reason)", code: error.code)
        }
    }

    /// Removes a published file (a segment that left a playlist's window), reaching it as `create` does; a file
    /// that is already gone is not an error.
    public static func removePublished(path: String, root: String?) throws(FileAccessError) {
        let (directory, name) = try folder(of: path, root: root, creating: false)
        guard unlinkat(directory.descriptor, name, 0) == 0 || errno == ENOENT else { throw .system(path) }
    }

    /// Closes and removes the temporary file (once; nothing after `publish`).
    public func discard() {
        try? closeForWriting()
        let discarding = state.withLockedValue { state in
            guard state == .writing else { return false }
            state = .discarded
            return true
        }
        if discarding { unlinkat(directory.descriptor, temporaryName, 0) }
    }
}
