/// What libsrt's reject codes mean (`srt_getrejectreason`, `SRT_REJ_*` in srt.h, `SRT_REJX_*` in
/// access_control.h), in words fit for an operator. Pure: the codes are numbers on the wire of the handshake.
public enum SRTRejectReason {
    /// SRT_REJ_BADSECRET: the peers' passphrases differ.
    public static let badSecret: Int32 = 10
    /// SRT_REJ_UNSECURE: one side has a passphrase and the other none.
    public static let unsecure: Int32 = 11
    /// SRT_REJ_TIMEOUT: no handshake answer within the connect timeout.
    public static let timeout: Int32 = 16
    /// Codes from here up to 1999 are access-control ones: 1000 + an HTTP-like status (access_control.h).
    public static let predefinedBase: Int32 = 1000
    /// Codes from here up are an application's own.
    public static let userDefinedBase: Int32 = 2000

    /// libsrt's own reasons, indexed by `SRT_REJ_*` (0 … 16).
    private static let library = [
        "unknown reason", "a system call failed", "the peer rejected the connection", "out of resources",
        "malformed handshake", "the listener's backlog is full", "internal error in libsrt", "the socket is closing",
        "the peer's SRT version is too old", "rendezvous cookie collision", "wrong passphrase",
        "encryption mismatch: one side has a passphrase and the other none", "message API mismatch",
        "congestion controller mismatch", "packet filter mismatch", "socket group mismatch",
        "no answer from the peer within the connect timeout",
    ]

    /// The access-control statuses a listener sends (access_control.h names them after HTTP).
    private static let accessControl: [Int32: String] = [
        0: "refused (unspecified)", 1: "a streamid key is not supported", 2: "the file path is wrong",
        3: "the host was not recognized", 400: "malformed streamid", 401: "unauthorized", 402: "overloaded",
        403: "forbidden", 404: "not found", 405: "the streamid's mode is not supported", 406: "unacceptable parameters",
        409: "conflict: the resource is in use", 415: "the media type is not supported", 423: "locked",
        424: "a dependent session is gone", 500: "internal server error", 501: "not implemented",
        502: "the gateway's target refused", 503: "service unavailable", 505: "SRT version not supported",
        507: "no room to store the stream",
    ]

    /// The reason in words for a reject code.
    public static func text(_ code: Int32) -> String {
        if code >= 0 && code < Int32(library.count) { return library[Int(code)] }
        if code >= userDefinedBase { return "application reason \(code - userDefinedBase)" }
        if code >= predefinedBase, let text = accessControl[code - predefinedBase] { return text }
        return "reject code \(code)"
    }

    /// The reason in words for a name libsrt logs (`ERROR:BADSECRET`, `ERROR:PREDEFINED:404`), as the listener's
    /// log line about a refused handshake carries it.
    static func text(loggedName name: Substring) -> String {
        if name.hasPrefix("PREDEFINED:"), let status = Int32(name.dropFirst("PREDEFINED:".count)) {
            return text(predefinedBase + status)
        }
        if name.hasPrefix("USERDEFINED:"), let status = Int32(name.dropFirst("USERDEFINED:".count)) {
            return text(userDefinedBase + status)
        }
        if let index = loggedNames.firstIndex(of: String(name)) { return text(Int32(index)) }
        return "handshake refused (\(name.lowercased()))"
    }

    /// libsrt's names for its reasons in log lines, indexed like `library` (handshake.cpp's table).
    private static let loggedNames = [
        "UNKNOWN", "SYSTEM", "PEER", "RESOURCE", "ROGUE", "BACKLOG", "IPE", "CLOSE", "VERSION", "RDVCOOKIE",
        "BADSECRET", "UNSECURE", "MESSAGEAPI", "CONGESTION", "FILTER", "GROUP", "TIMEOUT",
    ]
}
