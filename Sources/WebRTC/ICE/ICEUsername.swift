// RFC 8445 §7.2.2: a connectivity check's USERNAME is "<receiver's ufrag>:<sender's ufrag>", so the receiver's own
// fragment, before the colon, tells a shared port which session a check is for.

/// The USERNAME of an ICE connectivity check, split into its two fragments.
public struct ICEUsername: Hashable, Sendable, CustomStringConvertible {
    /// The receiver's fragment (ours, for a check we receive).
    public var receiverFragment: String
    /// The sender's fragment (the peer's).
    public var senderFragment: String

    /// - Parameters:
    ///   - receiverFragment: the ufrag of the agent the check is sent to.
    ///   - senderFragment: the ufrag of the agent that sends it.
    public init(receiverFragment: String, senderFragment: String) {
        self.receiverFragment = receiverFragment
        self.senderFragment = senderFragment
    }

    /// Splits `value` at its first colon; nil without one (ufrags are ice-chars, which exclude the colon).
    public init?(parsing value: String) {
        guard let colon = value.firstIndex(of: ":") else { return nil }
        receiverFragment = String(value[..<colon])
        senderFragment = String(value[value.index(after: colon)...])
    }

    /// "<receiver>:<sender>", as USERNAME carries it.
    public var description: String { receiverFragment + ":" + senderFragment }

    /// The receiver's fragment of a Binding request's USERNAME, read without checking anything else (no integrity, no
    /// other attribute values): for the shared UDP port to pick the session that then checks the whole request.
    /// - Parameter datagram: one datagram already classified as STUN.
    /// - Returns: nil when it is not a Binding request with a well-formed header, or has no USERNAME with a colon.
    public static func receiverFragment(ofBindingRequest datagram: [UInt8]) -> String? {
        guard datagram.count >= STUNMessage.headerSize,
              UInt16(datagram[0]) << 8 | UInt16(datagram[1]) == STUNMessageType.bindingRequest.rawValue,
              let offset = STUNMessage.offsetOfAttribute(.username, in: datagram) else { return nil }
        let length = Int(datagram[offset + 2]) << 8 | Int(datagram[offset + 3])
        guard length <= STUNAttribute.maximumUsernameLength else { return nil }
        let value = datagram[(offset + 4)..<(offset + 4 + length)]
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return String(validating: value[..<colon], as: UTF8.self)
    }
}
