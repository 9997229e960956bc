import Foundation

/// Removes secrets from URLs before they reach logs, events, listings or error text: RTMP credentials,
/// the stream key (everything after the application name), query strings (tokens), and SRT streamids and passphrases.
public enum Redaction {
    public static let mask = "***"
    /// Fields of a job document whose whole value is a secret, masked wherever they appear.
    public static let secretFields = ["token"]

    /// `rtmp://user:pass@host:1935/live/KEY?token=x` → `rtmp://host:1935/live/***`;
    /// `srt://host:9000?streamid=live/KEY&passphrase=…` → `srt://host:9000?streamid=***&passphrase=***`;
    /// `rtsp://admin:pw@cam:554/live?token=x` → `rtsp://***@cam:554/live`; other text is
    /// returned as is.
    public static func redact(url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        // SRT keeps its options' names (and the harmless values) in view; streamid and passphrase are masked.
        if scheme == "srt", let srt = try? SRTURL(parsing: url) { return srt.redacted }
        var rest = Substring(url[schemeEnd.upperBound...])
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var hadCredentials = false
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
            hadCredentials = true
        }
        let path = rest[authorityEnd...]
        // A camera's URL says it had credentials (a listing shows which jobs log in), never which.
        if scheme.hasPrefix("rtsp") { return "\(scheme)://\(hadCredentials ? mask + "@" : "")\(authority)\(path)" }
        // Other schemes keep their path: only credentials and the query are secret there.
        guard scheme.hasPrefix("rtmp") else { return "\(scheme)://\(authority)\(path)" }
        // Keep the application name (first path segment); mask the stream key and anything after it.
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let app = segments.first else { return "\(scheme)://\(authority)" }
        return segments.count > 1 ? "\(scheme)://\(authority)/\(app)/\(mask)" : "\(scheme)://\(authority)/\(app)"
    }

    /// Replaces every occurrence of the secret-bearing `urls` in free text (FFmpeg messages may echo a URL).
    public static func scrub(_ text: String, urls: [String]) -> String {
        var result = text
        for url in urls where !url.isEmpty {
            let redacted = redact(url: url)
            if redacted != url { result = result.replacingOccurrences(of: url, with: redacted) }
        }
        return result
    }
}

extension JobSpec {
    /// A document that may not validate, with every string redacted as a URL, as JSON text; nil when it is not
    /// JSON (a rejected message is then kept only sealed).
    /// - Parameter document: the message body.
    public static func redactedText(of document: Data) -> String? {
        guard let value = try? JSONValue.parse(document) else { return nil }
        return redact(value).jsonText()
    }

    /// The document with every URL string redacted (for events, listings and `jobs show`), and every `token` masked
    /// whole (a WHIP input's bearer token is a secret of its own, not part of a URL).
    static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .string(text): return .string(Redaction.redact(url: text))
        case let .array(items): return .array(items.map(redact))
        case let .object(object):
            var redacted = object.mapValues(redact)
            for key in Redaction.secretFields where object[key] != nil { redacted[key] = .string(Redaction.mask) }
            return .object(redacted)
        default: return value
        }
    }
}
