@testable import MediaFormats
import Testing
import WebRTC

@Suite("A WHIP session's media: RTP to FLV tags, and the feedback owed")
struct WebRTCIngestMediaTests {
    /// An aiortc-shaped offer: H.264 (with nack, nack pli) and Opus, BUNDLEd.
    static let offer = """
        v=0
        o=- 1 1 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        m=video 9 UDP/TLS/RTP/SAVPF 102
        c=IN IP4 0.0.0.0
        a=sendonly
        a=mid:0
        a=rtcp-mux
        a=ssrc:1111 cname:pub
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=ice-ufrag:pubU
        a=ice-pwd:publisher-password-012345
        a=fingerprint:sha-256 D7:CF:3A:5A:CE:96:D7:88:E7:85:CC:95:E4:53:E6:ED:97:E0:CC:8B:96:AD:B1:F5:F8:70:D6:CB:D7:C2:8F:A5
        a=setup:actpass
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=sendonly
        a=mid:1
        a=rtcp-mux
        a=ssrc:2222 cname:pub
        a=rtpmap:111 opus/48000/2
        a=fmtp:111 minptime=10;useinbandfec=1
        a=ice-ufrag:pubU
        a=ice-pwd:publisher-password-012345
        a=fingerprint:sha-256 D7:CF:3A:5A:CE:96:D7:88:E7:85:CC:95:E4:53:E6:ED:97:E0:CC:8B:96:AD:B1:F5:F8:70:D6:CB:D7:C2:8F:A5
        a=setup:actpass

        """

