import Testing
@testable import MediaFormats

@Suite("SDP WebRTC offers, writer and negotiation")
struct WebRTCNegotiationTests {
    static let fingerprint = DTLSFingerprint(hashFunction: "sha-256", digest: (0..<32).map { UInt8($0) })
    static let local = WebRTCLocalEndpoint(iceUfrag: "sluiceUfrag", icePassword: "sluicePasswordOf22Chars", fingerprint: fingerprint,
                                           addresses: ["192.0.2.10", "2001:db8::10"], port: 50000, sessionID: 1234567890123)
    static let ingest = WebRTCNegotiation(role: .ingest, local: local)
    static func egress(video: String?, audio: Bool = true) throws -> WebRTCNegotiation {
        let videoTrack = try video.map { WebRTCEgress.Video(profileLevelID: try H264ProfileLevelID(parsing: $0),
                                                            track: WebRTCOutgoingTrack(ssrc: 1111, rtxSSRC: 1112, trackID: "video-track")) }
        let egress = WebRTCEgress(cname: "sluice", streamID: "stream", video: videoTrack,
                                  audio: audio ? WebRTCOutgoingTrack(ssrc: 2222, trackID: "audio-track") : nil)
        return WebRTCNegotiation(role: .egress(egress), local: local)
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\r\n").map(String.init) }

    @Test(arguments: WebRTCOfferFixtures.all.map(\.name) + ["camera"])
    func parsePrintParseIsEqual(name: String) throws {
        let text = WebRTCOfferFixtures.all.first { $0.name == name }?.text ?? SessionDescriptionTests.camera
        let parsed = try SessionDescription(parsing: text)
        let printed = parsed.render()
        #expect(printed.hasSuffix("\r\n") && !printed.replacingCRLF.contains("\r") && !printed.replacingCRLF.contains("\n"))
        #expect(try SessionDescription(parsing: printed) == parsed)
        #expect(Array(Self.lines(printed).prefix(3)).map { String($0.prefix(2)) } == (parsed.origin == nil ? ["v=", "s=", "t="] : ["v=", "o=", "s="]))
    }

    @Test func readsAiortcOffer() throws {
        let offer = try SessionDescription(parsing: WebRTCOfferFixtures.aiortc)
        #expect(offer.bundleGroup == SDPGroup(semantics: "BUNDLE", identificationTags: ["0", "1"]))
        let video = offer.media[0]
        #expect(video.transportProtocol == "UDP/TLS/RTP/SAVPF" && video.payloadTypes == [99, 100, 101, 102])
        #expect(video.mid == "0" && video.direction == .sendonly && video.rtcpMux && !video.rtcpReducedSize)
        #expect(video.transport.fingerprints.map(\.hashFunction) == ["sha-256", "sha-384", "sha-512"])
        #expect(video.transport.fingerprints[0].digest.count == 32 && video.transport.setup == .actpass)
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [490161804, 1502442050])])
        #expect(video.rtcpFeedback.filter { $0.payloadType == 99 }.map(\.type) == ["nack", "nack", "goog-remb"])
        #expect(video.headerExtensions.first == RTPHeaderExtensionMap(identifier: 1, uri: RTPHeaderExtensionMap.midURI))
        #expect(video.candidates.count == 2 && video.endOfCandidates)
        let candidate = try ICECandidate(parsing: video.candidates[1])
        #expect(candidate.address == "fd00::2" && candidate.type == "host" && candidate.priority == 2130706431)
        #expect(offer.media[1].rtpMaps[96] == MediaDescription.RTPMap(encodingName: "opus", clockRate: 48000, channels: 2))
    }

    @Test func whipAnswerToAiortc() throws {
        let answer = try Self.ingest.answer(try SessionDescription(parsing: WebRTCOfferFixtures.aiortc))
        #expect(answer.tracks.map(\.payloadType) == [99, 96])
        #expect(answer.tracks.map(\.codec) == [.h264, .opus] && answer.rejected.isEmpty)
        let video = answer.tracks[0]
        #expect(video.direction == .recvonly && video.nack && video.pictureLossIndication && !video.fullIntraRequest)
        #expect(video.remoteSSRCs == [490161804] && video.remoteRTXSSRC == 1502442050 && video.rtxPayloadType == nil)
        #expect(video.midExtensionID == 1 && video.formatParameters["profile-level-id"] == "42001f")
        #expect(answer.tracks[1].remoteSSRCs == [1217723646] && answer.tracks[1].channels == 2)
        #expect(answer.remote.iceUfrag == "TmtK" && answer.remote.icePassword == "jh2rEND6rWikSUefkqipi5")
        #expect(answer.remote.fingerprint.hashFunction == "sha-256" && answer.remote.setup == .actpass)
        let lines = Self.lines(answer.description.render())
        for expected in ["v=0", "o=- 1234567890123 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=ice-lite", "a=group:BUNDLE 0 1",
                         "m=video 50000 UDP/TLS/RTP/SAVPF 99", "c=IN IP4 192.0.2.10", "a=mid:0", "a=recvonly", "a=ice-ufrag:sluiceUfrag",
                         "a=ice-pwd:sluicePasswordOf22Chars", "a=setup:passive", "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
                         "a=rtcp-mux", "a=rtpmap:99 H264/90000", "a=rtcp-fb:99 nack", "a=rtcp-fb:99 nack pli",
                         "a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f",
                         "a=candidate:1 1 udp 2130706431 192.0.2.10 50000 typ host",
                         "a=candidate:2 1 udp 2130706175 2001:db8::10 50000 typ host", "a=end-of-candidates",
                         "m=audio 50000 UDP/TLS/RTP/SAVPF 96", "a=rtpmap:96 opus/48000/2"] {
            #expect(lines.contains(expected), "answer lacks \(expected)")
        }
        #expect(Array(lines.prefix(4)) == ["v=0", "o=- 1234567890123 1 IN IP4 127.0.0.1", "s=-", "t=0 0"])
        #expect(lines.contains { $0.hasPrefix("a=fingerprint:sha-256 00:01:02:03:") })
        #expect(!lines.contains { $0.contains("goog-remb") || $0.contains("rtx") || $0.contains("abs-send-time") })
        // Candidates only in the BUNDLE-tag section (RFC 8843 §7.3.1).
        #expect(lines.filter { $0.hasPrefix("a=candidate:") }.count == 2)
        #expect(try SessionDescription(parsing: answer.description.render()) == answer.description)
    }

    @Test func whipAnswerToWebrtcbinTakesBundleOnlyAudio() throws {
        let answer = try Self.ingest.answer(try SessionDescription(parsing: WebRTCOfferFixtures.webrtcbin))
        #expect(answer.tracks.map(\.mid) == ["video0", "audio1"] && answer.tracks.map(\.payloadType) == [102, 111])
        let video = answer.tracks[0]
        #expect(!video.nack && video.pictureLossIndication && video.fullIntraRequest && !video.transportWideCongestionControl)
        #expect(answer.remote.iceOptions == ["trickle"] && answer.remote.iceUfrag.count == 32)
        let lines = Self.lines(answer.description.render())
        #expect(lines.contains("a=group:BUNDLE video0 audio1") && lines.contains("a=rtcp-rsize"))
        #expect(lines.contains("a=rtcp-fb:102 ccm fir") && !lines.contains("a=rtcp-fb:102 transport-cc"))
        #expect(lines.contains("m=audio 50000 UDP/TLS/RTP/SAVPF 111") && lines.contains("a=rtpmap:111 OPUS/48000/2"))
        #expect(try SessionDescription(parsing: answer.description.render()) == answer.description)
    }

    @Test func whipAnswerToChromeTakesFirstModeOneH264() throws {
        let offer = try SessionDescription(parsing: WebRTCOfferFixtures.chrome)
        let answer = try Self.ingest.answer(offer)
        #expect(answer.tracks.map(\.payloadType) == [102, 111])
        #expect(answer.tracks[0].midExtensionID == 9 && answer.tracks[0].fullIntraRequest && answer.tracks[0].remoteSSRCs == [2873547581])
        #expect(answer.tracks[1].formatParameters == ["minptime": "10", "useinbandfec": "1"] && !answer.tracks[1].nack)
        let lines = Self.lines(answer.description.render())
        #expect(lines.contains("m=video 50000 UDP/TLS/RTP/SAVPF 102") && !lines.contains { $0.hasPrefix("a=rtcp-fb:102 transport-cc") })
        #expect(try SessionDescription(parsing: answer.description.render()) == answer.description)
    }

    @Test func rtxAndTransportCCWhenTaken() throws {
        var negotiation = Self.ingest
        negotiation.takesRetransmissionPayloadType = true
        negotiation.takesTransportWideCongestionControl = true
        let answer = try negotiation.answer(try SessionDescription(parsing: WebRTCOfferFixtures.chrome))
        let video = answer.tracks[0]
        #expect(video.rtxPayloadType == 103 && video.remoteRTXSSRC == 1311640419 && video.transportWideCongestionControl)
        #expect(video.transportWideSequenceExtensionID == 4)
        let lines = Self.lines(answer.description.render())
        #expect(lines.contains("m=video 50000 UDP/TLS/RTP/SAVPF 102 103") && lines.contains("a=fmtp:103 apt=102"))
        #expect(lines.contains("a=rtcp-fb:102 transport-cc") && lines.contains("a=extmap:4 \(RTPHeaderExtensionMap.transportWideSequenceNumberURI)"))
    }

    @Test(arguments: [
        ("640028", UInt8(112)),  // High 4.0: only 640032 decodes it.
        ("42e01f", 106),  // Constrained Baseline 3.1: the exact profile before 42001f's Baseline.
        ("4d0028", 127),  // Main 4.0: 4d001f is 3.1, taken under level-asymmetry-allowed=1.
        ("42001f", 102),
    ])
    func whepPicksAPayloadTypeThatDecodesOurStream(profileLevelID: String, payloadType: UInt8) throws {
        let answer = try Self.egress(video: profileLevelID).answer(try SessionDescription(parsing: WebRTCOfferFixtures.chrome.viewer))
        #expect(answer.tracks.first?.payloadType == payloadType)
        #expect(answer.tracks.first?.localSSRC == 1111 && answer.tracks.first?.localRTXSSRC == nil)
    }

    @Test func whepAnswerSendsWithMsidAndCname() throws {
        let answer = try Self.egress(video: "42e01f", audio: false).answer(try SessionDescription(parsing: WebRTCOfferFixtures.chrome.viewer))
        #expect(answer.tracks.map(\.direction) == [.sendonly])
        #expect(answer.rejected.map(\.reason) == ["this stream has no audio"])
        let lines = Self.lines(answer.description.render())
        for expected in ["a=sendonly", "a=msid:stream video-track", "a=ssrc:1111 cname:sluice", "a=group:BUNDLE 0", "m=audio 0 UDP/TLS/RTP/SAVPF 111 63 9 0 8"] {
            #expect(lines.contains(expected), "answer lacks \(expected)")
        }
        #expect(try SessionDescription(parsing: answer.description.render()) == answer.description)
    }

    @Test func whepWithoutADecodableProfileNamesIt() throws {
        let offer = try SessionDescription(parsing: WebRTCOfferFixtures.aiortc.viewer)
        #expect(throws: MediaFormatError.unsupported(structure: "WebRTC offer", reason: "nothing acceptable: m= line 1 (video mid 0): "
            + "the offer's video is H.264; no H.264 payload type with packetization-mode=1 decodes profile-level-id 640028; this job takes H.264; "
            + "m= line 2 (audio mid 1): this stream has no audio")) {
            try Self.egress(video: "640028", audio: false).answer(offer)
        }
    }

    @Test func vp8OnlyOfferIsTakenByWHIPAndRefusedByWHEP() throws {
        let text = WebRTCOfferFixtures.chrome.replacingLines { line in
            line.hasPrefix("m=video") ? "m=video 9 UDP/TLS/RTP/SAVPF 96 97" : line
        }
        let answer = try Self.ingest.answer(try SessionDescription(parsing: text))
        #expect(answer.tracks.map(\.codec) == [.vp8, .opus] && answer.tracks[0].payloadType == 96 && answer.tracks[0].nack)
        #expect(Self.lines(answer.description.render()).contains("a=rtpmap:96 VP8/90000"))
        let egress = try Self.egress(video: "42e01f").answer(try SessionDescription(parsing: text.replacing("a=sendonly", with: "a=recvonly")))
        #expect(egress.tracks.map(\.kind) == [.audio])
        #expect(egress.rejected == [WebRTCRejectedMedia(index: 0, media: "video", mid: "0", reason: "the offer's video is VP8; this job takes H.264")])
        #expect(Self.lines(egress.description.render()).contains("m=video 0 UDP/TLS/RTP/SAVPF 96 97"))
    }

    @Test func mpeg4VideoIsRefusedByName() throws {
        let text = WebRTCOfferFixtures.chrome.replacingLines { line in
            if line.hasPrefix("m=video") { return "m=video 9 UDP/TLS/RTP/SAVPF 96" }
            return line == "a=rtpmap:96 VP8/90000" ? "a=rtpmap:96 MP4V-ES/90000" : line
        }
        let answer = try Self.ingest.answer(try SessionDescription(parsing: text))
        #expect(answer.rejected.map(\.reason) == ["the offer's video is MP4V-ES; this job takes H.264, H.265, AV1, VP9 or VP8"])
    }

    /// Chrome's offer with an H.265 payload type 49 put first (`fmtp` its parameters), and the video's types `types`.
    static func hevcOffer(types: String, fmtp: String = "level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST") throws -> SessionDescription {
        try SessionDescription(parsing: hevcOfferText(types: types, fmtp: fmtp))
    }

    static func hevcOfferText(types: String, fmtp: String = "level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST") -> String {
        WebRTCOfferFixtures.chrome.replacingLines { line in
            if line.hasPrefix("m=video") { return "m=video 9 UDP/TLS/RTP/SAVPF \(types)" }
            if line == "a=rtpmap:96 VP8/90000" {
                return ["a=rtpmap:49 H265/90000", "a=rtcp-fb:49 nack", "a=rtcp-fb:49 nack pli", "a=fmtp:49 \(fmtp)", line].joined(separator: "\r\n")
            }
            return line
        }
    }

    @Test func whipTakesH265WhenNoH264IsOffered() throws {
        let answer = try Self.ingest.answer(try Self.hevcOffer(types: "49 96 97"))
        #expect(answer.tracks.map(\.codec) == [.h265, .opus] && answer.tracks[0].payloadType == 49)
        #expect(answer.tracks[0].nack && answer.tracks[0].pictureLossIndication && answer.tracks[0].formatParameters["profile-id"] == "1")
        #expect(Self.lines(answer.description.render()).contains("a=rtpmap:49 H265/90000"))
    }

    @Test func whipPrefersH264ToAnEarlierH265() throws {
        let answer = try Self.ingest.answer(try Self.hevcOffer(types: "49 96 97 102 103"))
        #expect(answer.tracks.map(\.codec) == [.h264, .opus] && answer.tracks[0].payloadType == 102)
    }

    @Test(arguments: ["tx-mode=MRST", "sprop-max-don-diff=2"])
    func h265WithSeveralStreamsOrDONLIsRefused(fmtp: String) throws {
        let answer = try Self.ingest.answer(try Self.hevcOffer(types: "49", fmtp: fmtp))
        #expect(answer.tracks.map(\.kind) == [.audio])
        #expect(answer.rejected.map(\.reason) == ["the offer's video is H.265; this job takes H.264, H.265, AV1, VP9 or VP8"])
    }

    /// Chrome's offer with an AV1 payload type 45 first (as `setCodecPreferences` leaves it), then the types `types`.
    static func av1Offer(types: String) throws -> SessionDescription {
        try SessionDescription(parsing: WebRTCOfferFixtures.chrome.replacingLines { line in
            if line.hasPrefix("m=video") { return "m=video 9 UDP/TLS/RTP/SAVPF \(types)" }
            if line == "a=rtpmap:96 VP8/90000" {
                return ["a=rtpmap:45 AV1/90000", "a=rtcp-fb:45 nack", "a=rtcp-fb:45 nack pli", "a=fmtp:45 level-idx=5;profile=0;tier=0", line]
                    .joined(separator: "\r\n")
            }
            return line
        })
    }

    @Test func whipTakesAV1WhenNeitherH264NorH265IsOffered() throws {
        let answer = try Self.ingest.answer(try Self.av1Offer(types: "45 96 97"))
        #expect(answer.tracks.map(\.codec) == [.av1, .opus] && answer.tracks[0].payloadType == 45)
        #expect(answer.tracks[0].nack && answer.tracks[0].pictureLossIndication)
        #expect(Self.lines(answer.description.render()).contains("a=rtpmap:45 AV1/90000"))
        // H.264 still wins, whatever the offer puts first.
        #expect(try Self.ingest.answer(try Self.av1Offer(types: "45 96 97 102 103")).tracks.first?.codec == .h264)
        // WHEP sends H.264 only.
        let egress = try Self.egress(video: "42e01f").answer(
            try SessionDescription(parsing: try Self.av1Offer(types: "45").render().replacing("a=sendonly", with: "a=recvonly")))
        #expect(egress.rejected.map(\.reason) == ["the offer's video is AV1; this job takes H.264"])
    }

    @Test func whepNeverSendsH265() throws {
        let answer = try Self.egress(video: "42e01f").answer(try SessionDescription(parsing: Self.hevcOfferText(types: "49").replacing("a=sendonly", with: "a=recvonly")))
        #expect(answer.tracks.map(\.kind) == [.audio] && answer.rejected.map(\.reason) == ["the offer's video is H.265; this job takes H.264"])
    }

    @Test func secondVideoAndDataChannelAreRejected() throws {
        let extra = "m=video 9 UDP/TLS/RTP/SAVPF 102\r\na=mid:2\r\na=sendonly\r\na=rtcp-mux\r\na=rtpmap:102 H264/90000\r\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:3\r\na=sctp-port:5000\r\n"
        let text = WebRTCOfferFixtures.chrome.replacingLines { $0 == "a=group:BUNDLE 0 1" ? "a=group:BUNDLE 0 1 2 3" : $0 } + "\r\n" + extra
        let offer = try SessionDescription(parsing: text)
        #expect(offer.media[3].payloadTypes.isEmpty && offer.media[3].formats == ["webrtc-datachannel"] && !offer.media[3].carriesRTP)
        let answer = try Self.ingest.answer(offer)
        #expect(answer.tracks.map(\.mid) == ["0", "1"] && answer.rejected.map(\.mid) == ["2", "3"])
        #expect(answer.rejected[0].reason == "a second video m= line; this worker takes the first")
        let lines = Self.lines(answer.description.render())
        #expect(lines.contains("m=video 0 UDP/TLS/RTP/SAVPF 102") && lines.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"))
        #expect(lines.contains("a=group:BUNDLE 0 1"))
        #expect(try SessionDescription(parsing: answer.description.render()) == answer.description)
    }

    @Test(arguments: [
        ("a=ice-ufrag:", MediaFormatError.invalid(structure: "WebRTC offer", reason: "no a=ice-ufrag and a=ice-pwd at session level or in mid 0")),
        ("a=fingerprint:", .invalid(structure: "WebRTC offer", reason: "no a=fingerprint at session level or in mid 0")),
        ("a=setup:", .unsupported(structure: "WebRTC offer", reason: "a=setup:passive asks this worker to be the DTLS client; it only answers a=setup:passive itself (offer actpass or active)")),
        ("a=group:", .invalid(structure: "WebRTC offer", reason: "no a=group:BUNDLE over mids 0, 1; this worker carries every track on one transport")),
    ])
    func malformedOffersAreRefusedByName(prefix: String, error: MediaFormatError) throws {
        let text = WebRTCOfferFixtures.chrome.replacingLines { line in
            guard line.hasPrefix(prefix) else { return line }
            return prefix == "a=setup:" ? "a=setup:passive" : nil
        }
        #expect(throws: error) { try Self.ingest.answer(try SessionDescription(parsing: text)) }
    }

    @Test func sha1OnlyFingerprintIsRefused() throws {
        let text = WebRTCOfferFixtures.chrome.replacingLines { line in
            line.hasPrefix("a=fingerprint:") ? "a=fingerprint:SHA-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB" : line
        }
        #expect(throws: MediaFormatError.unsupported(structure: "WebRTC offer", reason: "a=fingerprint uses sha-1; this worker accepts sha-256")) {
            try Self.ingest.answer(try SessionDescription(parsing: text))
        }
    }

    @Test func sessionLevelTransportIsOverriddenByMedia() throws {
        let text = "v=0\r\ns=-\r\na=ice-ufrag:session\r\na=ice-pwd:sessionpwd\r\na=fingerprint:sha-256 "
            + (0..<32).map { _ in "AB" }.joined(separator: ":") + "\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:v\r\na=ice-ufrag:media\r\n"
            + "a=sendonly\r\na=rtcp-mux\r\na=rtpmap:96 H264/90000\r\n"
        let offer = try SessionDescription(parsing: text)
        #expect(offer.transport(of: offer.media[0]).iceUfrag == "media" && offer.transport(of: offer.media[0]).icePassword == "sessionpwd")
        let answer = try Self.ingest.answer(offer)
        #expect(answer.remote.iceUfrag == "media" && answer.remote.setup == nil && answer.tracks[0].formatParameters.isEmpty)
        #expect(answer.description.groups.isEmpty)
    }

    @Test(arguments: [
        ("42e01f", H264ProfileLevelID.Profile.constrainedBaseline, 310),
        ("42001f", .baseline, 310), ("4d001f", .main, 310), ("4d401f", .main, 310), ("4d801f", .constrainedBaseline, 310),
        ("640032", .high, 500), ("640c1f", .constrainedHigh, 310), ("f4001f", .high444, 310), ("42f00b", .constrainedBaseline, 105),
    ])
    func readsProfileLevelID(text: String, profile: H264ProfileLevelID.Profile, levelOrder: Int) throws {
        let value = try H264ProfileLevelID(parsing: text)
        #expect(value.profile == profile && value.levelOrder == levelOrder && value.text == text)
    }

    @Test(arguments: ["42e0", "42e01g", "+42e01", "42e01f0"])
    func refusesMalformedProfileLevelID(text: String) {
        #expect(throws: MediaFormatError.invalid(structure: "H.264 profile-level-id", reason: "\"\(text)\" is not six hex digits")) {
            try H264ProfileLevelID(parsing: text)
        }
    }

    @Test(arguments: [
        ("a=fingerprint:sha-256 AB:CD:G1", "line 2 \"a=fingerprint:sha-256 AB:CD:G1\": \"G1\" is not two hex digits"),
        ("a=setup:server", "line 2 \"a=setup:server\": setup server is not active, passive, actpass or holdconn"),
        ("a=extmap:0 urn:x", "line 2 \"a=extmap:0 urn:x\": extension id 0 is not 1...255"),
        ("a=group:", "line 2 \"a=group:\": no group semantics"),
        ("o=- x 1 IN IP4 0.0.0.0", "line 2 \"o=- x 1 IN IP4 0.0.0.0\": session id x or version 1 is not a 64-bit number"),
    ])
    func malformedWebRTCLinesThrowNamingTheLine(line: String, reason: String) {
        #expect(throws: MediaFormatError.invalid(structure: "SDP", reason: reason)) { try SessionDescription(parsing: "v=0\n\(line)\n") }
    }

    @Test func hostCandidatePriorityFollowsRFC8445() {
        #expect(ICECandidate.host(address: "192.0.2.10", port: 50000, rank: 0).value == "1 1 udp 2130706431 192.0.2.10 50000 typ host")
        #expect(throws: MediaFormatError.self) { try ICECandidate(parsing: "1 1 udp 2130706431 192.0.2.10 50000 host") }
    }
}

extension String {
    /// The text with one line replaced (or dropped for nil), CRLF line ends.
    func replacingLines(_ transform: (String) -> String?) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).compactMap { transform(String($0)) }.joined(separator: "\r\n")
    }

    /// A publisher's offer turned into a viewer's: every sendonly becomes recvonly.
    var viewer: String { replacingLines { $0 == "a=sendonly" ? "a=recvonly" : $0 } }

    /// Without CRLF pairs, to find a stray CR or LF.
    var replacingCRLF: String { split(separator: "\r\n", omittingEmptySubsequences: false).joined() }
}
