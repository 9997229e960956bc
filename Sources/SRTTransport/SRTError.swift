/// A failure of the SRT transport. Never carries a passphrase or a streamid: URLs appear only redacted, and a
/// streamid or URL error names the key or the rule that failed, not the value.
public enum SRTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A libsrt call failed: its name, libsrt's error code (`SRT_ERRNO`) and message.
    case library(function: String, code: Int32, message: String)
    /// Setting a socket option failed: the option's name and libsrt's message.
    case option(name: String, message: String)
    /// An `srt://` URL was refused; the reason names the part that was wrong.
    case invalidURL(reason: String)
    /// A streamid was refused; the reason names the key or rule, never the resource.
    case invalidStreamID(reason: String)
    /// The handshake failed: libsrt's reject code (`srt_getrejectreason`) and what it means.
    case rejected(code: Int32, reason: String)
    /// The host name of a URL did not resolve.
    case unresolvable(host: String, message: String)
    /// The connection or listener was closed by its owner.
    case closed

    public var description: String {
        switch self {
        case let .library(function, code, message):
            return "\(function): \(message) (SRT error \(code))"
        case let .option(name, message):
            return "setting \(name): \(message)"
        case let .invalidURL(reason):
            return "invalid SRT URL: \(reason)"
        case let .invalidStreamID(reason):
            return "invalid SRT streamid: \(reason)"
        case let .rejected(code, reason):
            return code == SRTRejectReason.timeout ? reason : "the peer refused: \(reason) (reject code \(code))"
        case let .unresolvable(host, message):
            return "cannot resolve \(host): \(message)"
        case .closed:
            return "the SRT socket is closed"
        }
    }
}
