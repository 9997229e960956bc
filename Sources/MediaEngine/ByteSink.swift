import CFFmpeg
import Glibc
import MediaPipeline

/// A file output's bytes on their way to a descriptor already opened by `OutputFile`: the sinks build FLV tags, Annex B
/// and ADTS frames straight into its buffer (`append`), and it writes the buffer out in large `write(2)` calls. One
/// copy of each payload, as FFmpeg's muxers do through AVIO; the AVIO context this replaced added a second (each
/// sink's bytes copied into AVIO's buffer). Every RTMP byte is the live engine's, so this only ever writes files.
/// Used by one output thread at a time; `@unchecked Sendable` so it can be opened on one thread and written from
/// another.
public final class ByteSink: @unchecked Sendable {
    /// Bytes not yet written to the descriptor.
    private var pending: [UInt8] = []
    /// The file's descriptor, owned; -1 once closed.
    private var descriptor: Int32
    /// Bytes written since writeback was last started.
    private var unsynced = 0
    /// Bytes handed to the sink so far (written or pending): the offset the next byte lands at.
    public private(set) var bytesWritten: Int64 = 0
    /// True when the sink can seek back (a regular file), so headers can be patched at the end.
    public let isSeekable: Bool

    /// Writes to an open file descriptor; the sink owns the descriptor and closes it.
    public init(fileDescriptor: Int32) {
        descriptor = fileDescriptor
        isSeekable = lseek(fileDescriptor, 0, SEEK_CUR) >= 0
        pending.reserveCapacity(ByteSink.fileBufferSize + ByteSink.fileBufferSize / 2)
    }

    deinit { _ = closeDescriptor() }

    /// A write(2) once 1 MiB is pending: a 60 s 1080p copy job writes its 90 MB in ~90 calls (with AVIO's 32 KiB
    /// default it made ~2,800, a third of the copy benchmark's gap to ffmpeg then).
    static let fileBufferSize = 1 << 20

    /// Writeback starts after this much: the disk writes while the job goes on, and the fsync before the rename
    /// (`OutputFile.publish`) only waits for the tail. Without it a 60 s 1080p copy job waited ~150 ms in fsync.
    static let writebackChunk = 8 << 20

    /// Lets `body` append to the pending bytes (an FLV tag, an access unit) and writes them out once enough are
    /// pending. When `body` throws, what it appended is taken back: a packet is written whole or not at all.
    public func append<Result>(_ body: (inout [UInt8]) throws -> Result) throws -> Result {
        let mark = pending.count
        let result: Result
        do {
            result = try body(&pending)
        } catch {
            pending.removeSubrange(mark...)
            throw error
        }
        bytesWritten += Int64(pending.count - mark)
        if pending.count >= ByteSink.fileBufferSize { try drain() }
        return result
    }

    /// Appends bytes; a write error (a full disk) is thrown on this or a later call.
    public func write(_ bytes: [UInt8]) throws {
        try append { $0.append(contentsOf: bytes) }
    }

    /// Overwrites bytes at an absolute offset already handed over (used to patch FLV `onMetaData`); the end stays
    /// where it was.
    public func patch(at offset: Int64, with bytes: [UInt8]) throws {
        try drain()
        try bytes.withUnsafeBytes { try writeAll($0, at: offset) }
    }

    /// Writes out what is pending and closes; errors that only show at close (a full disk, NFS) are thrown.
    public func close() throws {
        defer { pending = [] }
        let pendingError: (any Error)?
        do {
            try drain()
            pendingError = nil
        } catch {
            pendingError = error
        }
        let status = closeDescriptor()
        if let pendingError { throw pendingError }
        guard status == 0 else { throw FFmpegError(function: "close", code: status) }
    }

    /// Writes the pending bytes at the end, and starts writeback every `writebackChunk`.
    private func drain() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        try pending.withUnsafeBytes { try writeAll($0) }
        unsynced += pending.count
        if unsynced >= ByteSink.writebackChunk {
            unsynced = 0
            // Only a hint: a file system or descriptor that cannot do it still gets its fsync at the end.
            _ = sluice_start_writeback(descriptor)
        }
    }

    /// Writes all of `bytes` at the end, or at `offset` leaving the end where it is (EINTR retried); throws
    /// `AVERROR(errno)` (ENOSPC on a full disk).
    private func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) throws {
        let call = offset == nil ? "write" : "pwrite"
        guard descriptor >= 0 else { throw FFmpegError(function: call, code: sluice_averror(EBADF)) }
        var done = 0
        while done < bytes.count {
            let start = bytes.baseAddress?.advanced(by: done), count = bytes.count - done
            let written = offset.map { pwrite(descriptor, start, count, off_t($0) + off_t(done)) } ?? Glibc.write(descriptor, start, count)
            if written < 0 {
                if errno == EINTR { continue }
                throw FFmpegError(function: call, code: sluice_averror(errno))
            }
            done += written
        }
    }

    /// Closes once; returns `AVERROR(errno)` when the close reports a late write error (NFS, quotas).
    private func closeDescriptor() -> Int32 {
        guard descriptor >= 0 else { return 0 }
        defer { descriptor = -1 }
        return Glibc.close(descriptor) == 0 ? 0 : sluice_averror(errno)
    }
}
