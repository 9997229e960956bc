// RFC 8827 §6.5 and RFC 5763 §5: a WebRTC endpoint's self-signed certificate, known to the peer by its fingerprint.
import CWebRTCCrypto
import MediaFormats

/// A self-signed ECDSA P-256 certificate, its SHA-256 fingerprint for our SDP, and the DTLS context (OpenSSL's
/// SSL_CTX) that presents it, shared by the associations made from it.
///
/// Not Sendable: like the associations, it stays on the event loop that made it (one per loop when the engine uses
/// it), so no unchecked claim about OpenSSL's locking is needed.
public final class DTLSCertificate {
    /// Validity of a generated certificate: a year, longer than a worker runs between deploys (browsers do not check a
    /// DTLS certificate's dates, but OpenSSL-based peers such as aiortc and GStreamer may).
    public static let defaultValidity: Duration = .seconds(365 * 24 * 3600)
    /// The profiles offered by default, preferred first (a DTLS server picks by its own order).
    public static let defaultProfiles: [SRTPProtectionProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]

    /// The `a=fingerprint` of our SDP.
    public let fingerprint: DTLSFingerprint
    /// The use_srtp profiles this certificate's associations offer, preferred first.
    public let profiles: [SRTPProtectionProfile]

    let key: OpaquePointer
    let certificate: OpaquePointer
    let context: OpaquePointer

    /// Generates a key and a certificate.
    /// - Parameters:
    ///   - commonName: the subject and issuer CN; browsers ignore it.
    ///   - validity: how long after now the certificate stays valid; 1 second to 10 years.
    ///   - profiles: the use_srtp profiles to offer, preferred first; at least one.
    public init(commonName: String = "sluice", validity: Duration = DTLSCertificate.defaultValidity,
                profiles: [SRTPProtectionProfile] = DTLSCertificate.defaultProfiles) throws(DTLSError) {
        let seconds = validity.components.seconds
        guard (1...(10 * 366 * 24 * 3600)).contains(seconds) else {
            throw .invalidSetting(name: "validity", reason: "\(seconds) s is outside 1 s ... 10 years")
        }
        guard !profiles.isEmpty else { throw .invalidSetting(name: "profiles", reason: "at least one SRTP profile is needed") }
        try OpenSSLResult.requireLibraries()
        ERR_clear_error()
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        try OpenSSLResult.check(sluice_dtls_certificate_new(commonName, Int(seconds), &key, &certificate), "sluice_dtls_certificate_new")
        guard let key, let certificate else { throw OpenSSLResult.failure("sluice_dtls_certificate_new") }
        var digest = [UInt8](repeating: 0, count: DTLSFingerprint.sha256DigestSize)
        let context: OpaquePointer
        let fingerprint: DTLSFingerprint
        do {
            try OpenSSLResult.check(sluice_dtls_certificate_fingerprint(certificate, &digest), "X509_digest")
            fingerprint = try DTLSFingerprint(sha256: digest)
            context = try OpenSSLResult.check(
                sluice_dtls_context_new(certificate, key, profiles.map(\.openSSLName).joined(separator: ":")), "sluice_dtls_context_new")
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
        self.certificate = certificate
        self.context = context
        self.profiles = profiles
        self.fingerprint = fingerprint
    }

    deinit {
        SSL_CTX_free(context)
        X509_free(certificate)
        EVP_PKEY_free(key)
    }
}
