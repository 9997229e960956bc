// RFC 8866 §6.7 media direction attributes (a=sendrecv, a=sendonly, a=recvonly, a=inactive); RFC 3264 §6.1 the answer's.

/// Which way media flows, seen from the description's writer; absent means sendrecv.
public enum MediaDirection: String, Sendable, Equatable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The attribute as a flag line without its "a=", nil for another attribute.
    init?(attribute value: String) { self.init(rawValue: value) }

    /// Whether the writer of the description sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the writer of the description receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
