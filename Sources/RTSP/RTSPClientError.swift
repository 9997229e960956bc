// RFC 2326 §7.1.1 status codes, §A.1 the client state machine: why a client connection ends.
import MediaFormats

/// Why an RTSP client connection failed; the description names the request and the status.
public enum RTSPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered a request with an error status; `detail` says what the client had done.
    case refused(method: RTSPMethod, status: String, detail: String?)
    /// The server broke the protocol (a response out of turn, a missing Session header …).
    case protocolViolation(String)
    /// A message or header that could not be read.
    case malformed(RTSPError)
    /// The DESCRIBE answer's session description could not be read.
    case malformedDescription(MediaFormatError)
    /// The description has no audio or video over RTP.
    case noPlayableTrack
    /// The server closed the connection before the client was done.
    case closedByServer(during: String)

    public var description: String {
        switch self {
        case let .refused(method, status, detail): "\(method) answered \(status)" + (detail.map { " \($0)" } ?? "")
        case let .protocolViolation(reason): "RTSP protocol violation: \(reason)"
        case let .malformed(error): error.description
        case let .malformedDescription(error): "DESCRIBE answered an unreadable session description: \(error)"
        case .noPlayableTrack: "the session description has no audio or video over RTP"
        case let .closedByServer(during): "the server closed the connection during \(during)"
        }
    }
}