    static func tracks(_ text: String = offer) throws -> [WebRTCNegotiatedTrack] {
        let local = WebRTCLocalEndpoint(iceUfrag: "srvU", icePassword: "server-password-0123456789",
                                        fingerprint: DTLSFingerprint(hashFunction: "sha-256", digest: Array(repeating: 7, count: 32)),
                                        addresses: ["127.0.0.1"], port: 8189, sessionID: 1)
        return try WebRTCNegotiation(role: .ingest, local: local).answer(SessionDescription(parsing: text)).tracks
    }

    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0xDA, 0x01, 0x40, 0x16, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00, 0x0F, 0x23, 0xC6, 0x0C, 0xA8]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// Three access units (a keyframe, then two slices of 3,000 bytes: three FU-As each) as the publisher packetizes them.
    static func videoPackets() -> [[UInt8]] {
        var packetizer = H264Packetizer(payloadType: 102, ssrc: 1111, sequenceNumber: 65_530, maxPayloadSize: 1_172)
        let idr: [UInt8] = [0x65] + [UInt8](repeating: 0x11, count: 2_000)
        let slices = (1...2).map { [0x41] + [UInt8](repeating: UInt8($0), count: 3_000) }
        var packets = packetizer.packetize([sps, pps, idr], timestamp: 0).map(\.serialized)
        for (index, slice) in slices.enumerated() { packets += packetizer.packetize([slice], timestamp: UInt32(3_000 * (index + 1))).map(\.serialized) }
        return packets
    }

    @Test func tracksAreTakenFromTheAnswer() throws {
        let tracks = try Self.tracks()
        #expect(tracks.map(\.codec) == [.h264, .opus] && tracks[0].nack && tracks[0].pictureLossIndication)
    }

    @Test func videoAndAudioBecomeTags() throws {
        var media = try WebRTCIngestMedia(tracks: try Self.tracks(), localSSRC: 42)
        var tags: [FLVStreamTag] = []
        for packet in Self.videoPackets() { tags += media.receive(packet, now: 0).tags }
        let opus = RTPPacket(payloadType: 111, sequenceNumber: 9, timestamp: 960, ssrc: 2222, payload: [0xFC, 0xFF, 0xFE][...]).serialized
        tags += media.receive(opus, now: 20).tags
        let video = tags.filter { $0.type == .video }
        // The sequence header, then the keyframe and the first slice (the second waits for the next timestamp or marker).
        #expect(video.count >= 3, "\(tags.map(\.type))")
        #expect(tags.contains { $0.type == .audio })
        #expect(media.statistics.lostPackets == 0 && media.statistics.droppedAccessUnits == 0)
    }

    @Test func aLostPacketIsAskedForAndItsRetransmissionFillsTheGap() throws {
        var media = try WebRTCIngestMedia(tracks: try Self.tracks(), localSSRC: 42)
        let packets = Self.videoPackets()
        let missing = packets.count - 2  // an FU-A in the middle of the last slice
        var rtcp: [[UInt8]] = []
        var tags: [FLVStreamTag] = []
        for (index, packet) in packets.enumerated() where index != missing {
            let out = media.receive(packet, now: Int64(index))
            rtcp += out.rtcp
            tags += out.tags
        }
        let lostNumber = UInt16(packets[missing][2]) << 8 | UInt16(packets[missing][3])
        let nacks = rtcp.flatMap { RTCPFeedback.messages(in: $0) }
        #expect(nacks == [.nack(senderSSRC: 42, mediaSSRC: 1111, items: [RTCPNackItem(packetID: lostNumber, bitmask: 0)])])
        // The housekeeping ticks meanwhile, then the retransmission (same sequence number) 100 ms later, inside the hold:
        // the gap closes, nothing is damaged.
        for now in [25, 50, 75] as [Int64] { tags += media.tick(now: now).tags }
        tags += media.receive(packets[missing], now: 100).tags
        tags += media.tick(now: 1_000).tags
        #expect(media.recovery.recovered == 1)
        #expect(media.statistics.lostPackets == 0 && media.statistics.droppedAccessUnits == 0, "\(media.statistics)")
    }

    @Test func aGapNeverFilledIsGivenUpAfterTheHoldAndAKeyframeIsAskedFor() throws {
        var media = try WebRTCIngestMedia(tracks: try Self.tracks(), localSSRC: 42)
        let packets = Self.videoPackets()
        let missing = packets.count - 2
        for (index, packet) in packets.enumerated() where index != missing { _ = media.receive(packet, now: 0) }
        // Another slice after the gap, so the damaged one can be closed.
        var later = H264Packetizer(payloadType: 102, ssrc: 1111, sequenceNumber: UInt16(packets[packets.count - 1][2]) << 8 | UInt16(packets[packets.count - 1][3]) &+ 1)
        for packet in later.packetize([[0x41, 9, 9, 9]], timestamp: 9_000) { _ = media.receive(packet.serialized, now: 10) }
        #expect(media.tick(now: 100).rtcp.flatMap { RTCPFeedback.messages(in: $0) }.allSatisfy {
            if case .pictureLoss = $0 { return false } else { return true }
        })
        let given = media.tick(now: 10 + WebRTCIngestMedia.holdMilliseconds)
        #expect(media.statistics.lostPackets >= 1 || media.statistics.droppedAccessUnits >= 1, "\(media.statistics)")
        #expect(given.rtcp.flatMap { RTCPFeedback.messages(in: $0) }.contains(.pictureLoss(senderSSRC: 42, mediaSSRC: 1111)))
    }

    @Test func receiverReportsEachSecondAndKeyframeRequestsRateLimited() throws {
        var media = try WebRTCIngestMedia(tracks: try Self.tracks(), localSSRC: 42)
        for packet in Self.videoPackets() { _ = media.receive(packet, now: 0) }
        let first = media.tick(now: 0).rtcp
        #expect(first.contains { RTCPCompound.packetTypes($0) == [RTCPCompound.receiverReport] })
        #expect(media.tick(now: 500).rtcp.isEmpty)
        media.requestKeyframe()
        #expect(media.tick(now: 600).rtcp.flatMap { RTCPFeedback.messages(in: $0) } == [.pictureLoss(senderSSRC: 42, mediaSSRC: 1111)])
        media.requestKeyframe()
        #expect(media.tick(now: 700).rtcp.isEmpty, "a second keyframe request 100 ms after the first")
        #expect(media.tick(now: 1_100).rtcp.flatMap { RTCPFeedback.messages(in: $0) }.contains(.pictureLoss(senderSSRC: 42, mediaSSRC: 1111)))
    }

    @Test func aPayloadTypeNoTrackHasIsCountedAndAG722VideoTrackIsRefused() throws {
        var media = try WebRTCIngestMedia(tracks: try Self.tracks(), localSSRC: 42)
        let stray = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 5, payload: [1][...]).serialized
        #expect(media.receive(stray, now: 0).tags.isEmpty && media.unknownPayloadType == 1)
        var other = try Self.tracks()[0]
        other.codec = .g722
        #expect { try WebRTCIngestMedia(tracks: [other], localSSRC: 1) } throws: { "\($0)".contains("G.722") }
    }
}
