// RFC 8835 §3 (WebRTC's transports), RFC 7983 (STUN, DTLS and SRTP on one port), RFC 5764 §5.1 (DTLS-SRTP on the ICE
// pair) and RFC 5761 §4 (RTP and RTCP on one port): the one transport a WHIP or WHEP session's BUNDLE shares.
import MediaFormats

/// What the transport reports besides datagrams to send.
public enum WebRTCTransportEvent: Sendable, Equatable {
    /// ICE selected the address media goes to (the peer nominated it, or moved the nomination there).
    case selected(TransportAddress)
    /// DTLS completed with the peer the SDP announced, and SRTP is keyed with this profile.
    case connected(SRTPProtectionProfile)
    /// An RTP packet, decrypted and authenticated.
    case rtp(RTPPacket)
    /// A compound RTCP packet, decrypted and authenticated.
    case rtcp([UInt8])
    /// The session is over: DTLS failed, or the peer stopped proving consent. Why, for the job's log.
    case failed(String)
    /// The peer closed DTLS (close_notify): it left.
    case closedByPeer
}

/// Datagrams to send, each to its address, and what happened.
public struct WebRTCTransportOutput: Sendable, Equatable {
    public var datagrams: [WebRTCDatagram] = []
    public var events: [WebRTCTransportEvent] = []

    public init() {}
}

/// One UDP payload and where it goes.
public struct WebRTCDatagram: Sendable, Equatable {
    public var bytes: [UInt8]
    public var destination: TransportAddress

    public init(_ bytes: [UInt8], to destination: TransportAddress) {
        self.bytes = bytes
        self.destination = destination
    }
}

/// One session's transport, sans I/O: ICE-lite answers the peer's checks, DTLS runs only with an address that passed
/// one (so the shared port talks DTLS with nobody who lacks the SDP's credentials), and SRTP, keyed by DTLS, opens what
/// comes and seals what goes. Datagrams, their source and the time in; datagrams with their destinations and events out.
///
/// Not Sendable: DTLS and SRTP hold C state that is not thread-safe, so the owner confines it to one event loop.
public final class WebRTCTransport {
    /// Where the transport is.
    public enum State: Sendable, Equatable {
        /// Waiting for a check that nominates a pair.
        case checking
        /// A pair is selected; DTLS is under way.
        case connecting
        /// SRTP is keyed: media flows.
        case connected
        /// Over (a failure, the peer's close, or ours).
        case closed
    }

    /// What was dropped and why, since the start: what a session's log line sums up.
    public struct Statistics: Sendable, Equatable {
        /// STUN that `ICELiteSession` refused (malformed, wrong credentials, a role conflict).
        public var refusedChecks = 0
        /// DTLS or SRTP from an address that never passed a check.
        public var unauthenticated = 0
        /// SRTP or SRTCP before DTLS keyed it.
        public var beforeKeys = 0
        /// SRTP or SRTCP that failed authentication or replay protection, or did not parse once decrypted.
        public var undecryptable = 0
        /// Datagrams no WebRTC peer sends (RFC 7983's other ranges), and DTLS application data (no data channels here).
        public var ignored = 0
        /// Why the last undecryptable packet was refused (libsrtp's status, or the RTP header's fault).
        public var lastUndecryptable: String?

        public init() {}
    }

    public let dtlsRole: DTLSRole
    public private(set) var state: State = .checking
    public private(set) var statistics = Statistics()
    private var ice: ICELiteSession
    private let dtls: DTLSTransport
    private var srtp: SRTPContext?
    /// Addresses that passed a check: the only ones DTLS and SRTP are taken from.
    private var authenticated: Set<TransportAddress> = []

    /// - Parameters:
    ///   - local: our ICE credentials (the answer's).
    ///   - remote: the peer's (the offer's).
    ///   - certificate: ours; its fingerprint is in the answer.
    ///   - remoteFingerprint: the offer's `a=fingerprint`; DTLS fails with any other certificate.
    ///   - dtlsRole: `.server` when we answered `a=setup:passive` (the peer offered actpass or active).
    public init(local: ICECredentials, remote: ICECredentials, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
                dtlsRole: DTLSRole) throws(DTLSError) {
        ice = ICELiteSession(local: local, remote: remote)
        dtls = try DTLSTransport(role: dtlsRole, certificate: certificate, expectedPeerFingerprint: remoteFingerprint)
        self.dtlsRole = dtlsRole
    }

    /// Where media goes: the selected pair's remote address.
    public var selectedAddress: TransportAddress? { ice.selectedAddress }

