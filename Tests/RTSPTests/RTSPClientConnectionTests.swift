import Testing
import MediaFormats
@testable import RTSP

@Suite("RTSP client connection")
struct RTSPClientConnectionTests {
    static let sdp = """
        v=0\r
        o=- 1 1 IN IP4 10.0.0.2\r
        s=Camera\r
        t=0 0\r
        a=control:*\r
        m=video 0 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0IAKeKQFAe2AtwEBAaQeJEV,aM48gA==\r
        a=control:trackID=1\r
        m=audio 0 RTP/AVP 97\r
        a=rtpmap:97 MPEG4-GENERIC/44100/2\r
        a=fmtp:97 mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1210\r
        a=control:trackID=2\r
        m=application 0 RTP/AVP 107\r
        a=rtpmap:107 vnd.onvif.metadata/90000\r

        """

    static func response(_ cseq: Int, _ status: String = "200 OK", _ headers: [String] = [], body: String = "") -> [UInt8] {
        var text = "RTSP/1.0 \(status)\r\nCSeq: \(cseq)\r\n"
        for header in headers { text += header + "\r\n" }
        if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((text + "\r\n" + body).utf8)
    }

    static let videoRTP: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0x65]
    static let audioRTP: [UInt8] = [0x80, 0x61, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 2, 0x21]
    static func frame(_ channel: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        InterleavedFrame(channel: channel, payload: payload).write(into: &bytes)
        return bytes
    }

    /// A camera that asks for Digest on DESCRIBE (no qop, as most do), sets up two tracks over TCP (the session's
    /// timeout only in the first answer), starts sending RTP before it answers PLAY, and sends a frame on a channel no
    /// track has.
    static let server: [UInt8] = response(1, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, TEARDOWN, PLAY, GET_PARAMETER"])
        + response(2, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"IP Camera\"",
                                           "WWW-Authenticate: Digest realm=\"IP Camera\", nonce=\"abc123\", algorithm=\"MD5\""])
        + response(3, "200 OK", ["Content-Base: rtsp://cam.local/stream/", "Content-Type: application/sdp"], body: sdp)
        + response(4, "200 OK", ["Session: 5A3F;timeout=30", "Transport: RTP/AVP/TCP;unicast;interleaved=0-1;ssrc=0000ABCD"])
        + response(5, "200 OK", ["Session: 5A3F", "Transport: RTP/AVP/TCP;unicast;interleaved=2-3"])
        + frame(0, videoRTP)
        + response(6, "200 OK", ["Session: 5A3F", "RTP-Info: url=rtsp://cam.local/stream/trackID=1;seq=1"])
        + frame(2, audioRTP) + frame(1, [0x81, 0xC8, 0x00, 0x00]) + frame(9, [1, 2, 3])

    static func request(_ line: String, _ headers: [String]) -> RTSPClientConnection.Action {
        .send(Array((([line] + headers).joined(separator: "\r\n") + "\r\n\r\n").utf8))
    }

    static func digest(_ uri: String, _ response: String) -> String {
        "Authorization: Digest username=\"admin\", realm=\"IP Camera\", nonce=\"abc123\", uri=\"\(uri)\", response=\"\(response)\", algorithm=MD5"
    }

    static func connection(_ url: String = "rtsp://admin:se%3Acret@cam.local/stream", transport: RTSPClientConnection.TransportMode = .interleaved) throws
        -> RTSPClientConnection {
        RTSPClientConnection(configuration: .init(url: try RTSPURL(parsing: url), transport: transport, clientNonce: "0a4f113b"))
    }

    /// Every action of the conversation, the server's bytes fed in chunks of `chunk` bytes.
    static func converse(chunk: Int) throws -> (RTSPClientConnection, [RTSPClientConnection.Action]) {
        var client = try connection()
        var actions = client.handle(.connected)
        for start in stride(from: 0, to: server.count, by: chunk) {
            actions += client.handle(.received(Array(server[start..<min(start + chunk, server.count)])))
        }
        return (client, actions)
    }

    static func presentation() throws -> RTSPClientConnection.Presentation {
        let description = try SessionDescription(parsing: sdp)
        return .init(description: description, tracks: [
            .init(media: description.media[0], url: "rtsp://cam.local/stream/trackID=1",
                  transport: RTSPTransport(protocolName: "RTP/AVP/TCP", interleaved: .init(0, 1), ssrc: 0xABCD),
                  rtpInfo: RTSPRTPInfo(url: "rtsp://cam.local/stream/trackID=1", sequenceNumber: 1)),
            .init(media: description.media[1], url: "rtsp://cam.local/stream/trackID=2",
                  transport: RTSPTransport(protocolName: "RTP/AVP/TCP", interleaved: .init(2, 3))),
        ], session: RTSPSessionHeader(identifier: "5A3F", timeout: 30))
    }

    @Test(arguments: [1, 5, 100_000])
    func playsThroughDigestAuthentication(chunk: Int) throws {
        let (_, actions) = try Self.converse(chunk: chunk)
        // md5 responses computed outside Swift (Python's hashlib) for user admin, password "se:cret".
        let expected: [RTSPClientConnection.Action] = [
            Self.request("OPTIONS rtsp://cam.local/stream RTSP/1.0", ["CSeq: 1", "User-Agent: Sluice"]),
            Self.request("DESCRIBE rtsp://cam.local/stream RTSP/1.0", ["CSeq: 2", "User-Agent: Sluice", "Accept: application/sdp"]),
            Self.request("DESCRIBE rtsp://cam.local/stream RTSP/1.0",
                         ["CSeq: 3", Self.digest("rtsp://cam.local/stream", "35f1254cc3ef7b7acf1378e4883f9252"), "User-Agent: Sluice",
                          "Accept: application/sdp"]),
            Self.request("SETUP rtsp://cam.local/stream/trackID=1 RTSP/1.0",
                         ["CSeq: 4", Self.digest("rtsp://cam.local/stream/trackID=1", "150b5404a7e22f524bbe8b06d73ee08c"), "User-Agent: Sluice",
                          "Transport: RTP/AVP/TCP;unicast;interleaved=0-1"]),
            Self.request("SETUP rtsp://cam.local/stream/trackID=2 RTSP/1.0",
                         ["CSeq: 5", Self.digest("rtsp://cam.local/stream/trackID=2", "1ffc74c7b7b0a9f6a8b8253d3bdde870"), "User-Agent: Sluice",
                          "Session: 5A3F", "Transport: RTP/AVP/TCP;unicast;interleaved=2-3"]),
            Self.request("PLAY rtsp://cam.local/stream/ RTSP/1.0",
                         ["CSeq: 6", Self.digest("rtsp://cam.local/stream/", "5e3103e19ffe4dbecd25921e0e39460a"), "User-Agent: Sluice",
                          "Session: 5A3F", "Range: npt=0.000-"]),
            .deliverRTP(track: 0, packet: Self.videoRTP),
            .playing(try Self.presentation()),
            .scheduleKeepAlive(seconds: 15),
            .deliverRTP(track: 1, packet: Self.audioRTP),
            .deliverRTCP(track: 0, packet: [0x81, 0xC8, 0x00, 0x00]),
        ]
        #expect(actions.count == expected.count)
        for (action, wanted) in zip(actions, expected) { #expect(action == wanted) }
    }

    @Test func keepsAliveWithGetParameterAndTearsDown() throws {
        var (client, _) = try Self.converse(chunk: 100_000)
        #expect(client.handle(.keepAliveTimer) == [
            Self.request("GET_PARAMETER rtsp://cam.local/stream/ RTSP/1.0",
                         ["CSeq: 7", Self.digest("rtsp://cam.local/stream/", "11acf7d79d0f85d13f9af278065a3497"), "User-Agent: Sluice", "Session: 5A3F"]),
            .scheduleKeepAlive(seconds: 15),
        ])
        // Unanswered: the next tick only schedules.
        #expect(client.handle(.keepAliveTimer) == [.scheduleKeepAlive(seconds: 15)])
        // A server that refuses GET_PARAMETER still counts it as activity: nothing ends.
        #expect(client.handle(.received(Self.response(7, "405 Method Not Allowed"))) == [])
        #expect(client.handle(.received(Self.frame(0, Self.videoRTP))) == [.deliverRTP(track: 0, packet: Self.videoRTP)])
        #expect(client.handle(.stop) == [
            Self.request("TEARDOWN rtsp://cam.local/stream/ RTSP/1.0",
                         ["CSeq: 8", Self.digest("rtsp://cam.local/stream/", "304b108a6f3ffd6b6218b4bbec0528f8"), "User-Agent: Sluice", "Session: 5A3F"]),
        ])
        #expect(client.handle(.received(Self.response(8))) == [.close])
        #expect(client.handle(.keepAliveTimer) == [])
    }

    @Test func aKeepAliveAnsweredDuringTeardownIsIgnored() throws {
        var (client, _) = try Self.converse(chunk: 100_000)
        _ = client.handle(.keepAliveTimer)
        #expect(client.handle(.stop).count == 1)
        #expect(client.handle(.received(Self.response(7))) == [])
        #expect(client.handle(.received(Self.response(8))) == [.close])
    }

    @Test func aLostSessionOnKeepAliveFails() throws {
        var (client, _) = try Self.converse(chunk: 100_000)
        _ = client.handle(.keepAliveTimer)
        #expect(client.handle(.received(Self.response(7, "454 Session Not Found"))) == [
            .fail(.refused(method: .getParameter, status: "454 Session Not Found", detail: nil)), .close,
        ])
    }

    @Test func refusedDigestCredentialsFailNamingTheStatus() throws {
        var client = try Self.connection()
        _ = client.handle(.connected)
        let challenge = "WWW-Authenticate: Digest realm=\"IP Camera\", nonce=\"abc123\""
        _ = client.handle(.received(Self.response(1)))
        let retry = client.handle(.received(Self.response(2, "401 Unauthorized", [challenge])))
        #expect(retry.count == 1)
        let actions = client.handle(.received(Self.response(3, "401 Unauthorized", [challenge])))
        #expect(actions == [.fail(.refused(method: .describe, status: "401 Unauthorized", detail: "after Digest credentials were sent")), .close])
        if case let .fail(error) = actions.first {
            #expect(error.description == "DESCRIBE answered 401 Unauthorized after Digest credentials were sent")
        }
    }

    @Test func aStaleNonceIsAnsweredOnce() throws {
        var client = try Self.connection()
        _ = client.handle(.connected)
        _ = client.handle(.received(Self.response(1)))
        _ = client.handle(.received(Self.response(2, "401 Unauthorized", ["WWW-Authenticate: Digest realm=\"IP Camera\", nonce=\"abc123\""])))
        let stale = "WWW-Authenticate: Digest realm=\"IP Camera\", nonce=\"new456\", stale=TRUE"
        let renewed = client.handle(.received(Self.response(3, "401 Unauthorized", [stale])))
        guard case let .send(bytes) = renewed.first, renewed.count == 1 else {
            Issue.record("expected one request, got \(renewed)")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains("CSeq: 4\r\nAuthorization: Digest username=\"admin\", realm=\"IP Camera\", nonce=\"new456\""))
        #expect(client.handle(.received(Self.response(4, "401 Unauthorized", [stale])))
                == [.fail(.refused(method: .describe, status: "401 Unauthorized", detail: "after Digest credentials were sent")), .close])
    }

    @Test func basicWhenThatIsAllTheServerOffers() throws {
        var client = try Self.connection("rtsp://Aladdin:open%20sesame@cam.local/stream")
        _ = client.handle(.connected)
        _ = client.handle(.received(Self.response(1)))
        #expect(client.handle(.received(Self.response(2, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\""]))) == [
            Self.request("DESCRIBE rtsp://cam.local/stream RTSP/1.0",
                         ["CSeq: 3", "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "User-Agent: Sluice", "Accept: application/sdp"]),
        ])
        #expect(client.handle(.received(Self.response(3, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\""])))
                == [.fail(.refused(method: .describe, status: "401 Unauthorized", detail: "after Basic credentials were sent")), .close])
    }

    @Test func prefersSHA256Digest() throws {
        var client = try Self.connection()
        _ = client.handle(.connected)
        _ = client.handle(.received(Self.response(1)))
        let actions = client.handle(.received(Self.response(2, "401 Unauthorized", [
            "WWW-Authenticate: Digest realm=\"r\", nonce=\"n\", algorithm=MD5, qop=\"auth\"",
            "WWW-Authenticate: Digest realm=\"r\", nonce=\"n\", algorithm=SHA-256, qop=\"auth\"",
        ])))
        guard case let .send(bytes) = actions.first else {
            Issue.record("no request")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("algorithm=SHA-256, qop=auth, nc=00000001, cnonce=\"0a4f113b\""))
    }

    @Test(arguments: [
        (["401 Unauthorized|WWW-Authenticate: Digest realm=\"r\", nonce=\"n\""], "rtsp://cam.local/stream",
         RTSPClientError.refused(method: .describe, status: "401 Unauthorized", detail: "and the URL has no credentials")),
        (["401 Unauthorized|WWW-Authenticate: Negotiate"], "rtsp://u:p@cam.local/stream",
         .refused(method: .describe, status: "401 Unauthorized", detail: "with no Basic or Digest challenge this client answers (offered: Negotiate)")),
        (["404 Stream Not Found"], "rtsp://cam.local/stream", .refused(method: .describe, status: "404 Stream Not Found", detail: nil)),
        (["200 OK|Content-Type: application/sdp|BODY:v=0\r\nm=application 0 RTP/AVP 107\r\n"], "rtsp://cam.local/stream", .noPlayableTrack),
        (["200 OK|BODY:v=0\r\nm=video x RTP/AVP 96\r\n"], "rtsp://cam.local/stream",
         .malformedDescription(.invalid(structure: "SDP", reason: "line 2 \"m=video x RTP/AVP 96\": port x is not 0...65535"))),
        (["200 OK|BODY:v=0\r\nm=video 0 RTP/AVP 96\r\n", "200 OK|Transport: RTP/AVP/TCP;interleaved=0-1"], "rtsp://cam.local/stream",
         .protocolViolation("SETUP answered without a Session header")),
        (["200 OK|BODY:v=0\r\nm=video 0 RTP/AVP 96\r\n", "200 OK|Session: 1|Transport: RTP/AVP;unicast;client_port=1-2"], "rtsp://cam.local/stream",
         .protocolViolation("SETUP answered RTP/AVP;unicast;client_port=1-2 to an interleaved request")),
        (["200 OK|BODY:v=0\r\nm=video 0 RTP/AVP 96\r\n", "200 OK|Session: 1|Transport: RTP/AVP/TCP;interleaved=a"], "rtsp://cam.local/stream",
         .malformed(.malformed(structure: "Transport header", reason: "\"interleaved=a\" is not a range within 0...255"))),
    ])
    func failsAfterDescribe(answers: [String], url: String, error: RTSPClientError) throws {
        var client = try Self.connection(url)
        _ = client.handle(.connected)
        var actions = client.handle(.received(Self.response(1)))
        for (index, answer) in answers.enumerated() {
            var parts = answer.split(separator: "|").map(String.init)
            let status = parts.removeFirst()
            let body = parts.last?.hasPrefix("BODY:") == true ? String(parts.removeLast().dropFirst(5)) : ""
            actions = client.handle(.received(Self.response(2 + index, status, parts, body: body)))
        }
        #expect(actions.suffix(2) == [.fail(error), .close])
    }

    @Test func outOfTurnAndMalformedAnswersFail() throws {
        var client = try Self.connection()
        _ = client.handle(.connected)
        #expect(client.handle(.received(Self.response(5))) == [.fail(.protocolViolation("CSeq 5 answered while 1 was outstanding")), .close])
        // Once failed, nothing more happens.
        #expect(client.handle(.received(Self.response(1))) == [])
        var other = try Self.connection()
        #expect(other.handle(.received(Self.response(1))) == [.fail(.protocolViolation("a response (200 OK) with no request outstanding")), .close])
        var garbled = try Self.connection()
        _ = garbled.handle(.connected)
        #expect(garbled.handle(.received(Array("HTTP/1.1 200 OK\r\n\r\n".utf8)))
                == [.fail(.malformed(.malformed(structure: "status line", reason: "\"HTTP/1.1 200 OK\""))), .close])
    }

    @Test func serverClosingMidwayFailsNamingThePhase() throws {
        var client = try Self.connection()
        _ = client.handle(.connected)
        #expect(client.handle(.disconnected) == [.fail(.closedByServer(during: "OPTIONS")), .close])
        #expect(RTSPClientError.closedByServer(during: "OPTIONS").description == "the server closed the connection during OPTIONS")
    }

    @Test func udpAsksForClientPorts() throws {
        var client = try Self.connection("rtsp://cam.local/stream", transport: .udp(firstClientPort: 50000))
        _ = client.handle(.connected)
        _ = client.handle(.received(Self.response(1)))
        let actions = client.handle(.received(Self.response(2, body: "v=0\r\nm=video 0 RTP/AVP 96\r\na=control:track1\r\n")))
        #expect(actions == [Self.request("SETUP rtsp://cam.local/stream/track1 RTSP/1.0",
                                         ["CSeq: 3", "User-Agent: Sluice", "Transport: RTP/AVP;unicast;client_port=50000-50001"])])
        let play = client.handle(.received(Self.response(3, "200 OK", ["Session: 77;timeout=10",
                                                                      "Transport: RTP/AVP;unicast;client_port=50000-50001;server_port=6970-6971"])))
        #expect(play == [Self.request("PLAY rtsp://cam.local/stream RTSP/1.0", ["CSeq: 4", "User-Agent: Sluice", "Session: 77", "Range: npt=0.000-"])])
        let playing = client.handle(.received(Self.response(4)))
        guard case let .playing(presentation) = playing.first else {
            Issue.record("not playing: \(playing)")
            return
        }
        #expect(presentation.tracks[0].transport?.serverPort == .init(6970, 6971))
        #expect(playing.last == .scheduleKeepAlive(seconds: 5))
        // The OPTIONS answer listed no GET_PARAMETER: keep-alives are OPTIONS.
        guard case let .send(bytes) = client.handle(.keepAliveTimer).first else {
            Issue.record("no keep-alive")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("OPTIONS rtsp://cam.local/stream RTSP/1.0\r\nCSeq: 5\r\n"))
    }
}
