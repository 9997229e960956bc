import Foundation

/// An `srt://host:port?streamid=…&passphrase=…&latency=…&pbkeylen=…&mode=caller|listener` URL, parsed and
/// bounded. Pure: no socket, no resolver. Errors and `redacted` never show the passphrase or the streamid.
///
/// `#` is an ordinary character here, not a fragment: peers write access-control streamids (`#!::r=…`) into the
/// query unescaped, as ffmpeg and srt-live-transmit accept them. Values may be percent-encoded.
public struct SRTURL: Equatable, Sendable {
    /// Which side of the handshake this end takes.
    public enum Mode: String, Equatable, Sendable {
        case caller, listener
    }

    /// The host to call, or the address to listen on (empty for a listener: every address).
    public var host: String
    /// The UDP port; 0 only for a listener (an ephemeral port).
    public var port: UInt16
    /// The streamid sent in the handshake (SRTO_STREAMID), at most `maximumStreamIDLength` bytes.
    public var streamID: String?
    /// The encryption passphrase (SRTO_PASSPHRASE), `passphraseLengths` characters.
    public var passphrase: String?
    /// The receiver's buffering latency (SRTO_LATENCY), `latencyRange` milliseconds.
    public var latencyMilliseconds: Int
    /// The AES key length in bytes (SRTO_PBKEYLEN), one of `keyLengths`; 0 lets libsrt choose (16, or the caller's).
    public var keyLength: Int
    /// Caller (the default) or listener.
    public var mode: Mode

    /// libsrt's bounds on a passphrase (SRTO_PASSPHRASE).
    public static let passphraseLengths = 10...79
    /// The latencies a job may ask for: below 20 ms retransmission cannot work; above 8 s is a file transfer.
    public static let latencyRange = 20...8000
    /// libsrt's default receiver latency.
    public static let defaultLatencyMilliseconds = 120
    /// The key lengths SRTO_PBKEYLEN takes (0: libsrt's default).
    public static let keyLengths: Set<Int> = [0, 16, 24, 32]
    /// libsrt's limit on SRTO_STREAMID.
    public static let maximumStreamIDLength = 512

    public init(host: String, port: UInt16, streamID: String? = nil, passphrase: String? = nil,
                latencyMilliseconds: Int = SRTURL.defaultLatencyMilliseconds, keyLength: Int = 0, mode: Mode = .caller) {
        self.host = host
        self.port = port
        self.streamID = streamID
        self.passphrase = passphrase
        self.latencyMilliseconds = latencyMilliseconds
        self.keyLength = keyLength
        self.mode = mode
    }

    /// Parses and checks an `srt://` URL.
    /// - Parameter text: the URL as a job gives it.
    /// - Throws: `SRTAddressError.invalidURL` naming the part that was wrong (never its secret value).
    public init(parsing text: String) throws(SRTAddressError) {
        guard text.lowercased().hasPrefix("srt://") else { throw .invalidURL(reason: "the scheme must be srt://") }
        let rest = text.dropFirst("srt://".count)
        let authority = rest.prefix { $0 != "?" }
        let (host, port) = try Self.parseAuthority(authority)
        self.init(host: host, port: port)
        if authority.endIndex < rest.endIndex {
            try applyQuery(rest[rest.index(after: authority.endIndex)...])
        }
        try validate()
    }

