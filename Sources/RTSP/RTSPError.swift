// RFC 2326 §6 (requests), §7 (responses), §10.12 (interleaved frames): what the RTSP reader refuses.

/// A message or header the RTSP layer cannot read. Cases are fixed values callers can match on; the strings name
/// the structure as the spec names it and what was wrong.
public enum RTSPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field holds something the spec forbids (`structure`: "status line", "Transport header" …).
    case malformed(structure: String, reason: String)
    /// A size is over a named limit.
    case limitExceeded(what: String, value: Int, limit: Int)

    public var description: String {
        switch self {
        case let .malformed(structure, reason): "malformed RTSP \(structure): \(reason)"
        case let .limitExceeded(what, value, limit): "RTSP \(what) is \(value), over the limit of \(limit)"
        }
    }
}
