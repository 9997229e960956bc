// RFC 5389 §15.4 and §15.5: what checking MESSAGE-INTEGRITY or FINGERPRINT in a received datagram found.

/// The result of checking one of a message's two checksums.
public enum STUNVerification: Sendable, Equatable {
    /// The message does not carry the attribute.
    case absent
    /// The attribute matches the message.
    case valid
    /// The attribute is there and does not match (or is not where the spec puts it).
    case invalid
}
