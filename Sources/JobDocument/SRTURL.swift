/// An SRT address as a job names it: `srt://HOST:PORT?streamid=…&passphrase=…&latency=…&pbkeylen=…&mode=…`, the
/// query keys FFmpeg's and srt-live-transmit's URLs use for the same options.
///
/// Parsed once here, so the validator refuses a bad one by name before a job runs and the relay engine takes the
/// fields as they are. Errors name the key that was wrong, never the value of a secret one (`streamid`, `passphrase`).
public struct SRTURL: Sendable, Equatable {
    /// Who opens the connection: `caller` connects to HOST:PORT; `listener` waits on it for one peer.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        case caller, listener
    }

    public var host: String
    public var port: Int
    /// What the peer is asked for (a caller) or must ask for (a listen job); the routing key on a shared port.
    public var streamID: String?
    /// AES key material for the connection; nil sends in the clear.
    public var passphrase: String?
    /// The receiver's buffer against loss and jitter (SRTO_LATENCY); nil takes libsrt's default (120 ms).
    public var latencyMilliseconds: Int?
    /// AES key length in bytes (16, 24 or 32; 0 lets the sender choose); nil: libsrt's default.
    public var keyLength: Int?
    public var mode: Mode

    /// libsrt's own bounds for SRTO_PASSPHRASE.
    public static let passphraseLength = 10...79
    /// 20 ms is below any link's useful buffer; 8 s is beyond what a live restream can wait.
    public static let latencyRange = 20...8000
    /// SRTO_PBKEYLEN: 0 (the sender decides) or an AES key length in bytes.
    public static let keyLengths: Set<Int> = [0, 16, 24, 32]
    /// Query keys this URL takes: the option names FFmpeg's srt:// URLs use.
    public static let queryKeys = ["streamid", "passphrase", "latency", "pbkeylen", "mode"]
    /// Query keys whose values are secrets: masked in every listing.
    public static let secretKeys: Set<String> = ["streamid", "passphrase"]

    public init(host: String, port: Int, streamID: String? = nil, passphrase: String? = nil, latencyMilliseconds: Int? = nil,
                keyLength: Int? = nil, mode: Mode = .caller) {
        self.host = host
        self.port = port
        self.streamID = streamID
        self.passphrase = passphrase
        self.latencyMilliseconds = latencyMilliseconds
        self.keyLength = keyLength
        self.mode = mode
    }

    /// - Parameter url: `srt://HOST:PORT` with an optional query; `#` in a streamid (`#!::r=…`) is the streamid's
    ///   own, not a fragment, and values may be percent-encoded.
    public init(parsing url: String) throws(SRTURLError) {
        guard url.count > 6, url.prefix(6).lowercased() == "srt://" else { throw .notSRT }
        let rest = url.dropFirst(6)
        let query = rest.firstIndex(of: "?")
        let authority = rest[..<(query ?? rest.endIndex)]
        guard !authority.contains("@") else { throw .credentials }
        guard !authority.contains("/") else { throw .path }
        (host, port) = try SRTURL.hostAndPort(authority)
        mode = .caller
        guard let query else { return }
        var seen: Set<String> = []
        for pair in rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let key = String(pair[..<(equals ?? pair.endIndex)]).lowercased()
            guard SRTURL.queryKeys.contains(key) else { throw .unknownKey(String(pair[..<(equals ?? pair.endIndex)])) }
            guard seen.insert(key).inserted else { throw .repeatedKey(key) }
            guard let equals else { throw .missingValue(key) }
            guard let value = SRTURL.percentDecoded(pair[pair.index(after: equals)...]), !value.isEmpty else { throw .missingValue(key) }
            try set(key, value)
        }
    }

    private mutating func set(_ key: String, _ value: String) throws(SRTURLError) {
        switch key {
        case "streamid":
            // libsrt's limit for SRTO_STREAMID.
            guard value.utf8.count <= 512 else { throw .streamIDTooLong(value.utf8.count) }
            streamID = value
        case "passphrase":
            guard SRTURL.passphraseLength.contains(value.count) else { throw .passphraseLength(value.count) }
            passphrase = value
        case "latency":
            guard let number = Int(value), SRTURL.latencyRange.contains(number) else { throw .latency(value) }
            latencyMilliseconds = number
        case "pbkeylen":
            guard let number = Int(value), SRTURL.keyLengths.contains(number) else { throw .keyLength(value) }
            keyLength = number
        default:
            guard let given = Mode(rawValue: value.lowercased()) else { throw .mode(value) }
            mode = given
        }
    }

    private static func hostAndPort(_ authority: Substring) throws(SRTURLError) -> (String, Int) {
        let host: Substring, portText: Substring
        if authority.hasPrefix("[") {
            // An IPv6 literal: [::1]:9000.
            guard let close = authority.firstIndex(of: "]"), authority[authority.index(after: close)...].hasPrefix(":") else { throw .port }
            host = authority[authority.index(after: authority.startIndex)..<close]
            portText = authority[authority.index(close, offsetBy: 2)...]
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw .port }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard let port = Int(portText), (1...65535).contains(port) else { throw .port }
        guard !host.isEmpty else { throw .host }
        return (String(host), port)
    }

    /// `%XX` escapes decoded; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `srt://HOST:PORT?streamid=***&passphrase=***&latency=200`: the options a listing may show, secrets masked.
    public var redacted: String {
        var query: [String] = []
        if streamID != nil { query.append("streamid=\(Redaction.mask)") }
        if passphrase != nil { query.append("passphrase=\(Redaction.mask)") }
        if let latencyMilliseconds { query.append("latency=\(latencyMilliseconds)") }
        if let keyLength { query.append("pbkeylen=\(keyLength)") }
        if mode == .listener { query.append("mode=listener") }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "srt://\(shownHost):\(port)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}

/// Why a string is not an SRT URL a job can use; the text never quotes a secret value.
public enum SRTURLError: Error, Sendable, Equatable, CustomStringConvertible {
    case notSRT
    case credentials
    case path
    case host
    case port
    case unknownKey(String)
    case repeatedKey(String)
    case missingValue(String)
    case streamIDTooLong(Int)
    case passphraseLength(Int)
    case latency(String)
    case keyLength(String)
    case mode(String)

    public var description: String {
        switch self {
        case .notSRT: "is not an srt:// URL"
        case .credentials: "an SRT URL carries no user or password before the host; use passphrase= (and streamid=)"
        case .path: "an SRT URL has no path: name the stream with streamid= (srt://HOST:PORT?streamid=…)"
        case .host: "names no host"
        case .port: "needs a port from 1 to 65535 (srt://HOST:PORT)"
        case let .unknownKey(key): "SRT option \"\(SpecValidator.shortened(key))\" is not known; use \(SRTURL.queryKeys.joined(separator: ", "))"
        case let .repeatedKey(key): "SRT option \(key) is given twice"
        case let .missingValue(key): "SRT option \(key) has no value"
        case let .streamIDTooLong(length): "the SRT streamid is \(length) bytes; at most 512"
        case let .passphraseLength(length): "the SRT passphrase must be \(SRTURL.passphraseLength.lowerBound) to \(SRTURL.passphraseLength.upperBound) characters, got \(length)"
        case let .latency(value): "SRT latency must be whole milliseconds from \(SRTURL.latencyRange.lowerBound) to \(SRTURL.latencyRange.upperBound), got \"\(SpecValidator.shortened(value))\""
        case let .keyLength(value): "SRT pbkeylen must be 0, 16, 24 or 32, got \"\(SpecValidator.shortened(value))\""
        case let .mode(value): "SRT mode must be caller or listener, got \"\(SpecValidator.shortened(value))\""
        }
    }
}
