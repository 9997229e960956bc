import CFFmpeg
import MediaJob

/// What only libavutil can say about a return code: its class and its message.
extension FFmpegError {
    /// True when the call stopped because an interrupt callback asked it to (cancel or timeout).
    public var isInterrupt: Bool { code == sluice_averror_exit() }
    public var isEndOfFile: Bool { code == sluice_averror_eof() }

    init(function: String, code: Int32) {
        self.init(function: function, code: code, message: FFmpegError.message(for: code))
    }

    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let text = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress else { return "error \(code)" }
            return String(cString: sluice_err2str(code, base, pointer.count))
        }
        return text.isEmpty ? "error \(code)" : text
    }
}

/// The one checker every FFmpeg return code passes through: negative codes become `FFmpegError`.
@discardableResult @inline(__always)
func check(_ code: Int32, _ function: StaticString) throws(FFmpegError) -> Int32 {
    guard code < 0 else { return code }
    throw FFmpegError(function: "\(function)", code: code)
}

/// The same check for 64-bit returns (avio_seek).
@discardableResult @inline(__always)
func check(_ code: Int64, _ function: StaticString) throws(FFmpegError) -> Int64 {
    guard code < 0 else { return code }
    throw FFmpegError(function: "\(function)", code: Int32(truncatingIfNeeded: code))
}
