// RFC 9725 §4.1: a WHIP endpoint is an HTTP URL; a job names it `whip://HOST:PORT/PATH` so the scheme says what the
// worker serves there (the HTTP port shared by every WHIP and WHEP job of the worker, and the path routed to the job).

/// Where a WHIP listen job (or a WHEP output) is served: the shared HTTP port's host and port, and the job's path.
public struct WHIPURL: Sendable, Hashable {
    public enum Scheme: String, Sendable {
        /// A publisher posts its offer to it (a listen job's input).
        case whip
        /// A viewer posts its offer to it (an output).
        case whep
    }

    public var scheme: Scheme
    /// The address the HTTP port binds (a name or an address literal, without brackets).
    public var host: String
    public var port: Int
    /// The job's path on that port: starts with "/", has no query, no empty segment and no "." or ".." segment.
    public var path: String

    /// The longest path taken: a route, not a document.
    public static let maxPathLength = 256

    /// - Throws: a reason naming the part that is wrong (a WHIP URL carries no secret: the token is its own field).
    public init(parsing url: String) throws(WHIPURLError) {
        guard let schemeEnd = url.range(of: "://") else { throw .init("expected whip://HOST:PORT/PATH") }
        guard let scheme = Scheme(rawValue: url[..<schemeEnd.lowerBound].lowercased()) else {
            throw .init("expected the whip:// or whep:// scheme")
        }
        let rest = url[schemeEnd.upperBound...]
        if rest.contains("?") || rest.contains("#") {
            throw .init("a query or fragment is not taken; the token is the input's own `token` field")
        }
        guard let slash = rest.firstIndex(of: "/") else { throw .init("a path is required (whip://HOST:PORT/PATH)") }
        let authority = rest[..<slash]
        if authority.contains("@") { throw .init("credentials in the URL are not taken; the token is the input's own `token` field") }
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"), authority[authority.index(after: close)...].hasPrefix(":") else {
                throw .init("an IPv6 host needs a port: whip://[ADDRESS]:PORT/PATH")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            portText = authority[authority.index(close, offsetBy: 2)...]
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw .init("a port is required (whip://HOST:PORT/PATH)") }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .init("a host is required") }
        guard let port = Int(portText), (1...65_535).contains(port) else { throw .init("the port must be 1-65535") }
        let path = rest[slash...]
        guard path.count <= Self.maxPathLength else { throw .init("the path is longer than \(Self.maxPathLength) characters") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw .init("the path needs one or more non-empty segments, none of them '.' or '..'")
        }
        guard path.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && $0 != "%" }) else {
            throw .init("the path must be printable ASCII without spaces or percent-escapes")
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.path = String(path)
    }

    /// `host:port`, bracketed for IPv6: the key of the shared HTTP port.
    public var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a whip:// or whep:// URL was refused.
public struct WHIPURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "invalid WHIP URL: \(reason)" }
}