    /// Takes one datagram from `source` at `now` (seconds on the caller's monotonic clock).
    public func receive(_ datagram: [UInt8], from source: TransportAddress, now: Double) -> WebRTCTransportOutput {
        var output = WebRTCTransportOutput()
        guard state != .closed else { return output }
        switch WebRTCPacketKind(classifying: datagram) {
        case .stun:
            let outcome = ice.receive(datagram, from: source, now: now)
            if let response = outcome.response { output.datagrams.append(WebRTCDatagram(response, to: source)) }
            guard outcome.rejection == nil else {
                statistics.refusedChecks += 1
                return output
            }
            authenticated.insert(source)
            if let nominated = outcome.nominated {
                output.events.append(.selected(nominated))
                if state == .checking {
                    state = .connecting
                    // The DTLS client speaks first once there is a pair; a server waits for its ClientHello.
                    if dtlsRole == .client { apply(dtls.start(), to: nominated, into: &output) }
                }
            }
        case .dtls:
            guard authenticated.contains(source) else {
                statistics.unauthenticated += 1
                return output
            }
            apply(dtls.receive(datagram), to: source, into: &output)
        case .rtp:
            guard authenticated.contains(source) else {
                statistics.unauthenticated += 1
                return output
            }
            guard let srtp else {
                statistics.beforeKeys += 1
                return output
            }
            open(datagram, with: srtp, into: &output)
        case .other:
            statistics.ignored += 1
        }
        return output
    }

    /// Seals an RTP packet for the selected address; nil before SRTP is keyed or a pair selected.
    public func protectRTP(_ packet: [UInt8]) throws(SRTPError) -> WebRTCDatagram? {
        guard state == .connected, let srtp, let destination = ice.selectedAddress else { return nil }
        return WebRTCDatagram(try srtp.protectRTP(packet), to: destination)
    }

    /// Seals an RTP packet for the selected address, serialized and protected in one buffer; nil as above.
    public func protectRTP(_ packet: RTPPacket) throws(SRTPError) -> WebRTCDatagram? {
        guard state == .connected, let srtp, let destination = ice.selectedAddress else { return nil }
        return WebRTCDatagram(try srtp.protectRTP(packet), to: destination)
    }

    /// Seals a compound RTCP packet (reports, NACK, PLI) for the selected address; nil before SRTP is keyed.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> WebRTCDatagram? {
        guard state == .connected, let srtp, let destination = ice.selectedAddress else { return nil }
        return WebRTCDatagram(try srtp.protectRTCP(packet), to: destination)
    }

    /// How long until `poll` has a DTLS flight to retransmit; nil when none is pending.
    public var timeUntilRetransmission: Duration? { dtls.timeUntilRetransmission }

    /// The timers: DTLS's retransmission once due, and consent (RFC 7675), lost 30 s after the selected address last
    /// proved it. Call it on the session's housekeeping tick.
    public func poll(now: Double) -> WebRTCTransportOutput {
        var output = WebRTCTransportOutput()
        guard state != .closed else { return output }
        if let destination = ice.selectedAddress, let due = dtls.timeUntilRetransmission, due <= .zero {
            apply(dtls.handleTimeout(), to: destination, into: &output)
        }
        if state != .closed, ice.consentExpired(now: now) {
            state = .closed
            let silence = ICELiteSession.consentTimeout
            output.events.append(.failed("the peer sent no ICE consent check for \(Int(silence)) s (RFC 7675): it is gone"))
        }
        return output
    }

    /// Ends the session: close_notify to the peer when DTLS is up. Nothing goes through after.
    public func close() -> WebRTCTransportOutput {
        var output = WebRTCTransportOutput()
        guard state != .closed else { return output }
        if let destination = ice.selectedAddress {
            for datagram in dtls.close().datagrams { output.datagrams.append(WebRTCDatagram(datagram, to: destination)) }
        }
        state = .closed
        return output
    }

    /// DTLS's datagrams go back to `destination`; its events move the state.
    private func apply(_ result: DTLSOutput, to destination: TransportAddress, into output: inout WebRTCTransportOutput) {
        for datagram in result.datagrams { output.datagrams.append(WebRTCDatagram(datagram, to: destination)) }
        for event in result.events {
            switch event {
            case let .connected(handshake):
                do {
                    srtp = try SRTPContext(keyingMaterial: handshake.keyingMaterial, localRole: dtlsRole)
                    state = .connected
                    output.events.append(.connected(handshake.profile))
                } catch {
                    state = .closed
                    output.events.append(.failed("SRTP could not be keyed: \(error)"))
                }
            case .applicationData:
                statistics.ignored += 1
            case .closedByPeer:
                state = .closed
                output.events.append(.closedByPeer)
            case let .failed(error):
                state = .closed
                output.events.append(.failed("DTLS: \(error)"))
            }
        }
    }

    /// RFC 5761 §4: an RTCP packet type (192...223 in the second byte, the marker bit included) is SRTCP, anything else SRTP.
    private func open(_ datagram: [UInt8], with srtp: SRTPContext, into output: inout WebRTCTransportOutput) {
        let isRTCP = datagram.count >= 2 && (192...223).contains(datagram[1])
        do {
            if isRTCP {
                output.events.append(.rtcp(try srtp.unprotectRTCP(datagram)))
            } else {
                output.events.append(.rtp(try RTPPacket(parsing: try srtp.unprotectRTP(datagram))))
            }
        } catch {
            statistics.undecryptable += 1
            statistics.lastUndecryptable = "\(error)"
        }
    }
}
