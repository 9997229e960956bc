import Testing
import RTSP

@Suite("RTSP Transport, Session and URL")
struct RTSPHeaderFieldTests {
    @Test func readsTransports() throws {
        let tcp = try RTSPTransport(parsing: "RTP/AVP/TCP;unicast;interleaved=2-3;ssrc=0000ABCD;mode=\"PLAY\"")
        #expect(tcp == RTSPTransport(protocolName: "RTP/AVP/TCP", interleaved: .init(2, 3), ssrc: 0xABCD))
        #expect(tcp.isTCP)
        let udp = try RTSPTransport(parsing: "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971;source=10.0.0.2")
        #expect(udp == RTSPTransport(protocolName: "RTP/AVP", clientPort: .init(5000, 5001), serverPort: .init(6970, 6971)))
        #expect(!udp.isTCP)
        #expect(try RTSPTransport(parsing: "RTP/AVP/TCP; ;interleaved=4").interleaved == .init(4, 5))
        #expect(RTSPTransport(protocolName: "RTP/AVP/TCP", interleaved: .init(0, 1)).value == "RTP/AVP/TCP;unicast;interleaved=0-1")
        #expect(RTSPTransport(protocolName: "RTP/AVP", clientPort: .init(5000, 5001)).value == "RTP/AVP;unicast;client_port=5000-5001")
    }

    @Test(arguments: [
        ("RAW/RAW/UDP;unicast", "\"RAW/RAW/UDP;unicast\" is not RTP/AVP"),
        ("RTP/AVP/TCP;interleaved=x-1", "\"interleaved=x-1\" is not a range within 0...255"),
        ("RTP/AVP/TCP;interleaved=0-256", "\"interleaved=0-256\" is not a range within 0...255"),
        ("RTP/AVP;client_port=70000", "\"client_port=70000\" is not a range within 0...65535"),
        ("RTP/AVP;ssrc=XYZ", "\"ssrc=XYZ\" is not 8 hex digits"),
    ])
    func refusesTransports(value: String, reason: String) {
        #expect(throws: RTSPError.malformed(structure: "Transport header", reason: reason)) { try RTSPTransport(parsing: value) }
    }

    @Test func readsSessions() throws {
        #expect(try RTSPSessionHeader(parsing: "5A3F1;timeout=30") == RTSPSessionHeader(identifier: "5A3F1", timeout: 30))
        let untimed = try RTSPSessionHeader(parsing: " 47112344 ")
        #expect(untimed == RTSPSessionHeader(identifier: "47112344") && untimed.effectiveTimeout == 60)
        #expect(throws: RTSPError.malformed(structure: "Session header", reason: "\"timeout=0\" is not a timeout in seconds")) {
            try RTSPSessionHeader(parsing: "abc;timeout=0")
        }
        #expect(throws: RTSPError.malformed(structure: "Session header", reason: "\";timeout=5\" has no printable identifier of at most 256 characters")) {
            try RTSPSessionHeader(parsing: ";timeout=5")
        }
    }

    @Test func readsURLs() throws {
        let url = try RTSPURL(parsing: "rtsp://admin:se%3Acret@192.168.1.64:8554/Streaming/Channels/101?transportmode=unicast")
        #expect(url.credentials == RTSPCredentials(user: "admin", password: "se:cret"))
        #expect(url.host == "192.168.1.64" && url.port == 8554)
        #expect(url.string == "rtsp://192.168.1.64:8554/Streaming/Channels/101?transportmode=unicast")
        let bare = try RTSPURL(parsing: "rtsp://[fe80::1]")
        #expect(bare.host == "[fe80::1]" && bare.port == 554 && bare.path == "/" && bare.credentials == nil)
        #expect(bare.string == "rtsp://[fe80::1]/")
        #expect(try RTSPURL(parsing: "RTSP://cam:554/live").string == "rtsp://cam/live")
        let secure = try RTSPURL(parsing: "rtsps://cam/live")
        #expect(secure.port == 322 && secure.string == "rtsps://cam/live")
        #expect(try RTSPURL(parsing: "rtsps://cam:554/live").string == "rtsps://cam:554/live")
    }

    @Test(arguments: [
        ("http://cam/live", "scheme http, expected rtsp or rtsps"), ("rtsp://cam:0/live", "port 0 is not 1...65535"),
        ("rtsp:///live", "no host"), ("rtsp://cam/li ve", "a space or control character"), ("cam/live", "no scheme"),
        ("rtsp://u:%4@cam/", "a bad percent escape in the user information"),
    ])
    func refusesURLs(text: String, reason: String) {
        #expect(throws: RTSPError.malformed(structure: "URL", reason: reason)) { try RTSPURL(parsing: text) }
    }
}
