import CFFmpeg
import Glibc

/// Owns one `AVIOContext` writing to a file descriptor already opened by `OutputFile` (libavformat never opens
/// a network URL here: every RTMP byte is the live engine's). Used by one output thread at a time; `@unchecked Sendable` so it can be opened on one
/// thread and written from another.
public final class ByteSink: @unchecked Sendable {
    private var context: UnsafeMutablePointer<AVIOContext>?
    private var interruptCallback: AVIOInterruptCB
    /// The callback's opaque pointer is unretained: the sink keeps its interrupter alive as long as the context.
    private let interrupter: Interrupter
    /// AVIO's callbacks write to this descriptor (no path is ever opened again).
    private let file: FileDescriptorIO
    /// Bytes handed to the sink so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Writes to an open file descriptor through AVIO's buffer; the sink owns the descriptor and closes it
    /// (also when this init throws).
    public init(fileDescriptor: Int32) throws {
        interrupter = Interrupter()
        interruptCallback = interrupter.callback
        let file = FileDescriptorIO(descriptor: fileDescriptor)
        self.file = file
        guard let buffer = av_malloc(ByteSink.fileBufferSize) else {
            throw FFmpegError(function: "av_malloc", code: sluice_averror(ENOMEM))
        }
        context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(ByteSink.fileBufferSize), 1,
                                     Unmanaged.passUnretained(file).toOpaque(), nil, FileDescriptorIO.write, FileDescriptorIO.seek)
        guard let context else {
            av_free(buffer)
            throw FFmpegError(function: "avio_alloc_context", code: sluice_averror(ENOMEM))
        }
        // Seekable, as the file protocol is: FLV patches its duration and size at the end.
        context.pointee.seekable = AVIO_SEEKABLE_NORMAL
    }

    /// 1 MiB per output: a 60 s 1080p copy job writes its 90 MB in ~90 write(2) calls instead of ~2,800 with AVIO's
    /// 32 KiB default (the write count was a third of the copy benchmark's gap to ffmpeg).
    static let fileBufferSize = 1 << 20

    deinit {
        freeCustomContext()
    }

    /// A context from `avio_alloc_context` is freed by hand (`avio_close` would take its opaque for a URLContext).
    private func freeCustomContext() {
        guard let opened = context else { return }
        av_freep(&opened.pointee.buffer)
        avio_context_free(&context)
    }

    /// True when the sink can seek back (files), so headers can be patched at the end.
    public var isSeekable: Bool { (context?.pointee.seekable ?? 0) != 0 }

    public var position: Int64 { context.map { avio_tell($0) } ?? 0 }

    /// Appends bytes; a write error (disk full, broken connection) is thrown on this or a later call.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let context else { throw FFmpegError(function: "avio_write", code: sluice_averror(EBADF)) }
        var offset = 0
        while offset < bytes.count {
            // avio_write takes an Int32 size: write in chunks that fit it.
            let chunk = min(bytes.count - offset, 1 << 30)
            avio_write(context, bytes.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(chunk))
            offset += chunk
        }
        bytesWritten += Int64(bytes.count)
        try check(context.pointee.error, "avio_write")
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Overwrites bytes at an absolute offset and returns to the end (used to patch FLV `onMetaData`).
    public func patch(at offset: Int64, with bytes: [UInt8]) throws {
        guard let context else { return }
        let end = avio_tell(context)
        try check(avio_seek(context, offset, SEEK_SET), "avio_seek")
        bytes.withUnsafeBufferPointer { avio_write(context, $0.baseAddress, Int32($0.count)) }
        try check(avio_seek(context, end, SEEK_SET), "avio_seek")
        try check(context.pointee.error, "avio_write")
    }

    public func flush() throws {
        guard let context else { return }
        avio_flush(context)
        try check(context.pointee.error, "avio_flush")
    }

    /// Flushes and closes; errors that only show at close (a full disk) are thrown.
    public func close() throws {
        guard context != nil else { return }
        if let context { avio_flush(context) }
        let pending = context?.pointee.error ?? 0
        freeCustomContext()
        let status = file.close()
        try check(pending, "avio_flush")
        try check(status, "close")
    }
}

/// The descriptor behind a file `ByteSink`, and AVIO's write and seek callbacks on it.
final class FileDescriptorIO {
    private var descriptor: Int32
    /// Bytes written since writeback was last started.
    private var unsynced = 0

    /// Writeback starts after this much: the disk writes while the job goes on, and the fsync before the rename
    /// (`OutputFile.publish`) only waits for the tail. Without it a 60 s 1080p copy job waited ~150 ms in fsync.
    static let writebackChunk = 8 << 20

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { _ = close() }

    /// Closes once; returns `AVERROR(errno)` when the close reports a late write error (NFS, quotas).
    func close() -> Int32 {
        guard descriptor >= 0 else { return 0 }
        defer { descriptor = -1 }
        return Glibc.close(descriptor) == 0 ? 0 : sluice_averror(errno)
    }

    /// AVIO's `write_packet`: all of `size` bytes or `AVERROR(errno)` (ENOSPC on a full disk).
    static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, bytes, size in
        guard let opaque else { return sluice_averror(EBADF) }
        let io = Unmanaged<FileDescriptorIO>.fromOpaque(opaque).takeUnretainedValue()
        var offset = 0
        while offset < Int(size) {
            let written = Glibc.write(io.descriptor, bytes?.advanced(by: offset), Int(size) - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return sluice_averror(errno)
            }
            offset += written
        }
        io.unsynced += Int(size)
        if io.unsynced >= FileDescriptorIO.writebackChunk {
            io.unsynced = 0
            // Only a hint: a file system or descriptor that cannot do it still gets its fsync at the end.
            _ = sluice_start_writeback(io.descriptor)
        }
        return size
    }

    /// AVIO's `seek`: `lseek`, or the file's size for `AVSEEK_SIZE`.
    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return Int64(sluice_averror(EBADF)) }
        let io = Unmanaged<FileDescriptorIO>.fromOpaque(opaque).takeUnretainedValue()
        if whence & AVSEEK_SIZE != 0 {
            var info = stat()
            return fstat(io.descriptor, &info) == 0 ? Int64(info.st_size) : Int64(sluice_averror(errno))
        }
        let position = lseek(io.descriptor, off_t(offset), whence & ~AVSEEK_FORCE)
        return position >= 0 ? Int64(position) : Int64(sluice_averror(errno))
    }
}
