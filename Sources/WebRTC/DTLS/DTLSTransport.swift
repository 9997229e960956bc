// RFC 6347 (DTLS 1.2) with RFC 5764's use_srtp, as RFC 5763 §5 and RFC 8827 §6.5 use it for WebRTC: one association.
import CWebRTCCrypto
import MediaFormats

/// What the association reports besides datagrams to send.
public enum DTLSEvent: Equatable, Sendable {
    /// The handshake completed and the peer's certificate has the expected fingerprint: the SRTP profile and keys.
    case connected(DTLSHandshakeResult)
    /// Application data (a data channel's SCTP, RFC 8261), decrypted.
    case applicationData([UInt8])
    /// The peer sent close_notify.
    case closedByPeer
    /// The association failed (a refused handshake, the peer's alert, retransmissions exhausted): it is over.
    case failed(DTLSError)
}

/// What a completed handshake yields (RFC 5764 §4.2).
public struct DTLSHandshakeResult: Equatable, Sendable {
    /// The profile the server picked.
    public let profile: SRTPProtectionProfile
    /// Both sides' SRTP master keys and salts.
    public let keyingMaterial: DTLSSRTPKeyingMaterial
    /// The fingerprint the peer's certificate has (the one expected).
    public let peerFingerprint: DTLSFingerprint
}

/// Datagrams to send, in order, and what happened.
public struct DTLSOutput: Equatable, Sendable {
    /// Each at most the transport's MTU; send each as one UDP datagram to the peer.
    public var datagrams: [[UInt8]] = []
    public var events: [DTLSEvent] = []
}

/// One DTLS association, sans I/O: datagrams and timer expiries in, datagrams and events out. Owns its SSL and the
/// two BIOs between OpenSSL and the caller; `deinit` frees them.
///
/// Not Sendable: OpenSSL's SSL is not thread-safe, so the owner confines it to one event loop.
public final class DTLSTransport {
    /// A UDP payload small enough to cross paths with tunnels (VPN, TURN) without IP fragmentation.
    public static let defaultMTU = 1200
    /// Smallest and largest MTU accepted: OpenSSL refuses below 256; 1500 is Ethernet's.
    public static let mtuRange = 256...1500
    /// The first retransmission timeout; RFC 6347 §4.2.4.1 recommends 1 s, then doubling up to 60 s.
    public static let defaultInitialRetransmitTimeout: Duration = .seconds(1)
    /// The largest record plaintext DTLS carries (2^14 bytes, RFC 6347 §4.1 via RFC 5246 §6.2.1).
    static let largestRecord = 16_384

    private enum State {
        case idle, handshaking, connected, closed, failed
    }

    public let role: DTLSRole
    public let expectedPeerFingerprint: DTLSFingerprint
    /// Datagrams never exceed it.
    public let mtu: Int
    private let certificate: DTLSCertificate
    private let ssl: OpaquePointer
    private var state = State.idle

    /// A new association; nothing is sent before `start()` or the first `receive`.
    /// - Parameters:
    ///   - role: `.client` sends the ClientHello.
    ///   - certificate: ours, with the SSL_CTX that presents it.
    ///   - expectedPeerFingerprint: the peer SDP's `a=fingerprint`; any other certificate fails the handshake.
    ///   - mtu: the largest datagram to send, within `mtuRange`.
    ///   - initialRetransmitTimeout: the first retransmission timer, 1 ms ... 60 s.
    public init(role: DTLSRole, certificate: DTLSCertificate, expectedPeerFingerprint: DTLSFingerprint,
                mtu: Int = DTLSTransport.defaultMTU,
                initialRetransmitTimeout: Duration = DTLSTransport.defaultInitialRetransmitTimeout) throws(DTLSError) {
        guard Self.mtuRange.contains(mtu) else {
            throw .invalidSetting(name: "mtu", reason: "\(mtu) is outside \(Self.mtuRange)")
        }
        let microseconds = initialRetransmitTimeout.components.seconds * 1_000_000
            + initialRetransmitTimeout.components.attoseconds / 1_000_000_000_000
        guard (1_000...60_000_000).contains(microseconds) else {
            throw .invalidSetting(name: "initialRetransmitTimeout", reason: "\(initialRetransmitTimeout) is outside 1 ms ... 60 s")
        }
        try expectedPeerFingerprint.requireSHA256()
        try OpenSSLResult.requireLibraries()
        ERR_clear_error()
        let ssl = try OpenSSLResult.check(
            sluice_dtls_new(certificate.context, role == .server ? 1 : 0, expectedPeerFingerprint.digest, UInt32(mtu), UInt32(microseconds)),
            "sluice_dtls_new")
        self.role = role
        self.certificate = certificate
        self.expectedPeerFingerprint = expectedPeerFingerprint
        self.mtu = mtu
        self.ssl = ssl
    }

    deinit {
        sluice_dtls_free(ssl)
    }

    /// Starts the handshake: the client's ClientHello; the server waits for one, so it returns nothing.
    public func start() -> DTLSOutput {
        guard state == .idle else { return DTLSOutput() }
        state = .handshaking
        return run { () throws(DTLSError) in try self.advanceHandshake() }
    }

    /// Takes one DTLS datagram from the peer (RFC 7983's 20...63 first byte).
    public func receive(_ datagram: [UInt8]) -> DTLSOutput {
        switch state {
        case .closed, .failed:
            return DTLSOutput()
        case .idle:
            state = .handshaking
        case .handshaking, .connected:
            break
        }
        return run { () throws(DTLSError) in
            let written = datagram.withUnsafeBytes { BIO_write(SSL_get_rbio(self.ssl), $0.baseAddress, Int32($0.count)) }
            guard written == datagram.count || datagram.isEmpty else { throw OpenSSLResult.failure("BIO_write") }
            if self.state == .handshaking { try self.advanceHandshake() }
            if self.state == .connected { try self.readRecords() }
        }
    }

