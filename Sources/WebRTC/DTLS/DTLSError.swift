// RFC 5764 §4 (DTLS-SRTP) and RFC 8122 §5 (the fingerprint): what can go wrong between two WebRTC endpoints' DTLS.
import MediaFormats

/// A failure of DTLS-SRTP: OpenSSL's own text where OpenSSL refused, otherwise what was wrong by name.
public enum DTLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libcrypto, libssl or libsrtp2 could not be opened: dlerror's text, which names the library.
    case libraryUnavailable(reason: String)
    /// An OpenSSL call failed: its name and OpenSSL's error queue (`ERR_error_string_n`), oldest first.
    case library(function: String, message: String)
    /// The peer's certificate is not the one its SDP announced (RFC 8122 §5): what was expected and what came.
    case fingerprintMismatch(expected: DTLSFingerprint, presented: DTLSFingerprint?)
    /// The handshake completed without a use_srtp profile both sides offer (RFC 5764 §4.1.1).
    case noSRTPProfile
    /// The peer picked a use_srtp profile this endpoint did not offer: its id.
    case unsupportedSRTPProfile(id: UInt)
    /// An `a=fingerprint` value was refused: why.
    case invalidFingerprint(reason: String)
    /// A setting was out of its range: which, and the range.
    case invalidSetting(name: String, reason: String)
    /// The association is closed (our `close()` or the peer's close_notify): nothing more goes through it.
    case closed

    public var description: String {
        switch self {
        case let .libraryUnavailable(reason):
            return "WebRTC crypto libraries unavailable: \(reason)"
        case let .library(function, message):
            return "\(function): \(message)"
        case let .fingerprintMismatch(expected, presented):
            return "DTLS fingerprint mismatch: the SDP announced \(expected), the peer presented \(presented.map(\.description) ?? "no certificate")"
        case .noSRTPProfile:
            return "DTLS handshake negotiated no SRTP profile (use_srtp)"
        case let .unsupportedSRTPProfile(id):
            return "DTLS handshake negotiated SRTP profile \(id), which was not offered"
        case let .invalidFingerprint(reason):
            return "invalid DTLS fingerprint: \(reason)"
        case let .invalidSetting(name, reason):
            return "invalid DTLS setting \(name): \(reason)"
        case .closed:
            return "the DTLS association is closed"
        }
    }
}
