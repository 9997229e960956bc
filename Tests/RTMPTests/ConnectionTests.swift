import Foundation
import MediaFormats
import Testing
@testable import RTMP

/// ServerConnection ⇄ ClientConnection in memory, and the server against handcrafted peers.
@Suite struct ConnectionTests {
    private let video = Message(type: .video, timestamp: 0, streamID: 0, payload: [0x17, 0x00, 0, 0, 0] + Array(repeating: 0x61, count: 9000))
    private let audio = Message(type: .audio, timestamp: 23, streamID: 0, payload: [0xAF, 0x01, 0x21, 0x10])

    private func metadata() -> Message {
        var payload: [UInt8] = []
        AMF0Encoding.append(.string("@setDataFrame"), into: &payload)
        AMF0Encoding.append(.string("onMetaData"), into: &payload)
        AMF0Encoding.append(.ecmaArray([AMF0Property("width", .number(320))]), into: &payload)
        return Message(type: .dataAMF0, timestamp: 0, streamID: 0, payload: payload)
    }

    @Test func clientPublishesToServerAndMediaRoundTrips() throws {
        var conversation = Conversation()
        try conversation.run()
        #expect(conversation.server.isHandshakeComplete)
        #expect(conversation.server.isPublishing)
        #expect(conversation.client.isReady)
        #expect(conversation.serverActions.filter { if case .send = $0 { false } else { true } }
                    == [.publishRequested(app: "live", streamKey: "secret-key")])
        #expect(conversation.clientActions.filter { if case .send = $0 { false } else { true } } == [.ready])

        var bytes: [UInt8] = []
        let sent = [metadata(), video, audio, Message(type: .video, timestamp: 33, streamID: 0, payload: [0x27, 1, 0, 0, 0, 5])]
        for message in sent { conversation.client.encodeMedia(message, into: &bytes) }
        let actions = try conversation.server.receive(bytes)
        let expected = sent.map { message -> ServerAction in
            var published = message
            published.streamID = 1
            return .media(published)
        }
        #expect(actions == expected)

