// RFC 8122 §5 and RFC 8827 §6.5: the SDP's fingerprint (MediaFormats' `DTLSFingerprint`) as DTLS checks it, SHA-256 only.
import MediaFormats

extension DTLSFingerprint {
    /// A SHA-256 fingerprint of `digest`, which must be 32 bytes.
    public init(sha256 digest: [UInt8]) throws(DTLSError) {
        self.init(hashFunction: Self.sha256, digest: digest)
        try requireSHA256()
    }

    /// Throws unless this is a SHA-256 fingerprint of 32 bytes: the C side reads exactly that many.
    func requireSHA256() throws(DTLSError) {
        guard hashFunction == Self.sha256 else {
            throw .invalidFingerprint(reason: "hash function \(hashFunction) is not \(Self.sha256)")
        }
        guard digest.count == Self.sha256DigestSize else {
            throw .invalidFingerprint(reason: "a sha-256 digest is \(Self.sha256DigestSize) bytes, not \(digest.count)")
        }
    }
}
