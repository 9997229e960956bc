import Testing
import MediaFormats
import WebRTC

@Suite("DTLS-SRTP handshake in memory")
struct DTLSTransportTests {
    @Test(arguments: [
        ([SRTPProtectionProfile.aes128CmHmacSha1_80], SRTPProtectionProfile.aes128CmHmacSha1_80, 60),
        ([.aeadAes128Gcm, .aes128CmHmacSha1_80], .aeadAes128Gcm, 56),
    ])
    func bothSidesCompleteWithTheSameKeys(profiles: [SRTPProtectionProfile], negotiated: SRTPProtectionProfile, exportedLength: Int) throws {
        let peers = try DTLSPeers(profiles: profiles)
        peers.handshake()
        let client = try #require(DTLSPeers.result(in: peers.clientEvents))
        let server = try #require(DTLSPeers.result(in: peers.serverEvents))
        #expect(client.profile == negotiated)
        #expect(server.profile == negotiated)
        #expect(client.keyingMaterial == server.keyingMaterial)
        #expect(client.keyingMaterial.exported.count == exportedLength)
        #expect(client.keyingMaterial.keyAndSalt(of: .client) != client.keyingMaterial.keyAndSalt(of: .server))
        #expect(client.peerFingerprint == peers.serverCertificate.fingerprint)
        #expect(server.peerFingerprint == peers.clientCertificate.fingerprint)
        #expect(peers.client.timeUntilRetransmission == nil)
    }

    @Test(arguments: [1200, 256])
    func everyDatagramFitsTheMTUAndTheCertificateFlightIsFragmentedWhenItMustBe(mtu: Int) throws {
        let peers = try DTLSPeers(profiles: [.aes128CmHmacSha1_80], mtu: mtu)
        peers.handshake()
        #expect(DTLSPeers.result(in: peers.clientEvents) != nil)
        #expect(DTLSPeers.result(in: peers.serverEvents) != nil)
        let sent = peers.clientSent + peers.serverSent
        #expect(sent.allSatisfy { $0.count <= mtu })
        #expect(sent.allSatisfy { WebRTCPacketKind(classifying: $0) == .dtls })
        // The server's first flight (hello, certificate, key exchange, certificate request, done) is larger than 256 bytes.
        if mtu == 256 { #expect(peers.serverSent.count > 3) }
    }

    @Test func aCertificateOtherThanTheAnnouncedOneFailsAsAFingerprintMismatch() throws {
        let wrong = try DTLSFingerprint(sha256: [UInt8](repeating: 0xAB, count: 32))
        let peers = try DTLSPeers(clientExpects: wrong)
        peers.handshake()
        #expect(DTLSPeers.result(in: peers.clientEvents) == nil)
        #expect(DTLSPeers.result(in: peers.serverEvents) == nil)
        let failure = try #require(DTLSPeers.failure(in: peers.clientEvents))
        #expect(failure == .fingerprintMismatch(expected: wrong, presented: peers.serverCertificate.fingerprint))
        #expect(failure.description.contains("fingerprint mismatch"))
        // The client's alert reaches the server, which fails with OpenSSL's text for it.
        guard case let .library(function, message) = try #require(DTLSPeers.failure(in: peers.serverEvents)) else {
            Issue.record("the server's failure is not OpenSSL's")
            return
        }
        #expect(function == "SSL_do_handshake")
        #expect(message.contains("alert"))
    }

    @Test func theServerRefusesAClientWithTheWrongCertificate() throws {
        let wrong = try DTLSFingerprint(sha256: [UInt8](repeating: 0x01, count: 32))
        let peers = try DTLSPeers(serverExpects: wrong)
        peers.handshake()
        #expect(DTLSPeers.failure(in: peers.serverEvents) == .fingerprintMismatch(expected: wrong, presented: peers.clientCertificate.fingerprint))
        #expect(DTLSPeers.result(in: peers.clientEvents) == nil)
        #expect(DTLSPeers.failure(in: peers.clientEvents) != nil)
    }

    @Test func aLostFlightIsSentAgainWhenTheTimerExpires() async throws {
        let peers = try DTLSPeers(initialRetransmitTimeout: .milliseconds(50))
        // The server's first datagram (its hello) is lost once.
        peers.drops = { role, index in role == .server && index == 0 }
        peers.handshake()
        #expect(DTLSPeers.result(in: peers.clientEvents) == nil)
        let left = try #require(peers.client.timeUntilRetransmission)
        #expect(left <= .milliseconds(50))
        // Before the deadline there is nothing to resend.
        #expect(peers.client.handleTimeout().datagrams.isEmpty)
        try await Task.sleep(for: left + .milliseconds(20))
        let resent = peers.client.handleTimeout()
        #expect(!resent.datagrams.isEmpty)
        peers.deliver(resent, from: .client)
        #expect(DTLSPeers.result(in: peers.clientEvents) != nil)
        #expect(DTLSPeers.result(in: peers.serverEvents) != nil)
        #expect(DTLSPeers.result(in: peers.clientEvents)?.keyingMaterial == DTLSPeers.result(in: peers.serverEvents)?.keyingMaterial)
    }

    @Test func closeSendsCloseNotify() throws {
        let peers = try DTLSPeers()
        peers.handshake()
        let close = peers.client.close()
        #expect(close.datagrams.count == 1)
        peers.deliver(close, from: .client)
        #expect(peers.serverEvents.last == .closedByPeer)
        #expect(peers.client.receive([22, 254, 253]).datagrams.isEmpty)
    }

    @Test func nothingIsNegotiatedWithoutACommonProfile() throws {
        let clientCertificate = try DTLSCertificate(profiles: [.aeadAes128Gcm])
        let serverCertificate = try DTLSCertificate(profiles: [.aes128CmHmacSha1_80])
        let client = try DTLSTransport(role: .client, certificate: clientCertificate, expectedPeerFingerprint: serverCertificate.fingerprint)
        let server = try DTLSTransport(role: .server, certificate: serverCertificate, expectedPeerFingerprint: clientCertificate.fingerprint)
        var toServer = client.start().datagrams
        var events: [DTLSEvent] = []
        for _ in 0..<8 where !toServer.isEmpty {
            let fromServer = toServer.flatMap { datagram in
                let output = server.receive(datagram)
                events += output.events
                return output.datagrams
            }
            toServer = fromServer.flatMap { datagram in
                let output = client.receive(datagram)
                events += output.events
                return output.datagrams
            }
        }
        #expect(!events.contains { if case .connected = $0 { true } else { false } })
        #expect(events.contains { if case .failed = $0 { true } else { false } })
    }

    @Test(arguments: [255, 1501])
    func anMTUOutsideItsRangeIsRefused(mtu: Int) throws {
        let certificate = try DTLSCertificate()
        #expect(throws: DTLSError.self) {
            try DTLSTransport(role: .server, certificate: certificate, expectedPeerFingerprint: certificate.fingerprint, mtu: mtu)
        }
    }
}