        let closing = conversation.client.close()
        #expect(try conversation.server.receive(closing).filter { if case .send = $0 { false } else { true } } == [.unpublished])
        #expect(!conversation.server.isPublishing)
        #expect(conversation.client.close().isEmpty)
    }

    @Test func serverRepliesAsNginxRTMPDoes() throws {
        var conversation = Conversation()
        try conversation.run()
        // What the server wrote after S0+S1+S2, as messages.
        var decoder = ChunkDecoder()
        let messages = try decoder.decode(Array(conversation.toClient[3073...]))
        let control = messages.prefix(3).map(\.type)
        #expect(control == [.windowAcknowledgementSize, .setPeerBandwidth, .setChunkSize])
        #expect(messages[0].payload == [0x00, 0x26, 0x25, 0xA0], "2 500 000")
        #expect(messages[1].payload == [0x00, 0x26, 0x25, 0xA0, 2], "dynamic")
        #expect(messages[2].payload == [0, 0, 0x10, 0], "4096")
        let commands = try messages.filter { $0.type == .commandAMF0 }.map { try Command(parsing: $0.payload) }
        #expect(commands.map(\.name) == ["_result", "_result", "_result", "_result", "onStatus"])
        #expect(commands[0].infoString("code") == "NetConnection.Connect.Success")
        #expect(commands[3].arguments.first?.numberValue == 1, "createStream → stream 1")
        #expect(commands[4].infoString("code") == "NetStream.Publish.Start")
        let begin = try messages.filter { $0.type == .userControl }.map { try UserControlEvent(parsing: $0.payload) }
        #expect(begin == [.streamBegin(streamID: 1)])

        // What the client wrote: connect, then Window Ack Size / Set Chunk Size, releaseStream, FCPublish, createStream, publish.
        var serverSide = ChunkDecoder()
        let clientMessages = try serverSide.decode(Array(conversation.toServer[3073...]))
        let names = try clientMessages.map { message -> String in
            message.type == .commandAMF0 ? try Command(parsing: message.payload).name : "\(message.typeID)"
        }
        #expect(names == ["connect", "5", "1", "releaseStream", "FCPublish", "createStream", "publish"])
        let connect = try Command(parsing: clientMessages[0].payload)
        #expect(connect.commandObject["flashVer"]?.stringValue == "FMLE/3.0 (compatible; Sluice)")
        #expect(connect.commandObject["type"]?.stringValue == "nonprivate")
        #expect(connect.commandObject["tcUrl"]?.stringValue == "rtmp://127.0.0.1/live")
        let publish = try Command(parsing: clientMessages[6].payload)
        #expect(publish.arguments == [.string("secret-key"), .string("live")])
        #expect(clientMessages[6].streamID == 1)
    }

    @Test func refusalWithBadName() throws {
        var conversation = Conversation()
        try conversation.run { $0.refusePublish(code: "NetStream.Publish.BadName", description: "Wrong stream key") }
        #expect(!conversation.server.isPublishing)
        #expect(!conversation.client.isReady)
        #expect(conversation.clientActions.contains(.refused(code: "NetStream.Publish.BadName", description: "Wrong stream key")))
        // Media from the refused publisher is ignored.
        var bytes: [UInt8] = []
        conversation.client.encodeMedia(audio, into: &bytes)
        #expect(try conversation.server.receive(bytes).isEmpty)
    }

    /// OBS (librtmp): Set Chunk Size 4096 first, then connect, releaseStream, FCPublish and createStream in one
    /// write; publish once createStream's _result is in; @setDataFrame and media in 4096-byte chunks.
    @Test func obsLikePublisher() throws {
        var server = ServerConnection(random: [1])
        var bytes: [UInt8] = [3] + [UInt8](repeating: 0, count: 1536 * 2)
        var encoder = ChunkEncoder()
        encoder.encode(ProtocolControl.setChunkSize(4096), chunkStreamID: 2, into: &bytes)
        encoder.setChunkSize(4096)
        let connect = Command(name: "connect", transactionID: 1, commandObject: .object([
            AMF0Property("app", .string("live/")), AMF0Property("type", .string("nonprivate")),
            AMF0Property("flashVer", .string("FMLE/3.0 (compatible; FMSc/1.0)")), AMF0Property("swfUrl", .string("rtmp://h/live")),
            AMF0Property("tcUrl", .string("rtmp://h/live")),
        ]))
        encoder.encode(connect.message(), chunkStreamID: 3, into: &bytes)
        encoder.encode(Command(name: "releaseStream", transactionID: 2, arguments: [.string("obs-key")]).message(), chunkStreamID: 3, into: &bytes)
        encoder.encode(Command(name: "FCPublish", transactionID: 3, arguments: [.string("obs-key")]).message(), chunkStreamID: 3, into: &bytes)
        encoder.encode(Command(name: "createStream", transactionID: 4).message(), chunkStreamID: 3, into: &bytes)
        var sent: [UInt8] = []
        for case let .send(chunk) in try server.receive(bytes) { sent += chunk }
        var decoder = ChunkDecoder()
        let replies = try decoder.decode(Array(sent[3073...]))
        let results = try replies.filter { $0.type == .commandAMF0 }.map { try Command(parsing: $0.payload) }
        #expect(results.map(\.name) == ["_result", "_result", "_result", "_result"])
        #expect(results.map(\.transactionID) == [1, 2, 3, 4])
        #expect(results.last?.arguments == [.number(1)])

        bytes = []
        encoder.encode(Command(name: "publish", transactionID: 5, arguments: [.string("obs-key"), .string("live")]).message(streamID: 1),
                       chunkStreamID: 4, into: &bytes)
        #expect(try server.receive(bytes) == [.publishRequested(app: "live", streamKey: "obs-key")], "trailing slash of app dropped")
        _ = server.acceptPublish()
        bytes = []
        var metadata: [UInt8] = []
        AMF0Encoding.append(.string("@setDataFrame"), into: &metadata)
        AMF0Encoding.append(.string("onMetaData"), into: &metadata)
        AMF0Encoding.append(.ecmaArray([AMF0Property("encoder", .string("obs-output module"))]), into: &metadata)
        let sent18 = Message(type: .dataAMF0, timestamp: 0, streamID: 1, payload: metadata)
        let keyframe = Message(type: .video, timestamp: 0, streamID: 1, payload: [0x17, 1, 0, 0, 0] + [UInt8](repeating: 0x65, count: 9000))
        encoder.encode(sent18, chunkStreamID: 4, into: &bytes)
        encoder.encode(keyframe, chunkStreamID: 4, into: &bytes)
        #expect(try server.receive(bytes) == [.media(sent18), .media(keyframe)])
    }

    @Test func mediaBeforeThePublishCommandIsIgnored() throws {
        var server = ServerConnection(random: [1])
        var bytes: [UInt8] = [3] + [UInt8](repeating: 0, count: 1536 * 2)
        var encoder = ChunkEncoder()
        encoder.encode(Command(name: "connect", transactionID: 1, commandObject: .object([AMF0Property("app", .string("live"))])).message(),
                       chunkStreamID: 3, into: &bytes)
        encoder.encode(Command(name: "createStream", transactionID: 2).message(), chunkStreamID: 3, into: &bytes)
        encoder.encode(Message(type: .audio, timestamp: 0, streamID: 1, payload: [0xAF, 0]), chunkStreamID: 6, into: &bytes)
        encoder.encode(Command(name: "publish", transactionID: 0, arguments: [.string("k")]).message(streamID: 1), chunkStreamID: 5, into: &bytes)
        let events = try server.receive(bytes).filter { if case .send = $0 { false } else { true } }
        #expect(events == [.publishRequested(app: "live", streamKey: "k")])
    }

    @Test func mediaWhilePublishIsUndecidedIsHeldUntilAccepted() throws {
        var conversation = Conversation()
        try conversation.run { _ in [] }
        #expect(!conversation.server.isPublishing)
        var bytes: [UInt8] = []
        conversation.client.encodeMedia(audio, into: &bytes)
        #expect(try conversation.server.receive(bytes).isEmpty)
        let accepted = conversation.server.acceptPublish()
        #expect(accepted.count == 2)
        var published = audio
        published.streamID = 1
        #expect(accepted.last == .media(published))
        #expect(conversation.server.acceptPublish().isEmpty, "accepting twice does nothing")
        #expect(try conversation.server.receive(bytes) == [.media(published)])
    }

    @Test func heldBytesAreBounded() throws {
        var limits = Limits()
        limits.maxMessageLength = 10_000
        var conversation = Conversation(serverLimits: limits)
        try conversation.run { _ in [] }
        var bytes: [UInt8] = []
        conversation.client.encodeMedia(video, into: &bytes)
        #expect(try conversation.server.receive(bytes).isEmpty)
        #expect(throws: ProtocolError.self) { _ = try conversation.server.receive(bytes) }
    }

    /// The same client bytes fed all at once and one byte at a time give the same actions.
    @Test func splitAtEveryByteGivesTheSameActions() throws {
        var conversation = Conversation()
        try conversation.run()
        var media: [UInt8] = []
        for message in [metadata(), video, audio] { conversation.client.encodeMedia(message, into: &media) }
        media += conversation.client.close()
        let input = conversation.toServer + media

        func feed(_ chunks: [[UInt8]]) throws -> [ServerAction] {
            var server = ServerConnection(epoch: 9, random: serverRandom)
            var actions: [ServerAction] = []
            for chunk in chunks {
                for action in try server.receive(chunk) {
                    actions.append(action)
                    if case .publishRequested = action { actions += server.acceptPublish() }
                }
            }
            return mergingSends(actions)
        }
        let whole = try feed([input])
        let bytewise = try feed(input.map { [$0] })
        #expect(whole == bytewise)
        #expect(whole.filter { if case .media = $0 { true } else { false } }.count == 3)
        #expect(whole.last == .unpublished)

        func feedClient(_ chunks: [[UInt8]]) throws -> [ClientAction] {
            var client = ClientConnection(mode: .publish, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "secret-key",
                                          epoch: 7, random: clientRandom)
            _ = client.start()
            var actions: [ClientAction] = []
            for chunk in chunks { actions += try client.receive(chunk) }
            return mergingSends(actions)
        }
        let clientWhole = try feedClient([conversation.toClient])
        #expect(clientWhole.contains(.ready))
        #expect(try feedClient(conversation.toClient.map { [$0] }) == clientWhole)
    }

    @Test func acknowledgementEachWindowOfReceivedBytes() throws {
        var clientLimits = Limits()
        clientLimits.windowAcknowledgementSize = 5000
        var conversation = Conversation(clientLimits: clientLimits)
        try conversation.run()
        var bytes: [UInt8] = []
        conversation.client.encodeMedia(video, into: &bytes)
        conversation.client.encodeMedia(video, into: &bytes)
        let acks = try conversation.sendToServer(bytes).replies.filter { $0.type == .acknowledgement }
        let chunkBytes = conversation.toServer.count - 3073 + bytes.count
        #expect(acks.count == chunkBytes / 5000)
        #expect(try acks.map { try ProtocolControl.parseUInt32($0) } == (0..<acks.count).map { UInt32(($0 + 1) * 5000) })
    }

    @Test func acknowledgementSequenceNumberWraps() {
        var window = AcknowledgementWindow(windowSize: 100, sequenceNumber: UInt32.max - 10)
        #expect(window.bytesUntilAcknowledgement(available: 1000) == 100)
        #expect(window.received(99) == nil)
        #expect(window.received(1) == 89)
        var off = AcknowledgementWindow()
        #expect(off.received(1 << 30) == nil, "no window announced, no acknowledgement")
    }

    @Test func pingRequestIsAnswered() throws {
        var conversation = Conversation()
        try conversation.run()
        var out: [UInt8] = []
        var encoder = ChunkEncoder()
        encoder.encode(UserControlEvent.pingRequest(timestamp: 0xCAFE).message, chunkStreamID: 2, into: &out)
        let messages = try conversation.sendToServer(out).replies
        #expect(try messages.map { try UserControlEvent(parsing: $0.payload) } == [.pingResponse(timestamp: 0xCAFE)])
    }

    @Test func unknownCommandWithTransactionIDGetsError() throws {
        var conversation = Conversation()
        try conversation.run()
        var out: [UInt8] = []
        var encoder = ChunkEncoder()
        encoder.encode(Command(name: "getStreamLength", transactionID: 9, arguments: [.string("x")]).message(), chunkStreamID: 3, into: &out)
        encoder.encode(Command(name: "someNotification", transactionID: 0).message(), chunkStreamID: 3, into: &out)
        let replies = try conversation.sendToServer(out).replies.map { try Command(parsing: $0.payload) }
        #expect(replies.map(\.name) == ["_error"])
        #expect(replies.first?.transactionID == 9)
    }

    @Test func publishBeforeConnectIsAProtocolError() throws {
        var server = ServerConnection(random: [1])
        _ = try server.receive([3] + [UInt8](repeating: 0, count: 1536 * 2))
        var out: [UInt8] = []
        var encoder = ChunkEncoder()
        encoder.encode(Command(name: "publish", transactionID: 0, arguments: [.string("k")]).message(streamID: 1), chunkStreamID: 5, into: &out)
        #expect(throws: ProtocolError.self) { _ = try server.receive(out) }
    }

    @Test func clientPlaysFromServer() throws {
        // A hand-driven server: the conversation stops at publishRequested since our server only ingests.
        var client = ClientConnection(mode: .play, app: "live", tcURL: "rtmp://h/live", streamKey: "k", epoch: 0, random: [5])
        let c0c1 = client.start()
        var server = ServerEncoder()
        var bytes: [UInt8] = [3] + [UInt8](repeating: 1, count: 1536) + Array(c0c1.dropFirst())
        server.command(Command(name: "_result", transactionID: 1, arguments: [StatusInfo.object(level: "status", code: "NetConnection.Connect.Success", description: "")]), into: &bytes)
        var actions = try client.receive(bytes)
        var sent: [UInt8] = []
        for case let .send(chunk) in actions { sent += chunk }
        var clientSide = ChunkDecoder()
        var names = try clientSide.decode(Array(sent[1536...])).compactMap { $0.type == .commandAMF0 ? try Command(parsing: $0.payload).name : nil }
        #expect(names == ["connect", "createStream"])

        bytes = []
        server.command(Command(name: "_result", transactionID: 2, arguments: [.number(1)]), into: &bytes)
        actions = try client.receive(bytes)
        sent = []
        for case let .send(chunk) in actions { sent += chunk }
        let playMessages = try clientSide.decode(sent)
        names = try playMessages.compactMap { $0.type == .commandAMF0 ? try Command(parsing: $0.payload).name : nil }
        #expect(names == ["play"])
        #expect(try playMessages.filter { $0.type == .userControl }.map { try UserControlEvent(parsing: $0.payload) }
                    == [.setBufferLength(streamID: 1, milliseconds: 3000)])

        bytes = []
        server.command(Command(name: "onStatus", transactionID: 0, arguments: [StatusInfo.object(level: "status", code: "NetStream.Play.Start", description: "")]), streamID: 1, into: &bytes)
        server.encoder.encode(Message(type: .video, timestamp: 5, streamID: 1, payload: [0x17, 0]), chunkStreamID: 7, into: &bytes)
        var sampleAccess: [UInt8] = []
        AMF0Encoding.append(.string("|RtmpSampleAccess"), into: &sampleAccess)
        server.encoder.encode(Message(type: .dataAMF0, timestamp: 0, streamID: 1, payload: sampleAccess), chunkStreamID: 5, into: &bytes)
        // An aggregate carrying one audio sub-message (type 8, 2 bytes, timestamp 0, stream 0, back pointer 13).
        let aggregate: [UInt8] = [8, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xAF, 1, 0, 0, 0, 13]
        server.encoder.encode(Message(type: .aggregate, timestamp: 7, streamID: 1, payload: aggregate), chunkStreamID: 6, into: &bytes)
        server.encoder.encode(UserControlEvent.streamEOF(streamID: 1).message, chunkStreamID: 2, into: &bytes)
        actions = try client.receive(bytes)
        #expect(actions == [.ready, .media(Message(type: .video, timestamp: 5, streamID: 1, payload: [0x17, 0])),
                            .media(Message(type: .audio, timestamp: 7, streamID: 1, payload: [0xAF, 1])), .streamEnded])
    }
}

