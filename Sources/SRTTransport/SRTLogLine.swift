/// Reads the one libsrt log line SRTTransport acts on. libsrt 1.5.1 tells a listener of a handshake that failed
/// after its listen callback admitted it (a wrong passphrase, an encryption mismatch) only in this warning, written
/// by `newConnection` on the listener's receive thread; the socket it names is gone by then, so
/// `srt_getrejectreason` cannot be asked. Pure, so the format it depends on is pinned by tests.
enum SRTLogLine {
    /// `@63891654:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:BADSECRET` → the socket id
    /// (the one the listen callback saw) and the reason in words; nil for any other line.
    static func handshakeRefusal(in text: String) -> (socket: Int32, reason: String)? {
        guard let marker = text.range(of: "newConnection: connection rejected due to: "),
              let at = text[..<marker.lowerBound].lastIndex(of: "@") else { return nil }
        let digits = text[text.index(after: at)...].prefix { $0.isASCII && $0.isNumber }
        guard let socket = Int32(digits), let error = text.range(of: " - ERROR:", range: marker.upperBound..<text.endIndex) else {
            return nil
        }
        let name = text[error.upperBound...].prefix { !$0.isWhitespace }
        guard !name.isEmpty else { return nil }
        return (socket, SRTRejectReason.text(loggedName: name))
    }
}
