// RFC 8122 §5 the fingerprint attribute (a=fingerprint:<hash-func> <hex pairs joined by ":">); RFC 8842 §5 its use in WebRTC.

/// The hash of the certificate a DTLS peer will present: the only thing that ties the DTLS handshake to the signalling.
/// The one fingerprint type: the SDP reads and writes it, and DTLS (the WebRTC target) checks a peer's certificate
/// against it.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// A SHA-512 digest, the longest hash RFC 8122 names.
    public static let maxDigestSize = 64
    /// The hash WebRTC endpoints use (RFC 8827 §6.5), the only one this worker's DTLS checks.
    public static let sha256 = "sha-256"
    /// A SHA-256 digest's size.
    public static let sha256DigestSize = 32

    /// Lowercased ("sha-256", "sha-1"): RFC 8122 names are case-insensitive.
    public var hashFunction: String
    public var digest: [UInt8]

    public init(hashFunction: String, digest: [UInt8]) {
        self.hashFunction = hashFunction.lowercased()
        self.digest = digest
    }

    /// An `a=fingerprint` value on its own (what follows "a=fingerprint:"): `sha-256 AB:CD:...`, hex of either case.
    public init(parsing value: String) throws {
        try self.init(parsing: value, context: SDPLine(number: 1, text: "a=fingerprint:" + value))
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2 else { throw context.invalid("not <hash function> <fingerprint>") }
        let pairs = fields[1].split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count <= Self.maxDigestSize else {
            throw context.invalid("\(pairs.count) bytes, over the \(Self.maxDigestSize) of SHA-512")
        }
        var digest: [UInt8] = []
        for pair in pairs {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else { throw context.invalid("\"\(pair)\" is not two hex digits") }
            digest.append(byte)
        }
        self.init(hashFunction: String(fields[0]), digest: digest)
    }

    /// Whether this is a SHA-256 fingerprint of the right size, the kind DTLS here can check.
    public var isSHA256: Bool { hashFunction == Self.sha256 && digest.count == Self.sha256DigestSize }

    public var description: String { sdpValue }

    /// What follows "a=fingerprint:": upper-case hex as RFC 8122's grammar writes it.
    public var sdpValue: String {
        let hex = digest.map { byte -> String in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + text : text
        }
        return "\(hashFunction) \(hex.joined(separator: ":"))"
    }
}