/// Writes a server's side of a conversation by hand.
struct ServerEncoder {
    var encoder = ChunkEncoder()

    mutating func command(_ command: Command, streamID: UInt32 = 0, into out: inout [UInt8]) {
        encoder.encode(command.message(streamID: streamID), chunkStreamID: streamID == 0 ? 3 : 5, into: &out)
    }
}

/// Inputs the fuzzers found, kept in Fuzz/corpus and replayed here.
@Suite struct ServerConnectionRegressionTests {
    private static func corpus(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/RTMPServerConnection/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    /// Bytes held after publish carried a 7 MB length claim: acceptPublish read them and the error was lost
    /// when the publisher sent nothing more. The next receive, even of nothing, throws it.
    @Test func errorInHeldBytesSurfacesAtTheNextReceive() throws {
        let bytes = try Self.corpus("crash-deferred-error-after-accept")
        var limits = Limits()
        limits.maxMessageLength = 1 << 16
        limits.maxChunkStreams = 8
        var server = ServerConnection(limits: limits, random: [1])
        let actions = try server.receive(bytes)
        #expect(actions.contains { if case .publishRequested = $0 { true } else { false } })
        _ = server.acceptPublish()
        #expect(throws: ProtocolError.self) { _ = try server.receive([]) }
        #expect(try server.receive([]).isEmpty, "thrown once")
    }

    /// A publisher that published, unpublished and published again in one read: the first acceptPublish reads
    /// the held bytes and returns the second request. The fuzz harness accepted only requests that receive
    /// returned, so in one piece the second went unanswered and in many pieces it was answered.
    @Test func aRequestReadByAcceptPublishIsAnsweredLikeAnyOther() throws {
        let bytes = try Self.corpus("crash-pieces-differ")
        func run(_ pieces: [ArraySlice<UInt8>]) throws -> (requests: Int, starts: Int, sent: [UInt8]) {
            var limits = Limits()
            limits.maxMessageLength = 1 << 16
            limits.maxChunkStreams = 8
            limits.windowAcknowledgementSize = 4096
            var server = ServerConnection(limits: limits, epoch: 1, random: [0x52, 0x54, 0x4D, 0x50])
            var requests = 0
            var sent: [UInt8] = []
            func take(_ actions: [ServerAction]) {
                for action in actions {
                    switch action {
                    case let .send(bytes): sent += bytes
                    case .publishRequested:
                        requests += 1
                        take(server.acceptPublish())
                    default: break
                    }
                }
            }
            for piece in pieces { take(try server.receive(Array(piece))) }
            take(try server.receive([]))
            let start = Array("NetStream.Publish.Start".utf8)
            let starts = sent.indices.filter { sent[$0...].starts(with: start) }.count
            return (requests, starts, sent)
        }
        let whole = try run([bytes[...]])
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        var length = 1
        while start < bytes.count {
            pieces.append(bytes[start..<min(bytes.count, start + length)])
            start += length
            length = length % 97 + 1
        }
        let split = try run(pieces)
        #expect(whole.requests == 2 && whole.starts == 2, "both publishes answered in one read")
        #expect(split.requests == 2 && split.starts == 2)
        #expect(whole.sent == split.sent)
    }
}

/// The ClientConnection fuzz seeds (a server's side written by Fuzz/make-rtmp-corpus) give what they were made for.
@Suite struct ClientConnectionSeedTests {
    private static func seed(_ name: String) throws -> (mode: ClientConnection.Mode, bytes: [UInt8]) {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/RTMPClientConnection/\(name)")
        let bytes = [UInt8](try Data(contentsOf: url))
        return (bytes.first == 0 ? .play : .publish, Array(bytes.dropFirst()))
    }

