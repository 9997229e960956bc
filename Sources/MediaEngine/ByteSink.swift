import CFFmpeg

/// Owns one `AVIOContext` opened for writing: a file, or later an `rtmp://` publish. Used by one output
/// thread at a time; `@unchecked Sendable` so it can be opened on one thread and written from another.
public final class ByteSink: @unchecked Sendable {
    private var context: UnsafeMutablePointer<AVIOContext>?
    private var interruptCallback: AVIOInterruptCB
    /// The callback's opaque pointer is unretained: the sink keeps its interrupter alive as long as the context.
    private let interrupter: Interrupter
    /// Bytes handed to the sink so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Opens `url` for writing (`file:` paths are created or truncated).
    /// - Parameters:
    ///   - url: what `avio_open2` opens: `file:/abs/path` or a network URL.
    ///   - options: protocol options (`rw_timeout`, …).
    ///   - interrupter: cancels blocking writes.
    public init(url: String, options: [String: String] = [:], interrupter: Interrupter) throws {
        self.interrupter = interrupter
        interruptCallback = interrupter.callback
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        try check(avio_open2(&context, url, AVIO_FLAG_WRITE, &interruptCallback, &dictionary), "avio_open2")
    }

    deinit { avio_closep(&context) }

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
        let status = avio_closep(&context)
        try check(pending, "avio_flush")
        try check(status, "avio_closep")
    }
}
