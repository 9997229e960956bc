// RFC 3711 (SRTP and SRTCP) keyed by RFC 5764 §4.2: both directions of one DTLS-SRTP association, over libsrtp2.
import CWebRTCCrypto
import MediaFormats

/// Protects what we send with our side's key and unprotects what the peer sends with its key. Owns two libsrtp
/// sessions; `deinit` frees them.
///
/// Not Sendable: a libsrtp session's replay state and rollover counters are not locked, so the owner confines it
/// to one event loop.
public final class SRTPContext {
    /// Replay window in packets: room for reordering across a jittery path (libsrtp's default is 128).
    public static let defaultReplayWindow = 1024
    /// libsrtp's accepted window sizes (srtp_create refuses outside).
    public static let replayWindowRange = 64...0x7fff
    /// The largest packet handled: far above any UDP datagram WebRTC sends (a 1500-byte MTU at most in practice).
    public static let largestPacket = 65_535
    /// libsrtp writes up to this many bytes past an RTP packet (tag and MKI), and 4 more past RTCP (the SRTCP index).
    static let rtpTrailer = Int(SRTP_MAX_TRAILER_LEN)
    static let rtcpTrailer = Int(SRTP_MAX_TRAILER_LEN) + 4

    public let profile: SRTPProtectionProfile
    private let inbound: OpaquePointer
    private let outbound: OpaquePointer

    /// Sessions for `localRole`'s side of a DTLS handshake.
    /// - Parameters:
    ///   - keyingMaterial: what the handshake exported.
    ///   - localRole: our DTLS role; we protect with its key and unprotect with the peer role's.
    ///   - replayWindow: packets the replay check remembers, within `replayWindowRange`.
    public init(keyingMaterial: DTLSSRTPKeyingMaterial, localRole: DTLSRole,
                replayWindow: Int = SRTPContext.defaultReplayWindow) throws(SRTPError) {
        guard Self.replayWindowRange.contains(replayWindow) else {
            throw .library(function: "srtp_create", status: .badParam)
        }
        if let reason = sluice_webrtc_crypto_load() {
            throw .libraryUnavailable(reason: String(cString: reason))
        }
        let profile = keyingMaterial.profile
        let outbound = try Self.session(profile, keyingMaterial.keyAndSalt(of: localRole), outbound: true, window: replayWindow)
        do {
            inbound = try Self.session(profile, keyingMaterial.keyAndSalt(of: localRole.peer), outbound: false, window: replayWindow)
        } catch {
            srtp_dealloc(outbound)
            throw error
        }
        self.outbound = outbound
        self.profile = profile
    }

    deinit {
        srtp_dealloc(inbound)
        srtp_dealloc(outbound)
    }

    /// An SRTP packet for an RTP packet of ours (RFC 3711 §3.3). Sending the same packet again (a NACK's answer) is allowed.
    public func protectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try transform(packet, trailer: Self.rtpTrailer, function: "srtp_protect") { srtp_protect(outbound, $0, $1) }
    }

    /// An SRTP packet for `packet`, serialized with room for the tag and protected in that one buffer.
    public func protectRTP(_ packet: RTPPacket) throws(SRTPError) -> [UInt8] {
        try protectRTP(packet.serialized(reserving: Self.rtpTrailer))
    }

    /// The RTP packet inside the peer's SRTP packet, once its tag and index verify (RFC 3711 §3.3).
    public func unprotectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try transform(packet, trailer: 0, function: "srtp_unprotect") { srtp_unprotect(inbound, $0, $1) }
    }

    /// An SRTCP packet for an RTCP compound packet of ours (RFC 3711 §3.4).
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try transform(packet, trailer: Self.rtcpTrailer, function: "srtp_protect_rtcp") { srtp_protect_rtcp(outbound, $0, $1) }
    }

    /// The RTCP compound packet inside the peer's SRTCP packet, once its tag and index verify (RFC 3711 §3.4).
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try transform(packet, trailer: 0, function: "srtp_unprotect_rtcp") { srtp_unprotect_rtcp(inbound, $0, $1) }
    }

    /// Runs one libsrtp transform in place, `trailer` spare bytes added (within the array's capacity when it has room,
    /// so a packet serialized with that room is not copied); its status is the one check.
    private func transform(_ packet: consuming [UInt8], trailer: Int, function: String,
                           _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t) throws(SRTPError) -> [UInt8] {
        guard packet.count <= Self.largestPacket else { throw .packetTooLarge(length: packet.count, limit: Self.largestPacket) }
        var length = Int32(packet.count)
        var buffer = packet
        buffer.append(contentsOf: repeatElement(0, count: trailer))
        let status = buffer.withUnsafeMutableBytes { bytes in
            // An empty packet still needs an address: libsrtp refuses it by its length.
            guard let base = bytes.baseAddress else { return srtp_err_status_bad_param }
            return call(base, &length)
        }
        try Self.check(status, function)
        guard (0...buffer.count).contains(Int(length)) else { throw .library(function: function, status: SRTPStatus(code: 1)) }
        buffer.removeLast(buffer.count - Int(length))
        return buffer
    }

    private static func check(_ status: srtp_err_status_t, _ function: String) throws(SRTPError) {
        guard status == srtp_err_status_ok else {
            throw .library(function: function, status: SRTPStatus(code: Int32(bitPattern: status.rawValue)))
        }
    }

    private static func session(_ profile: SRTPProtectionProfile, _ keyAndSalt: [UInt8], outbound: Bool,
                                window: Int) throws(SRTPError) -> OpaquePointer {
        var session: srtp_t?
        let status = sluice_srtp_create(&session, Int32(profile.rawValue), keyAndSalt, keyAndSalt.count, outbound ? 1 : 0, UInt(window))
        try check(status, "srtp_create")
        guard let session else { throw .library(function: "srtp_create", status: .allocFailed) }
        return session
    }
}

extension SRTPStatus {
    /// libsrtp returned no session without saying why.
    static let allocFailed = SRTPStatus(code: 3)
}
