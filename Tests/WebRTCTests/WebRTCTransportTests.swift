import MediaFormats
import Testing
import WebRTC

/// A browser's side of one session, written from the pieces a peer would use: its checks (STUN with our password), its
/// DTLS client, and its own SRTP once keyed.
final class SimulatedBrowser {
    let address: TransportAddress
    let certificate: DTLSCertificate
    let dtls: DTLSTransport
    var srtp: SRTPContext?
    var sequence: UInt16 = 1_000

    init(address: TransportAddress, serverFingerprint: DTLSFingerprint) throws {
        self.address = address
        certificate = try DTLSCertificate(commonName: "browser")
        dtls = try DTLSTransport(role: .client, certificate: certificate, expectedPeerFingerprint: serverFingerprint)
    }

    /// A connectivity check as a controlling full agent sends it, keyed with the server's password.
    func check(nominate: Bool, username: String = "srvU:brwU", password: String = WebRTCTransportTests.server.pwd) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username), .priority(1_853_824_767), .iceControlling(tieBreaker: 42)]
        if nominate { attributes.append(.useCandidate) }
        return STUNMessage(type: .bindingRequest, transactionID: .random(), attributes: attributes)
            .serialized(integrityKey: Array(password.utf8), fingerprint: true)
    }

    /// Runs DTLS against `transport` until neither side has anything to send; the transport's events.
    func handshake(with transport: WebRTCTransport, now: Double) throws -> [WebRTCTransportEvent] {
        var events: [WebRTCTransportEvent] = []
        var toServer = dtls.start().datagrams
        while !toServer.isEmpty {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                let output = transport.receive(datagram, from: address, now: now)
                events += output.events
                #expect(output.datagrams.allSatisfy { $0.destination == address })
                toClient += output.datagrams.map(\.bytes)
            }
            toServer = []
            for datagram in toClient {
                let result = dtls.receive(datagram)
                toServer += result.datagrams
                for case let .connected(handshake) in result.events {
                    srtp = try SRTPContext(keyingMaterial: handshake.keyingMaterial, localRole: .client)
                }
            }
        }
        return events
    }

    func rtp(_ payload: [UInt8], marker: Bool = false) throws -> [UInt8] {
        defer { sequence &+= 1 }
        let packet = RTPPacket(marker: marker, payloadType: 102, sequenceNumber: sequence, timestamp: 90_000, ssrc: 0xC0FFEE, payload: payload[...])
        return try #require(srtp).protectRTP(packet.serialized)
    }
}

@Suite("One WebRTC session's transport: ICE-lite, DTLS, SRTP on one port")
struct WebRTCTransportTests {
    static let server = ICECredentials(ufrag: "srvU", pwd: "server-password-0123456789")
    static let browserCredentials = ICECredentials(ufrag: "brwU", pwd: "browser-password-9876543210")
    let browserAddress = TransportAddress.ipv4(127, 0, 0, 1, port: 50_123)

    /// Our side and a browser that expects our certificate.
    func pair() throws -> (WebRTCTransport, SimulatedBrowser) {
        let certificate = try DTLSCertificate(commonName: "sluice")
        let browser = try SimulatedBrowser(address: browserAddress, serverFingerprint: certificate.fingerprint)
        let transport = try WebRTCTransport(local: Self.server, remote: Self.browserCredentials, certificate: certificate,
                                            remoteFingerprint: browser.certificate.fingerprint, dtlsRole: .server)
        return (transport, browser)
    }

