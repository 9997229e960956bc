import CFileIO
import MediaJob

/// A file output's bytes on their way into its `OutputFile`: the sinks build FLV tags, Annex B and ADTS frames
/// straight into its buffer (`append`), and it writes the buffer out in large writes through `OutputFile.write`.
/// One copy of each payload, as FFmpeg's muxers do through AVIO. Then `close`, `sync` and `rename` (the job
/// succeeded) or `discard`. Used by one output thread at a time; `@unchecked Sendable` so it can be opened on one
/// thread and written from another.
package final class FileWriter: @unchecked Sendable {
    package let file: OutputFile
    /// The output's path as the job named it.
    package var path: String { file.path }
    /// Bytes not yet written to the file.
    private var pending: [UInt8] = []
    /// Bytes written since writeback was last started.
    private var unsynced = 0
    /// Bytes handed over so far (written or pending): the offset the next byte lands at.
    package private(set) var bytesWritten: Int64 = 0
    /// True when headers can be patched at the end (a regular file).
    package var isSeekable: Bool { file.isSeekable }

    /// A write once 1 MiB is pending: a 60 s 1080p copy job writes its 90 MB in ~90 calls (with AVIO's 32 KiB
    /// default it made ~2,800, a third of the copy benchmark's gap to ffmpeg then).
    package static let bufferSize = 1 << 20
    /// A live output's writes: 64 KiB. Its pending bytes are memory it holds for as long as the job runs (a hundred
    /// live recordings kept 1.5 MiB each reserved for a 1 MiB buffer); at 3 Mb/s that is still ~6 writes a second.
    package static let liveBufferSize = 64 << 10

    /// Pending bytes beyond which they are written out.
    private let threshold: Int

    /// Writeback starts after this much: the disk writes while the job goes on, and the fsync before the rename only
    /// waits for the tail. Without it a 60 s 1080p copy job waited ~150 ms in fsync.
    package static let writebackChunk = 8 << 20

    /// Creates the output's temporary file (see `OutputFile.create`).
    /// - Parameters:
    ///   - path: the file to write (under a temporary name until `rename`).
    ///   - root: the output root the file must be created under, walked without following links; nil uses the path as given.
    ///   - owner: the job writing it, named in its temporary name.
    ///   - bufferSize: pending bytes written out at once (`liveBufferSize` for a live input's outputs).
    package init(path: String, root: String? = nil, owner: PartOwner? = nil, bufferSize: Int = FileWriter.bufferSize) throws(FileAccessError) {
        file = try OutputFile.create(path: path, root: root, owner: owner)
        threshold = max(bufferSize, 4096)
    }

    /// Lets `body` append to the pending bytes (an FLV tag, an access unit) and writes them out once enough are
    /// pending. When `body` throws, what it appended is taken back: a packet is written whole or not at all.
    package func append<Result>(_ body: (inout [UInt8]) throws -> Result) throws -> Result {
        // Reserved at the first write, not at the open: a live HLS output's file is its final playlist, written once at
        // the end, and a hundred of them held 96 KiB each for nothing.
        if pending.capacity == 0 { pending.reserveCapacity(threshold + threshold / 2) }
        let mark = pending.count
        let result: Result
        do {
            result = try body(&pending)
        } catch {
            pending.removeSubrange(mark...)
            throw error
        }
        bytesWritten += Int64(pending.count - mark)
        if pending.count >= threshold { try drain() }
        return result
    }

    /// Appends bytes; a write error (a full disk) is thrown on this or a later call.
    package func write(_ bytes: [UInt8]) throws {
        try append { $0.append(contentsOf: bytes) }
    }

    /// Overwrites bytes at an absolute offset already handed over (FLV `onMetaData`'s duration); the end stays.
    package func patch(at offset: Int64, with bytes: [UInt8]) throws {
        try drain()
        try bytes.withUnsafeBytes { try file.write($0, at: offset) }
    }

    /// Writes out what is pending now (a segmented recording's `.part` stays salvageable up to its last write).
    package func flush() throws { try drain() }

    /// Writes out what is pending and closes; errors that only show at close (a full disk, NFS) are thrown.
    package func close() throws {
        defer { pending = [] }
        do {
            try drain()
        } catch {
            // The write's error is the one to report; the close is only cleanup after it.
            try? file.closeForWriting()
            throw error
        }
        try file.closeForWriting()
    }

    /// Syncs the closed file's bytes to disk ahead of `rename` (on the output's own thread).
    package func sync() throws(FileAccessError) { try file.sync() }

    /// Makes a closed file visible under its real name (an atomic rename in its folder); its folder is synced
    /// after, with the job's other outputs' (`OutputFile.syncFolders`).
    package func rename() throws(FileAccessError) -> OutputFile {
        try file.rename()
        return file
    }

    /// Closes without committing; the temporary file is removed.
    package func discard() {
        pending = []
        file.discard()
    }

    /// Writes the pending bytes at the end, and starts writeback every `writebackChunk`.
    private func drain() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        try pending.withUnsafeBytes { try file.write($0) }
        unsynced += pending.count
        if unsynced >= FileWriter.writebackChunk {
            unsynced = 0
            // Only a hint: a file system or descriptor that cannot do it still gets its fsync at the end.
            _ = sluice_start_writeback(file.descriptor)
        }
    }
}
