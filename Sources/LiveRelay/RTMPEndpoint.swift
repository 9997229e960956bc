/// An `rtmp://` or `rtmps://` URL taken apart the way RTMP clients do: the first path component is the
/// application (NetConnection connect), the rest is the stream key (NetStream publish / play).
struct RTMPEndpoint: Sendable, Equatable {
    var secure: Bool
    var host: String
    var port: Int
    var app: String
    var streamKey: String

    /// `tcUrl` of the connect command: the URL up to the application, never the key.
    var tcURL: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "rtmps" : "rtmp")://\(shownHost):\(port)/\(app)"
    }

    /// `host:port` as one listener key.
    var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The default ports: 1935 for rtmp, 443 for rtmps.
    static func defaultPort(secure: Bool) -> Int { secure ? 443 : 1935 }

    /// Nil when the URL is not rtmp(s), has no host, application or stream key, or an invalid port.
    init?(parsing url: String) {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("rtmp://") {
            secure = false
            rest = url.dropFirst("rtmp://".count)
        } else if lower.hasPrefix("rtmps://") {
            secure = true
            rest = url.dropFirst("rtmps://".count)
        } else {
            return nil
        }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        var authority = rest[..<slash]
        // Credentials are not an RTMP notion; a user part is dropped, never sent.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
        }
        guard !hostPart.isEmpty else { return nil }
        if let portPart {
            guard let value = Int(portPart), (1...65_535).contains(value) else { return nil }
            port = value
        } else {
            port = RTMPEndpoint.defaultPort(secure: secure)
        }
        host = String(hostPart)
        let path = rest[rest.index(after: slash)...]
        guard let keySlash = path.firstIndex(of: "/") else { return nil }
        app = String(path[..<keySlash])
        streamKey = String(path[path.index(after: keySlash)...])
        guard !app.isEmpty, !streamKey.isEmpty else { return nil }
    }
}

/// Compares two stream keys in time that depends only on their lengths, never on where they differ.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
    for index in 0..<max(x.count, y.count) {
        let left = index < x.count ? x[index] : 0
        let right = index < y.count ? y[index] : 0
        difference |= left ^ right
    }
    return difference == 0 && x.count == y.count
}
