import Testing
import MediaFormats
import WebRTC

@Suite("SRTP keyed by DTLS")
struct SRTPContextTests {
    /// An RTP packet (RFC 3550 §5.1): V=2, PT 96, the given sequence number, timestamp 0x01020304, SSRC 0x11223344.
    static func rtp(sequence: UInt16, payload: [UInt8] = Array(0..<100)) -> [UInt8] {
        [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44] + payload
    }

    /// An RTCP receiver report without report blocks (RFC 3550 §6.4.2): PT 201, length 1, SSRC.
    static func receiverReport(ssrc: UInt8) -> [UInt8] {
        [0x80, 201, 0, 1, 0xAA, 0xBB, 0xCC, ssrc]
    }

    /// Client and server contexts from one in-memory handshake offering only `profile`.
    static func contexts(_ profile: SRTPProtectionProfile) throws -> (client: SRTPContext, server: SRTPContext) {
        let peers = try DTLSPeers(profiles: [profile])
        peers.handshake()
        let client = try #require(DTLSPeers.result(in: peers.clientEvents))
        let server = try #require(DTLSPeers.result(in: peers.serverEvents))
        return (try SRTPContext(keyingMaterial: client.keyingMaterial, localRole: .client),
                try SRTPContext(keyingMaterial: server.keyingMaterial, localRole: .server))
    }

    @Test(arguments: [(SRTPProtectionProfile.aes128CmHmacSha1_80, 10), (.aeadAes128Gcm, 16)])
    func rtpProtectedByOneSideIsUnprotectedByTheOther(profile: SRTPProtectionProfile, tagLength: Int) throws {
        let (client, server) = try Self.contexts(profile)
        let packet = Self.rtp(sequence: 1000)
        let protected = try client.protectRTP(packet)
        #expect(protected.count == packet.count + tagLength)
        #expect(Array(protected.prefix(12)) == Array(packet.prefix(12)))
        #expect(protected[12..<packet.count] != packet[12...])
        #expect(try server.unprotectRTP(protected) == packet)
        let answer = Self.rtp(sequence: 7)
        #expect(try client.unprotectRTP(try server.protectRTP(answer)) == answer)
    }

    @Test(arguments: [SRTPProtectionProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func aFlippedByteFailsAuthentication(profile: SRTPProtectionProfile) throws {
        let (client, server) = try Self.contexts(profile)
        var protected = try client.protectRTP(Self.rtp(sequence: 1))
        protected[20] ^= 0x01
        #expect {
            try server.unprotectRTP(protected)
        } throws: { error in
            (error as? SRTPError)?.status == .authFail
        }
    }

    @Test func aReplayedPacketFailsAsAReplay() throws {
        let (client, server) = try Self.contexts(.aes128CmHmacSha1_80)
        let protected = try client.protectRTP(Self.rtp(sequence: 5))
        _ = try server.unprotectRTP(protected)
        #expect {
            try server.unprotectRTP(protected)
        } throws: { error in
            (error as? SRTPError)?.status == .replayFail && String(describing: error) == "srtp_unprotect: replay_fail"
        }
    }

    @Test func packetsOutOfOrderWithinTheWindowAreAccepted() throws {
        let (client, server) = try Self.contexts(.aes128CmHmacSha1_80)
        let packets = try (100..<110).map { try client.protectRTP(Self.rtp(sequence: UInt16($0))) }
        for index in [9, 0, 5, 3, 1, 2, 4, 8, 6, 7] {
            #expect(try server.unprotectRTP(packets[index]) == Self.rtp(sequence: UInt16(100 + index)))
        }
    }

    @Test func weMaySendAPacketAgainAsARetransmission() throws {
        let (client, _) = try Self.contexts(.aes128CmHmacSha1_80)
        let packet = Self.rtp(sequence: 42)
        let first = try client.protectRTP(packet)
        #expect(try client.protectRTP(packet) == first)
        // A packet protected as it is serialized (in one buffer with room for the tag) is the same SRTP packet.
        #expect(try client.protectRTP(try RTPPacket(parsing: packet)) == first)
    }

    @Test(arguments: [SRTPProtectionProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func rtcpGoesBothWays(profile: SRTPProtectionProfile) throws {
        let (client, server) = try Self.contexts(profile)
        let fromClient = Self.receiverReport(ssrc: 1)
        let protected = try client.protectRTCP(fromClient)
        // The SRTCP index with its E flag, and the tag, follow the packet (RFC 3711 §3.4).
        #expect(protected.count > fromClient.count + 4)
        #expect(try server.unprotectRTCP(protected) == fromClient)
        let fromServer = Self.receiverReport(ssrc: 2)
        #expect(try client.unprotectRTCP(try server.protectRTCP(fromServer)) == fromServer)
        var tampered = try server.protectRTCP(fromServer)
        tampered[5] ^= 0x80
        #expect(throws: SRTPError.self) { try client.unprotectRTCP(tampered) }
    }

    @Test func aPacketShorterThanAnRTPHeaderIsRefused() throws {
        let (client, server) = try Self.contexts(.aes128CmHmacSha1_80)
        #expect(throws: SRTPError.self) { try client.protectRTP([0x80, 96, 0]) }
        #expect(throws: SRTPError.self) { try server.unprotectRTP([]) }
    }
}
