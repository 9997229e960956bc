/// Where the HTTP server listens: `HOST:PORT` (`127.0.0.1:9090`, `0.0.0.0:9090`, `[::1]:9090`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    /// 0 picks a free port (the bound one is reported once listening).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil when either part is missing or the port is not 0…65535.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0 == "/" || $0 == " " }) else { return nil }
        self.init(host: host, port: port)
    }

    /// `host:port`, IPv6 hosts in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