    private static func events(_ name: String) throws -> [ClientAction] {
        let (mode, bytes) = try seed(name)
        var client = ClientConnection(mode: mode, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "key", random: [1])
        _ = client.start()
        return try client.receive(bytes).filter { if case .send = $0 { false } else { true } }
    }

    @Test func playSeed() throws {
        let events = try Self.events("play")
        #expect(events.first == .ready)
        #expect(events.last == .streamEnded)
        let media = events.compactMap { event -> Message? in
            if case let .media(message) = event { return message }
            return nil
        }
        #expect(media.map(\.typeID) == [18, 9, 9, 8, 9], "metadata, sequence header, then the aggregate's three")
        #expect(media.suffix(3).map(\.timestamp) == [40, 50, 73])
    }

    @Test func refusalSeeds() throws {
        #expect(try Self.events("play-not-found") == [.refused(code: "NetStream.Play.StreamNotFound", description: "NetStream.Play.StreamNotFound")])
        #expect(try Self.events("publish-bad-name") == [.refused(code: "NetStream.Publish.BadName", description: "NetStream.Publish.BadName")])
        #expect(try Self.events("connect-rejected") == [.refused(code: "NetConnection.Connect.Rejected", description: "")])
        #expect(try Self.events("publish") == [.ready])
    }
}

