// RFC 5764 §4.1.2 (and RFC 7714 §14.2 for AEAD_AES_128_GCM): the use_srtp protection profiles DTLS negotiates.

/// An SRTP protection profile of the use_srtp extension: the cipher and tag SRTP uses, and the key and salt lengths
/// the DTLS exporter yields for it.
public enum SRTPProtectionProfile: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// AES-128 counter mode, HMAC-SHA1 with an 80-bit tag: every browser offers it.
    case aes128CmHmacSha1_80 = 0x0001
    /// AES-128 GCM with a 128-bit tag (RFC 7714).
    case aeadAes128Gcm = 0x0007

    /// The profile's name in OpenSSL's `SSL_CTX_set_tlsext_use_srtp` list.
    var openSSLName: String {
        switch self {
        case .aes128CmHmacSha1_80: return "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: return "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// SRTP master key length in bytes.
    public var masterKeyLength: Int { 16 }

    /// SRTP master salt length in bytes: 112 bits for counter mode (RFC 3711 §8.2), 96 for GCM (RFC 7714 §12).
    public var masterSaltLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: return 14
        case .aeadAes128Gcm: return 12
        }
    }

    public var description: String { openSSLName }
}
