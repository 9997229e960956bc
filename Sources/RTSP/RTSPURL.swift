// RFC 2326 §3.2 RTSP URL: rtsp://[user[:password]@]host[:port][/path], port 554 by default.

/// An RTSP URL with its credentials taken out: requests carry `string` (no user information), the credentials
/// answer the server's challenge.
public struct RTSPURL: Sendable, Equatable {
    /// The port of rtsp:// when none is given (RFC 2326 §3.2).
    public static let defaultPort = 554
    /// The port of rtsps:// when none is given (RFC 7826 §19.2).
    public static let defaultSecurePort = 322

    /// "rtsp" or "rtsps".
    public var scheme: String
    public var host: String
    public var port: Int
    /// The path and query, "/" at least.
    public var path: String
    /// The percent-decoded user and password of the URL, nil without user information.
    public var credentials: RTSPCredentials?

    /// The URL of `text`; throws for another scheme, no host, a port outside 1...65535, or a control character.
    public init(parsing text: String) throws {
        func malformed(_ reason: String) -> RTSPError { .malformed(structure: "URL", reason: reason) }
        guard !text.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else { throw malformed("a space or control character") }
        guard let schemeEnd = text.firstRange(of: "://") else { throw malformed("no scheme") }
        scheme = String(text[..<schemeEnd.lowerBound]).lowercased()
        guard scheme == "rtsp" || scheme == "rtsps" else { throw malformed("scheme \(scheme), expected rtsp or rtsps") }
        var rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        credentials = nil
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = Self.percentDecoded(parts[0]), let password = Self.percentDecoded(parts.count > 1 ? parts[1] : "") else {
                throw malformed("a bad percent escape in the user information")
            }
            credentials = RTSPCredentials(user: user, password: password)
        }
        // host, [v6]:port or host:port
        var hostPart = authority
        var portText: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw malformed("no host") }
        host = String(hostPart)
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { throw malformed("port \(portText) is not 1...65535") }
            self.port = port
        } else {
            port = scheme == "rtsps" ? Self.defaultSecurePort : Self.defaultPort
        }
        path = rest.isEmpty ? "/" : (rest.hasPrefix("?") ? "/" + rest : String(rest))
    }

    /// The URL as requests carry it: no user information, the port only when it is not the scheme's default.
    public var string: String {
        let defaultPort = scheme == "rtsps" ? Self.defaultSecurePort : Self.defaultPort
        return "\(scheme)://\(host)\(port == defaultPort ? "" : ":\(port)")\(path)"
    }

    /// `%XX` escapes decoded; nil for a broken escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