    @Test func checkThenDTLSThenMediaBothWays() throws {
        let (transport, browser) = try pair()
        let checked = transport.receive(browser.check(nominate: true), from: browserAddress, now: 0)
        #expect(checked.events == [.selected(browserAddress)] && checked.datagrams.count == 1 && transport.state == .connecting)
        let events = try browser.handshake(with: transport, now: 0.1)
        #expect(events == [.connected(.aeadAes128Gcm)] && transport.state == .connected)

        // The browser's RTP comes out decrypted, as it sent it.
        let media = transport.receive(try browser.rtp([0x65, 1, 2, 3], marker: true), from: browserAddress, now: 0.2)
        guard case let .rtp(packet)? = media.events.first else {
            Issue.record("no RTP out of \(media.events)")
            return
        }
        #expect(Array(packet.payload) == [0x65, 1, 2, 3] && packet.marker && packet.ssrc == 0xC0FFEE && packet.sequenceNumber == 1_000)

        // RTCP both ways: a PLI from us reaches the browser; the browser's receiver report reaches us.
        let pli = RTCPFeedback.pictureLoss(senderSSRC: 1, mediaSSRC: 0xC0FFEE).serialized()
        let sealed = try #require(try transport.protectRTCP(pli))
        #expect(sealed.destination == browserAddress)
        #expect(try #require(browser.srtp).unprotectRTCP(sealed.bytes) == pli)
        let report = RTCPCompound.receiverReport(ssrc: 0xC0FFEE, blocks: [])
        let fromBrowser = transport.receive(try #require(browser.srtp).protectRTCP(report), from: browserAddress, now: 0.3)
        #expect(fromBrowser.events == [.rtcp(report)])

        // Our RTP reaches the browser.
        let ours = RTPPacket(payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 99, payload: [0xF8, 0xFF, 0xFE][...]).serialized
        let out = try #require(try transport.protectRTP(ours))
        #expect(try #require(browser.srtp).unprotectRTP(out.bytes) == ours)
        #expect(transport.statistics == WebRTCTransport.Statistics())
    }

    @Test func nothingButChecksFromAnAddressThatNeverPassedOne() throws {
        let (transport, browser) = try pair()
        let stranger = TransportAddress.ipv4(127, 0, 0, 1, port: 60_000)
        _ = transport.receive(browser.check(nominate: true), from: browserAddress, now: 0)
        _ = try browser.handshake(with: transport, now: 0)
        // The same bytes from another address: DTLS and SRTP are refused, not answered.
        let hello = transport.receive([22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 20), from: stranger, now: 1)
        let media = transport.receive(try browser.rtp([1, 2, 3]), from: stranger, now: 1)
        #expect(hello.datagrams.isEmpty && hello.events.isEmpty && media.events.isEmpty)
        #expect(transport.statistics.unauthenticated == 2)
        // A check with the wrong password gets a 401 and authenticates nothing.
        let refused = transport.receive(browser.check(nominate: true, password: "not-the-password-000000"), from: stranger, now: 1)
        #expect(refused.datagrams.count == 1 && refused.events.isEmpty && transport.statistics.refusedChecks == 1)
        #expect(transport.selectedAddress == browserAddress)
    }

    @Test func mediaBeforeKeysAndDamagedMediaAreCountedNotDelivered() throws {
        let (transport, browser) = try pair()
        _ = transport.receive(browser.check(nominate: true), from: browserAddress, now: 0)
        let early = RTPPacket(payloadType: 102, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: [1][...]).serialized
        #expect(transport.receive(early, from: browserAddress, now: 0).events.isEmpty && transport.statistics.beforeKeys == 1)
        _ = try browser.handshake(with: transport, now: 0)
        var sealed = try browser.rtp([9, 9, 9])
        sealed[sealed.count - 1] ^= 1
        #expect(transport.receive(sealed, from: browserAddress, now: 0).events.isEmpty)
        #expect(transport.statistics.undecryptable == 1 && transport.statistics.lastUndecryptable?.contains("auth_fail") == true,
                "\(transport.statistics)")
    }

    @Test func consentLostAfterThirtySecondsOfSilence() throws {
        let (transport, browser) = try pair()
        _ = transport.receive(browser.check(nominate: true), from: browserAddress, now: 100)
        _ = try browser.handshake(with: transport, now: 100)
        #expect(transport.poll(now: 129).events.isEmpty)
        // A consent check at 129 moves the deadline.
        _ = transport.receive(browser.check(nominate: false), from: browserAddress, now: 129)
        #expect(transport.poll(now: 158).events.isEmpty)
        let lost = transport.poll(now: 159)
        #expect(lost.events.count == 1 && transport.state == .closed)
        if case let .failed(reason)? = lost.events.first { #expect(reason.contains("no ICE consent check for 30 s")) }
        #expect(try transport.protectRTP([0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]) == nil)
    }

    @Test func closeSendsCloseNotifyThePeerReads() throws {
        let (transport, browser) = try pair()
        _ = transport.receive(browser.check(nominate: true), from: browserAddress, now: 0)
        _ = try browser.handshake(with: transport, now: 0)
        let closing = transport.close()
        #expect(closing.datagrams.count == 1 && transport.state == .closed)
        #expect(browser.dtls.receive(closing.datagrams[0].bytes).events == [.closedByPeer])
        #expect(transport.close().datagrams.isEmpty)
    }
}
