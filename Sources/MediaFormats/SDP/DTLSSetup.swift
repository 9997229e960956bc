// RFC 4145 §4 the setup attribute; RFC 8842 §5.1 offerer "actpass", answerer "active" or "passive".

/// Which side of a DTLS association starts the handshake: "active" is the DTLS client, "passive" the server.
public enum DTLSSetup: String, Sendable, Equatable, CaseIterable {
    case active, passive, actpass, holdconn

    init(parsing value: String, context: SDPLine) throws {
        guard let setup = DTLSSetup(rawValue: value) else { throw context.invalid("setup \(value) is not active, passive, actpass or holdconn") }
        self = setup
    }
}
