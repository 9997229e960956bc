// RFC 8445 §7.3 (responding to checks) and RFC 5389 §10.1.2 (authentication): what one datagram did to an ICE-lite
// session, for the UDP port to apply.

/// What `ICELiteSession.receive(_:from:now:)` decided about one datagram.
public struct ICELiteOutcome: Equatable, Sendable {
    /// The datagram to send back to the source address, if any (a success or error response).
    public var response: [UInt8]?
    /// Set when this datagram nominated a pair: media now goes to and comes from this address.
    public var nominated: TransportAddress?
    /// Why the datagram was refused (answered with an error or dropped); nil when it was accepted.
    public var rejection: ICERejection?

    /// - Parameters:
    ///   - response: the datagram to send back to the source.
    ///   - nominated: the newly selected peer address.
    ///   - rejection: why the datagram was refused.
    public init(response: [UInt8]? = nil, nominated: TransportAddress? = nil, rejection: ICERejection? = nil) {
        self.response = response
        self.nominated = nominated
        self.rejection = rejection
    }
}

/// Why an ICE-lite session refused a datagram. The comment on each case says whether it was answered.
public enum ICERejection: Equatable, Sendable, CustomStringConvertible {
    /// Not a STUN message this parser reads; dropped.
    case malformed(STUNError)
    /// A message other than a Binding request or indication (ICE-lite sends no requests, so expects no responses); dropped.
    case unexpectedMessage(STUNMessageType)
    /// FINGERPRINT present and wrong; dropped (RFC 5389 §7.3: it may not be STUN at all).
    case badFingerprint
    /// A request without USERNAME or MESSAGE-INTEGRITY; dropped, so the port answers no one who lacks the SDP's credentials.
    case missingCredentials
    /// USERNAME is not "<our ufrag>:<peer ufrag>"; answered 401.
    case wrongUsername(String)
    /// MESSAGE-INTEGRITY does not match our password; answered 401 (an indication with a bad one is dropped).
    case badIntegrity
    /// Comprehension-required attributes this agent does not know; answered 420 naming them.
    case unknownAttributes([UInt16])
    /// A request without PRIORITY (RFC 8445 §7.2.2 requires it); answered 400.
    case missingPriority
    /// A request with both ICE-CONTROLLED and ICE-CONTROLLING; answered 400.
    case contradictoryRoles
    /// The peer says it is controlled too (RFC 8445 §7.3.1.1); answered 487 so it takes the controlling role.
    case roleConflict
    /// A Binding indication from an address other than the selected one; dropped (it proves nothing).
    case indicationFromUnselectedAddress

    public var description: String {
        switch self {
        case let .malformed(error): "not a STUN message: \(error)"
        case let .unexpectedMessage(type): "unexpected \(type)"
        case .badFingerprint: "FINGERPRINT does not match"
        case .missingCredentials: "a Binding request without USERNAME or MESSAGE-INTEGRITY"
        case let .wrongUsername(username): "USERNAME \"\(username)\" is not this session's"
        case .badIntegrity: "MESSAGE-INTEGRITY does not match the password"
        case let .unknownAttributes(types): "unknown comprehension-required attributes " + types.map { "0x" + String($0, radix: 16) }.joined(separator: ", ")
        case .missingPriority: "a Binding request without PRIORITY"
        case .contradictoryRoles: "both ICE-CONTROLLED and ICE-CONTROLLING"
        case .roleConflict: "the peer is ICE-controlled too"
        case .indicationFromUnselectedAddress: "a Binding indication from an address that is not the selected one"
        }
    }
}
