// RFC 5389 §6 and §15 (updated by RFC 8489 §5 and §14): what the STUN parser refuses.

/// A STUN message or attribute that cannot be read. Cases are fixed values callers can match on; the strings name
/// the structure as the spec names it ("STUN header", "XOR-MAPPED-ADDRESS" …) and what was wrong with it.
public enum STUNError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before `structure` was complete.
    case truncated(structure: String, needed: Int, available: Int)
    /// A field holds something the spec forbids.
    case malformed(structure: String, reason: String)
    /// A size is over a named limit.
    case limitExceeded(what: String, value: Int, limit: Int)

    public var description: String {
        switch self {
        case let .truncated(structure, needed, available): "truncated \(structure): needed \(needed) bytes, \(available) available"
        case let .malformed(structure, reason): "malformed \(structure): \(reason)"
        case let .limitExceeded(what, value, limit): "\(what) is \(value), over the limit of \(limit)"
        }
    }
}
