// RFC 5763 §5 and RFC 4145 §4: which side of the DTLS handshake this endpoint plays, from the SDP's a=setup.

/// The DTLS role: the client sends the ClientHello. An answer of `a=setup:passive` to an `actpass` offer makes us
/// the server; `a=setup:active` makes us the client.
public enum DTLSRole: Sendable, Equatable {
    case client
    case server

    /// The other side's role.
    public var peer: DTLSRole { self == .client ? .server : .client }
}
