// RFC 7235 §4.1 WWW-Authenticate (as RTSP 1.0 carries it), RFC 7616 §3.3 the Digest challenge, RFC 7617 §2 Basic.

/// One challenge of a WWW-Authenticate header: its scheme and auth-params (names lowercased, quotes removed).
public struct RTSPAuthenticationChallenge: Sendable, Equatable {
    public var scheme: String
    public var parameters: [String: String]

    public init(scheme: String, parameters: [String: String] = [:]) {
        self.scheme = scheme
        self.parameters = parameters
    }

    public var isDigest: Bool { scheme.lowercased() == "digest" }
    public var isBasic: Bool { scheme.lowercased() == "basic" }

    /// The challenges of one header value. Servers send one per header line, but a line may list several
    /// (`Digest realm="a", nonce="b", Basic realm="a"`): a token not followed by '=' starts the next.
    public static func parse(_ value: String) throws -> [RTSPAuthenticationChallenge] {
        var challenges: [RTSPAuthenticationChallenge] = []
        var scanner = Scanner(Array(value.utf8))
        while true {
            scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            guard let token = scanner.token() else { break }
            scanner.skipSpaces()
            if scanner.peek == UInt8(ascii: "="), var current = challenges.popLast() {
                scanner.advance()
                scanner.skipSpaces()
                guard let value = try scanner.quotedStringOrToken() else {
                    throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "\(token)= has no value")
                }
                current.parameters[token.lowercased()] = value
                challenges.append(current)
            } else {
                challenges.append(RTSPAuthenticationChallenge(scheme: token))
            }
        }
        guard !challenges.isEmpty else {
            throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "no challenge")
        }
        return challenges
    }

    /// A byte scanner for auth-params: tokens and quoted strings with backslash escapes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
        mutating func advance() { index += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while let byte = peek, predicate(byte) { index += 1 }
        }

        mutating func skipSpaces() { skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } }

        /// Characters up to a separator; nil when there is none.
        mutating func token() -> String? {
            let begin = index
            skip { !" \t,=\"".utf8.contains($0) }
            return index > begin ? String(decoding: bytes[begin..<index], as: UTF8.self) : nil
        }

        mutating func quotedStringOrToken() throws -> String? {
            guard peek == UInt8(ascii: "\"") else { return token() }
            advance()
            var value: [UInt8] = []
            while let byte = peek {
                advance()
                if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
                if byte == UInt8(ascii: "\\"), let escaped = peek {
                    advance()
                    value.append(escaped)
                } else {
                    value.append(byte)
                }
            }
            throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "an unterminated quoted string")
        }
    }
}
