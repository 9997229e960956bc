import CFFmpeg

/// A failed FFmpeg call: the function that failed, its return code and FFmpeg's own message for it.
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    public let function: String
    public let code: Int32
    public let message: String

    public var description: String { "\(function): \(message)" }

    /// True when the call stopped because an interrupt callback asked it to (cancel or timeout).
    public var isInterrupt: Bool { code == sluice_averror_exit() }
    public var isEndOfFile: Bool { code == sluice_averror_eof() }

    init(function: String, code: Int32) {
        self.function = function
        self.code = code
        self.message = FFmpegError.message(for: code)
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
