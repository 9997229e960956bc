import Testing
import MediaFormats
import WebRTC

@Suite("RFC 8122 fingerprint attribute")
struct DTLSFingerprintTests {
    static let hex = (0..<32).map { byte -> String in
        let text = String(byte * 7 + 3, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }.joined(separator: ":")

    @Test func parsesAndPrintsAnAttributeValue() throws {
        let fingerprint = try DTLSFingerprint(parsing: "sha-256 " + Self.hex)
        let digest: [UInt8] = (0..<32).map { (byte: Int) -> UInt8 in UInt8(byte * 7 + 3) }
        #expect(fingerprint.digest == digest)
        #expect(fingerprint.sdpValue == "sha-256 " + Self.hex)
        #expect(try DTLSFingerprint(parsing: "SHA-256 " + Self.hex.lowercased()) == fingerprint)
    }

    @Test(arguments: [
        ("", "not <hash function> <fingerprint>"),
        ("sha-256 " + String(hex.dropLast(3)) + ":G0", "\"G0\" is not two hex digits"),
        ("sha-256 " + String(hex.dropLast(3)) + ":ABC", "\"ABC\" is not two hex digits"),
    ])
    func refusesMalformedValues(value: String, reason: String) {
        #expect {
            try DTLSFingerprint(parsing: value)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }

    /// What the SDP reads but DTLS cannot check is refused where a transport is made, naming why.
    @Test(arguments: [("sha-1 AB:CD", "hash function sha-1 is not sha-256"), ("sha-256 AB:CD", "32 bytes, not 2")])
    func dtlsTakesOnlySHA256(value: String, reason: String) throws {
        let fingerprint = try DTLSFingerprint(parsing: value)
        #expect {
            try DTLSTransport(role: .server, certificate: try DTLSCertificate(), expectedPeerFingerprint: fingerprint)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }

    @Test func aGeneratedCertificateHasAnUppercaseSHA256Fingerprint() throws {
        let certificate = try DTLSCertificate()
        let value = certificate.fingerprint.sdpValue
        #expect(value.hasPrefix("sha-256 "))
        #expect(value.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(value.dropFirst("sha-256 ".count).allSatisfy { "0123456789ABCDEF:".contains($0) })
        #expect(try DTLSFingerprint(parsing: value) == certificate.fingerprint)
        #expect(try DTLSCertificate().fingerprint != certificate.fingerprint)
    }
}
