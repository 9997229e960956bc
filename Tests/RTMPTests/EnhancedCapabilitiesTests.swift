import Foundation
import MediaFormats
import Testing
@testable import RTMP

/// Enhanced RTMP v2 "Enhancing NetConnection connect Command": what Sluice announces as a server and as a client,
/// and what it reads from a peer.
@Suite struct EnhancedCapabilitiesTests {
    @Test("the server's connect _result lists the relayed codecs with CanForward, and capsEx")
    func serverAnnounces() throws {
        var conversation = Conversation()
        try conversation.run()
        var decoder = ChunkDecoder()
        let messages = try decoder.decode(Array(conversation.toClient[3073...]))
        let result = try #require(try messages.filter { $0.type == .commandAMF0 }.map { try Command(parsing: $0.payload) }.first)
        #expect(result.name == "_result")
        let properties = result.commandObject
        #expect(properties["fmsVer"]?.stringValue == "FMS/3,0,1,123")
        guard case let .strictArray(list)? = properties["fourCcList"] else {
            Issue.record("no fourCcList in \(properties)")
            return
        }
        #expect(list.compactMap(\.stringValue) == ["avc1", "hvc1", "av01", "vp09", "vp08", "mp4a", "Opus", ".mp3", "ac-3", "ec-3", "fLaC"])
        #expect(properties["videoFourCcInfoMap"]?["hvc1"]?.numberValue == 4, "CanForward")
        #expect(properties["videoFourCcInfoMap"]?["av01"]?.numberValue == 4)
        #expect(properties["videoFourCcInfoMap"]?["vp08"]?.numberValue == 4, "VP8 is relayed and recorded as VP9 is")
        #expect(properties["audioFourCcInfoMap"]?["Opus"]?.numberValue == 4)
        #expect(properties["capsEx"]?.numberValue == 14, "Multitrack | ModEx | TimestampNanoOffset")
        // The client read it back.
        let read = try #require(conversation.client.serverCapabilities)
        #expect(read == EnhancedCapabilities.relay())
        #expect(read.accepts(video: .hvc1) == .accepted && read.accepts(audio: .opus) == .accepted)
        #expect(read.accepts(video: .vvc1) == .refused)
    }

    @Test("the client's connect announces the relayed codecs with CanEncode | CanForward; the server reads them")
    func clientAnnounces() throws {
        var conversation = Conversation()
        try conversation.run()
        var serverSide = ChunkDecoder()
        let connect = try Command(parsing: try #require(try serverSide.decode(Array(conversation.toServer[3073...])).first).payload)
        #expect(connect.name == "connect")
        #expect(connect.commandObject["videoFourCcInfoMap"]?["hvc1"]?.numberValue == 6)
        #expect(connect.commandObject["audioFourCcInfoMap"]?["mp4a"]?.numberValue == 6)
        #expect(conversation.server.peerCapabilities == EnhancedCapabilities.relay(canEncode: true))
    }

    @Test("a legacy server (no properties) and a legacy client (no properties) announce nothing")
    func legacyPeers() throws {
        var conversation = Conversation()
        conversation.client = ClientConnection(mode: .publish, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "k",
                                               epoch: 7, random: clientRandom, announcesEnhancedRTMP: false)
        conversation.server = ServerConnection(epoch: 9, random: serverRandom, capabilities: nil)
        try conversation.run()
        #expect(conversation.client.isReady)
        #expect(conversation.client.serverCapabilities == nil)
        #expect(conversation.server.peerCapabilities == nil)
        var decoder = ChunkDecoder()
        let result = try Command(parsing: try #require(try decoder.decode(Array(conversation.toClient[3073...])).first { $0.type == .commandAMF0 }).payload)
        #expect(result.commandObject["fourCcList"] == nil && result.commandObject["capsEx"] == nil)
    }

    /// (what the peer announced, the codec, what it means).
    static let acceptance: [(String, EnhancedCapabilities, FLVVideoFourCC?, FLVAudioFourCC?, EnhancedCapabilities.Acceptance)] = [
        ("nothing announced", EnhancedCapabilities(), .hvc1, nil, .unannounced),
        ("nothing announced, audio", EnhancedCapabilities(), nil, .opus, .unannounced),
        ("only capsEx", EnhancedCapabilities(capsEx: 2), .hvc1, nil, .unannounced),
        ("v1 list with the codec", EnhancedCapabilities(fourCCList: ["av01", "vp09", "hvc1"]), .hvc1, nil, .accepted),
        ("v1 list without it", EnhancedCapabilities(fourCCList: ["av01"]), .hvc1, nil, .refused),
        ("v1 list of video says nothing of audio", EnhancedCapabilities(fourCCList: ["hvc1"]), nil, .opus, .unannounced),
        ("list naming audio without Opus", EnhancedCapabilities(fourCCList: ["hvc1", "mp4a"]), nil, .opus, .refused),
        ("wildcard list", EnhancedCapabilities(fourCCList: ["*"]), .av01, nil, .accepted),
        ("info map CanForward", EnhancedCapabilities(videoInfo: [("hvc1", 4)]), .hvc1, nil, .accepted),
        ("info map CanDecode", EnhancedCapabilities(videoInfo: [("hvc1", 1)]), .hvc1, nil, .accepted),
        ("info map CanEncode only", EnhancedCapabilities(videoInfo: [("hvc1", 2)]), .hvc1, nil, .refused),
        ("info map wildcard", EnhancedCapabilities(videoInfo: [("*", 4)]), .vp09, nil, .accepted),
        ("info map decides over the list", EnhancedCapabilities(fourCCList: ["hvc1"], videoInfo: [("av01", 4)]), .hvc1, nil, .refused),
        ("audio map", EnhancedCapabilities(audioInfo: [("Opus", 5)]), nil, .opus, .accepted),
        ("audio map without it", EnhancedCapabilities(audioInfo: [("mp4a", 5)]), nil, .opus, .refused),
    ]

    @Test func acceptanceTable() {
        for (name, capabilities, video, audio, expected) in Self.acceptance {
            let got = video.map { capabilities.accepts(video: $0) } ?? audio.map { capabilities.accepts(audio: $0) }
            #expect(got == expected, "\(name)")
        }
    }

    @Test("properties round-trip through AMF0; odd entries are skipped, not fatal")
    func parsing() throws {
        let announced = EnhancedCapabilities.relay(canEncode: true)
        var bytes: [UInt8] = []
        try AMF0Value.object(announced.properties).write(into: &bytes)
        #expect(EnhancedCapabilities(properties: try AMF0Value(parsing: bytes)) == announced)
        let odd = AMF0Value.ecmaArray([
            AMF0Property("fourCcList", .strictArray([.string("hvc1"), .number(3)])),
            AMF0Property("videoFourCcInfoMap", .object([AMF0Property("hvc1", .number(-1)), AMF0Property("av01", .number(4)),
                                                        AMF0Property("vp09", .string("4")), AMF0Property("avc1", .number(1.5))])),
            AMF0Property("capsEx", .number(.nan)),
        ])
        let read = EnhancedCapabilities(properties: odd)
        #expect(read.fourCCList == ["hvc1"])
        #expect(read.videoInfo?.map(\.fourCC) == ["av01"])
        #expect(read.capsEx == nil && read.audioInfo == nil)
        #expect(EnhancedCapabilities(properties: .null) == EnhancedCapabilities())
    }
}