    /// Time left until `handleTimeout()` has a flight to retransmit, or nil when no retransmission is pending.
    public var timeUntilRetransmission: Duration? {
        guard state == .handshaking else { return nil }
        let microseconds = sluice_dtls_timeout_microseconds(ssl)
        return microseconds < 0 ? nil : .microseconds(microseconds)
    }

    /// Retransmits the last flight if its timer expired (DTLSv1_handle_timeout, which reads OpenSSL's own clock).
    /// Call it when `timeUntilRetransmission` has passed; early calls return nothing.
    public func handleTimeout() -> DTLSOutput {
        guard state == .handshaking else { return DTLSOutput() }
        return run { () throws(DTLSError) in
            guard sluice_dtls_handle_timeout(self.ssl) >= 0 else { throw OpenSSLResult.failure("DTLSv1_handle_timeout") }
        }
    }

    /// Ends the association: close_notify to the peer once connected (RFC 5246 §7.2.1). Nothing goes through after.
    public func close() -> DTLSOutput {
        let wasConnected = state == .connected
        guard state != .closed, state != .failed else { return DTLSOutput() }
        state = .closed
        guard wasConnected else { return DTLSOutput() }
        return run { () throws(DTLSError) in
            // 0: close_notify sent, the peer's not yet received, which is all a datagram transport waits for.
            guard SSL_shutdown(self.ssl) >= 0 else { throw OpenSSLResult.failure("SSL_shutdown") }
        }
    }

    /// Runs `step` on a clean error queue and gathers what it queued to send; a failure becomes the `.failed` event
    /// after the datagrams (the alert that tells the peer).
    private func run(_ step: () throws(DTLSError) -> Void) -> DTLSOutput {
        var output = DTLSOutput()
        ERR_clear_error()
        do {
            try step()
        } catch {
            state = .failed
            pendingEvents.append(.failed(error))
        }
        output.datagrams = takeDatagrams()
        output.events = pendingEvents
        pendingEvents = []
        return output
    }

    private var pendingEvents: [DTLSEvent] = []

    private func advanceHandshake() throws(DTLSError) {
        let result = SSL_do_handshake(ssl)
        guard result != 1 else {
            pendingEvents.append(.connected(try handshakeResult()))
            state = .connected
            return
        }
        try checkIO(result, "SSL_do_handshake")
    }

    /// Decrypts every record OpenSSL holds: application data, or the peer's close_notify.
    private func readRecords() throws(DTLSError) {
        var buffer = [UInt8](repeating: 0, count: Self.largestRecord)
        while state == .connected {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else {
                try checkIO(count, "SSL_read")
                return
            }
            pendingEvents.append(.applicationData(Array(buffer[0..<Int(count)])))
        }
    }

    /// An SSL_do_handshake or SSL_read result that is not progress: waiting for a datagram is fine, close_notify
    /// closes, anything else is the failure OpenSSL queued (a fingerprint mismatch named as such).
    private func checkIO(_ result: Int32, _ function: String) throws(DTLSError) {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return
        case SSL_ERROR_ZERO_RETURN:
            state = .closed
            pendingEvents.append(.closedByPeer)
        default:
            if sluice_dtls_fingerprint_mismatched(ssl) == 1 {
                ERR_clear_error()
                throw .fingerprintMismatch(expected: expectedPeerFingerprint, presented: presentedFingerprint())
            }
            throw OpenSSLResult.failure(function)
        }
    }

    /// The negotiated profile, the exported keys and the peer's fingerprint.
    private func handshakeResult() throws(DTLSError) -> DTLSHandshakeResult {
        guard let selected = SSL_get_selected_srtp_profile(ssl) else { throw .noSRTPProfile }
        let id = selected.pointee.id
        guard let profile = SRTPProtectionProfile(rawValue: UInt16(truncatingIfNeeded: id)), id <= UInt16.max,
              certificate.profiles.contains(profile) else {
            throw .unsupportedSRTPProfile(id: id)
        }
        var exported = [UInt8](repeating: 0, count: 2 * (profile.masterKeyLength + profile.masterSaltLength))
        let label = DTLSSRTPKeyingMaterial.exporterLabel
        try OpenSSLResult.check(
            SSL_export_keying_material(ssl, &exported, exported.count, label, label.utf8.count, nil, 0, 0), "SSL_export_keying_material")
        // The verify callback saw the certificate, and accepted it only with the expected digest.
        guard let presented = presentedFingerprint(), presented == expectedPeerFingerprint else {
            throw .fingerprintMismatch(expected: expectedPeerFingerprint, presented: presentedFingerprint())
        }
        return DTLSHandshakeResult(
            profile: profile, keyingMaterial: try DTLSSRTPKeyingMaterial(profile: profile, exported: exported), peerFingerprint: presented)
    }

    private func presentedFingerprint() -> DTLSFingerprint? {
        var digest = [UInt8](repeating: 0, count: DTLSFingerprint.sha256DigestSize)
        guard sluice_dtls_peer_fingerprint(ssl, &digest) == 1 else { return nil }
        return try? DTLSFingerprint(sha256: digest)
    }

    /// Every datagram OpenSSL wrote since the last call, oldest first.
    private func takeDatagrams() -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var length = 0
        while let bytes = sluice_dtls_peek_datagram(ssl, &length) {
            datagrams.append(Array(UnsafeBufferPointer(start: bytes, count: length)))
            sluice_dtls_pop_datagram(ssl)
        }
        return datagrams
    }
}
