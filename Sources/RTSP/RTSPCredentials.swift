// RFC 7617 §2 Basic credentials; RFC 7616 §3.4 the Digest response (MD5, SHA-256 and their -sess forms; qop=auth
// or, as RFC 2069 servers ask, no qop).
import Crypto
import MediaFormats

/// A user name and password, and the Authorization header they give for a request once a server has challenged.
public struct RTSPCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `Basic base64(user:password)`.
    public var basicAuthorization: String {
        "Basic " + Base64.encode(Array((user + ":" + password).utf8))
    }
}

/// The Digest state of a connection: the challenge answered and how many requests answered it (nc).
public struct DigestAuthenticator: Sendable, Equatable {
    /// The hash named by the challenge's `algorithm`.
    public enum Algorithm: String, Sendable, Equatable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"

        func hash(_ text: String) -> String {
            let bytes = Array(text.utf8)
            switch self {
            case .md5, .md5Session: return Self.hex(Insecure.MD5.hash(data: bytes))
            case .sha256, .sha256Session: return Self.hex(SHA256.hash(data: bytes))
            }
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }

        private static func hex(_ digest: some Sequence<UInt8>) -> String {
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
        }
    }

    public let credentials: RTSPCredentials
    public let realm: String
    public let nonce: String
    public let opaque: String?
    public let algorithm: Algorithm
    /// "auth" when the server offered it; nil for the older form without qop.
    public let qop: String?
    /// The client nonce sent with every request (the count, not the cnonce, changes per request).
    public let clientNonce: String
    /// Requests answered so far with this nonce.
    public private(set) var nonceCount = 0

    /// The authenticator for a Digest challenge; throws when it has no realm or nonce, names an algorithm this client
    /// does not compute, or offers only qop values other than auth (auth-int needs the body hashed).
    public init(challenge: RTSPAuthenticationChallenge, credentials: RTSPCredentials, clientNonce: String) throws {
        guard challenge.isDigest, let realm = challenge.parameters["realm"], let nonce = challenge.parameters["nonce"] else {
            throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "a Digest challenge without realm or nonce")
        }
        let name = challenge.parameters["algorithm"] ?? "MD5"
        guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "Digest algorithm \(name) is not supported")
        }
        var qop: String?
        if let offered = challenge.parameters["qop"] {
            let values = offered.split(separator: ",").map { String($0).trimmedOfSpaces.lowercased() }
            guard values.contains("auth") else {
                throw RTSPError.malformed(structure: "WWW-Authenticate header", reason: "Digest qop \(offered) without auth")
            }
            qop = "auth"
        }
        self.credentials = credentials
        self.realm = realm
        self.nonce = nonce
        opaque = challenge.parameters["opaque"]
        self.algorithm = algorithm
        self.qop = qop
        self.clientNonce = clientNonce
    }

    /// The Authorization header value for one request; counts it.
    public mutating func authorization(method: RTSPMethod, uri: String) -> String {
        nonceCount += 1
        // nc: the count in 8 hex digits.
        let digits = String(nonceCount, radix: 16)
        let nc = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        var ha1 = algorithm.hash("\(credentials.user):\(realm):\(credentials.password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(nonce):\(clientNonce)") }
        let ha2 = algorithm.hash("\(method.rawValue):\(uri)")
        let response = if let qop {
            algorithm.hash("\(ha1):\(nonce):\(nc):\(clientNonce):\(qop):\(ha2)")
        } else {
            algorithm.hash("\(ha1):\(nonce):\(ha2)")
        }
        var fields = ["username=\(Self.quoted(credentials.user))", "realm=\(Self.quoted(realm))", "nonce=\(Self.quoted(nonce))",
                      "uri=\(Self.quoted(uri))", "response=\"\(response)\"", "algorithm=\(algorithm.rawValue)"]
        if let qop { fields += ["qop=\(qop)", "nc=\(nc)", "cnonce=\(Self.quoted(clientNonce))"] }
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// A quoted-string: backslash before '"' and '\'.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingBackslashAndQuote + "\""
    }
}

extension DigestAuthenticator.Algorithm: CaseIterable {}

extension String {
    fileprivate var replacingBackslashAndQuote: String {
        var result = ""
        for character in self {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