    /// `host:port`, `[v6]:port` or `:port`.
    private static func parseAuthority(_ authority: Substring) throws(SRTAddressError) -> (String, UInt16) {
        guard !authority.contains("@"), !authority.contains("/") else {
            throw .invalidURL(reason: "only host:port may follow srt:// (no user, no path)")
        }
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(reason: "unclosed [ in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.hasPrefix(":") else { throw .invalidURL(reason: "the port is missing") }
            portText = after.dropFirst()
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw .invalidURL(reason: "the port is missing") }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            guard !host.contains(":") else { throw .invalidURL(reason: "an IPv6 host must be in brackets") }
        }
        guard let port = UInt16(portText) else { throw .invalidURL(reason: "the port '\(portText)' is not 0-65535") }
        return (String(host), port)
    }

    /// Applies `key=value&…`: every key once, each known by name.
    private mutating func applyQuery(_ query: Substring) throws(SRTAddressError) {
        var seen: Set<Substring> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let key = pair.prefix { $0 != "=" }
            guard key.endIndex < pair.endIndex else { throw .invalidURL(reason: "query key \(SRTAddressError.quoted(key)) has no value") }
            guard seen.insert(key).inserted else { throw .invalidURL(reason: "query key \(SRTAddressError.quoted(key)) appears twice") }
            // Foundation's decoding: nil for a malformed escape or bytes that are not UTF-8.
            guard let value = String(pair[pair.index(after: key.endIndex)...]).removingPercentEncoding else {
                throw .invalidURL(reason: "the value of \(SRTAddressError.quoted(key)) has a malformed %-escape")
            }
            switch key {
            case "streamid": streamID = value
            case "passphrase": passphrase = value
            case "latency":
                guard let milliseconds = Int(value) else { throw .invalidURL(reason: "latency '\(value)' is not a number of milliseconds") }
                latencyMilliseconds = milliseconds
            case "pbkeylen":
                guard let length = Int(value) else { throw .invalidURL(reason: "pbkeylen '\(value)' is not a number") }
                keyLength = length
            case "mode":
                guard let mode = Mode(rawValue: value) else { throw .invalidURL(reason: "mode '\(value)' is not caller or listener") }
                self.mode = mode
            default:
                throw .invalidURL(reason: "unknown query key \(SRTAddressError.quoted(key)) (known: streamid, passphrase, latency, pbkeylen, mode)")
            }
        }
    }

    /// The bounds every URL holds to, however it was made.
    public func validate() throws(SRTAddressError) {
        if mode == .caller {
            guard !host.isEmpty else { throw .invalidURL(reason: "a caller needs a host") }
            guard port != 0 else { throw .invalidURL(reason: "a caller needs a port other than 0") }
        }
        guard Self.latencyRange.contains(latencyMilliseconds) else {
            throw .invalidURL(reason: "latency \(latencyMilliseconds) ms is outside \(Self.latencyRange.lowerBound)-\(Self.latencyRange.upperBound) ms")
        }
        guard Self.keyLengths.contains(keyLength) else { throw .invalidURL(reason: "pbkeylen \(keyLength) is not 0, 16, 24 or 32") }
        if let passphrase {
            guard Self.passphraseLengths.contains(passphrase.count) else {
                throw .invalidURL(reason: "the passphrase must be \(Self.passphraseLengths.lowerBound)-\(Self.passphraseLengths.upperBound) characters (it has \(passphrase.count))")
            }
        } else if keyLength != 0 {
            throw .invalidURL(reason: "pbkeylen needs a passphrase")
        }
        if let streamID {
            guard !streamID.isEmpty else { throw .invalidURL(reason: "the streamid is empty") }
            guard streamID.utf8.count <= Self.maximumStreamIDLength else {
                throw .invalidURL(reason: "the streamid is longer than \(Self.maximumStreamIDLength) bytes")
            }
        }
    }

    /// The URL with the passphrase and streamid values shown as `***`: what logs, events and listings show.
    public var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        var query: [String] = []
        if streamID != nil { query.append("streamid=***") }
        if passphrase != nil { query.append("passphrase=***") }
        if latencyMilliseconds != Self.defaultLatencyMilliseconds { query.append("latency=\(latencyMilliseconds)") }
        if keyLength != 0 { query.append("pbkeylen=\(keyLength)") }
        if mode != .caller { query.append("mode=\(mode.rawValue)") }
        return "srt://\(hostPart):\(port)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}

extension SRTURL: CustomStringConvertible, CustomDebugStringConvertible {
    /// Redacted, so string interpolation never leaks a secret.
    public var description: String { redacted }
    public var debugDescription: String { redacted }
}
