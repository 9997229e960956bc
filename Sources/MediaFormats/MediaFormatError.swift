/// Every failure a MediaFormats parser or writer reports. Cases are fixed values callers can match on;
/// the associated strings name the structure (as the spec names it) and what was wrong with it.
public enum MediaFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before a structure was complete.
    case truncated(needed: Int, available: Int)
    /// A field holds a value the spec forbids (`structure`: e.g. "SPS", "ADTS header", "FLV tag").
    case invalid(structure: String, reason: String)
    /// A legal value this implementation (or the target container) cannot carry.
    case unsupported(structure: String, reason: String)
    /// A size or count is larger than a named limit.
    case limitExceeded(what: String, value: Int, limit: Int)

    public var description: String {
        switch self {
        case let .truncated(needed, available):
            return "truncated data: needed \(needed) bytes, \(available) available"
        case let .invalid(structure, reason):
            return "invalid \(structure): \(reason)"
        case let .unsupported(structure, reason):
            return "unsupported \(structure): \(reason)"
        case let .limitExceeded(what, value, limit):
            return "\(what) is \(value), over the limit of \(limit)"
        }
    }
}
