// RabbitMQ's AMQP URI specification: https://www.rabbitmq.com/uri-spec.html
//   amqp_URI = "amqp://" [ userinfo "@" ] host [ ":" port ] [ "/" vhost ]   ("amqps://" for TLS)
// One deliberate departure: an empty vhost after the slash means `/`, as pika and most clients read it.

/// An `amqp://` or `amqps://` broker URL split into its parts, with percent-escapes decoded.
public struct BrokerURL: Sendable, Equatable {
    /// True for `amqps://` (TLS with peer verification).
    public var isTLS: Bool
    /// Host name or IP literal (IPv6 without brackets).
    public var host: String
    /// TCP port; 5672 for amqp, 5671 for amqps when the URL names none.
    public var port: Int
    /// User name; `guest` when the URL has no userinfo.
    public var user: String
    /// Password; `guest` when the URL has no userinfo. Never printed: see `redacted`.
    public var password: String
    /// Virtual host; `/` when the URL has no path or a bare trailing slash (as pika and most clients read
    /// `amqp://host/`; the spec's empty vhost is refused by RabbitMQ with 530, so no operator means it).
    public var vhost: String

    /// Parses `string`; errors describe the problem without quoting the URL, which may hold credentials.
    /// - Parameter string: the URL, e.g. `amqp://user:pass@host:5672/%2F`.
    public init(parsing string: String) throws(AMQPError) {
        let rest: Substring
        if string.hasPrefix("amqp://") {
            isTLS = false
            rest = string.dropFirst("amqp://".count)
        } else if string.hasPrefix("amqps://") {
            isTLS = true
            rest = string.dropFirst("amqps://".count)
        } else {
            throw .invalidURL(reason: "the scheme must be amqp:// or amqps://")
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            throw .invalidURL(reason: "query parameters and fragments are not supported; use the options")
        }
        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let path = rest[rest.index(after: slash)...]
            guard !path.contains("/") else {
                throw .invalidURL(reason: "a '/' inside the vhost must be written %2F")
            }
            // `host:5672/` is how operators write "the default vhost"; `%2F` stays the explicit form.
            vhost = path.isEmpty ? "/" : try Self.percentDecoded(path, part: "vhost")
        } else {
            authority = rest
            vhost = "/"
        }
        let hostPort: Substring
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                user = try Self.percentDecoded(userinfo[..<colon], part: "user")
                password = try Self.percentDecoded(userinfo[userinfo.index(after: colon)...], part: "password")
            } else {
                user = try Self.percentDecoded(userinfo, part: "user")
                password = ""
            }
        } else {
            hostPort = authority
            user = "guest"
            password = "guest"
        }
        let portText: Substring?
        if hostPort.hasPrefix("[") {
            // An IPv6 literal: [::1]:5672
            guard let close = hostPort.firstIndex(of: "]") else {
                throw .invalidURL(reason: "an IPv6 host is missing its closing ']'")
            }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw .invalidURL(reason: "unexpected characters after the IPv6 host")
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = try Self.percentDecoded(hostPort[..<colon], part: "host")
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = try Self.percentDecoded(hostPort, part: "host")
            portText = nil
        }
        guard !host.isEmpty else { throw .invalidURL(reason: "the host is missing") }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw .invalidURL(reason: "the port must be a number in 1...65535")
            }
            self.port = port
        } else {
            port = isTLS ? 5671 : 5672
        }
    }

    /// The URL with its userinfo replaced by `***`: what logs, errors and events may show.
    public var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(isTLS ? "amqps" : "amqp")://***@\(hostPart):\(port)/\(Self.percentEncoded(vhost))"
    }

    /// Decodes %XX escapes; a malformed escape is an error naming only the URL part.
    private static func percentDecoded(_ text: Substring, part: String) throws(AMQPError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .invalidURL(reason: "malformed percent-escape in the \(part)")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidURL(reason: "the \(part) is not valid UTF-8 after percent-decoding")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Escapes what the vhost segment cannot carry literally ('/', '%', '@', ':' and non-ASCII).
    private static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += byte < 16 ? "%0\(hex)" : "%\(hex)"
            }
        }
        return result
    }
}
