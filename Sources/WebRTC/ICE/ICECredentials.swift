// RFC 8445 §5.3 and RFC 8839 §5.4: an agent's username fragment and password (a=ice-ufrag, a=ice-pwd).

/// One side's ICE credentials, as its SDP gives them.
public struct ICECredentials: Hashable, Sendable {
    /// The username fragment (a=ice-ufrag).
    public var ufrag: String
    /// The password (a=ice-pwd); its UTF-8 bytes key MESSAGE-INTEGRITY of checks sent to this side.
    public var pwd: String

    /// - Parameters:
    ///   - ufrag: the username fragment, from a=ice-ufrag.
    ///   - pwd: the password, from a=ice-pwd.
    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }
}
