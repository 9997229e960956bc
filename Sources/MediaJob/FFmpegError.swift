/// A failed FFmpeg call: the function that failed, its return code and FFmpeg's own message for it.
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    public let function: String
    public let code: Int32
    public let message: String

    public var description: String { "\(function): \(message)" }

    /// - Parameters:
    ///   - function: the C function that failed.
    ///   - code: its negative return code.
    ///   - message: FFmpeg's text for the code (`av_strerror`).
    package init(function: String, code: Int32, message: String) {
        self.function = function
        self.code = code
        self.message = message
    }
}
