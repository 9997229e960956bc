// NetConnection and NetStream, client side (RTMP specification 1.0, §7.2): publish to or play from a server
// (nginx-rtmp, another Sluice), in the order FFmpeg's and OBS's clients use.
import MediaFormats

/// What a `ClientConnection` asks its owner to do, in order.
public enum ClientAction: Sendable, Equatable {
    /// Write these bytes to the peer.
    case send([UInt8])
    /// Publish: NetStream.Publish.Start arrived. Play: NetStream.Play.Start (or the first media) arrived.
    case ready
    /// Play mode: audio, video or data (@setDataFrame / onMetaData) from the server (aggregates already split).
    case media(Message)
    /// The server refused: an error onStatus or an _error (e.g. NetStream.Publish.BadName).
    case refused(code: String, description: String)
    /// Play mode: the stream ended (NetStream.Play.UnpublishNotify, NetStream.Play.Stop or StreamEOF).
    case streamEnded
}

/// We are the client: pull (play) or publish to a server. Bytes in, actions out; no I/O.
public struct ClientConnection: Sendable {
    /// Whether we send media to the server or receive it.
    public enum Mode: Sendable { case publish, play }

    private enum State: Sendable, Equatable {
        case handshaking, connecting, creatingStream, starting, ready, ended, refused, closed
    }

    /// The flashVer we announce, the one nginx-rtmp and FMS treat as an encoder.
    static let flashVersion = "FMLE/3.0 (compatible; Sluice)"
    /// SetBufferLength sent with play, as FFmpeg does.
    static let playBufferMilliseconds: UInt32 = 3000

    private let mode: Mode
    private let app: String
    private let tcURL: String
    private let streamKey: String
    private let limits: Limits
    private var handshake: ClientHandshake
    private var chunks: ChunkConnection
    private var state = State.handshaking
    private var nextTransactionID: Double = 1
    private var connectTransaction: Double = 0
    private var createStreamTransaction: Double = 0
    private var startTransaction: Double = 0
    private var streamID: UInt32 = 0
    /// What our connect announces (Enhanced RTMP); nil announces nothing.
    private let capabilities: EnhancedCapabilities?
    /// What the server's connect `_result` announced; nil when it announced nothing (or before it answered).
    public private(set) var serverCapabilities: EnhancedCapabilities?

    /// A client for `app` at `tcURL` (e.g. "rtmp://host:1935/live") that publishes or plays `streamKey`.
    /// `random` fills C1's random field (repeated; fresh system random bytes when empty). With `announcesEnhancedRTMP`
    /// the connect command object lists every codec the relay carries (with CanEncode when publishing).
    public init(mode: Mode, app: String, tcURL: String, streamKey: String, limits: Limits = Limits(), epoch: UInt32 = 0,
                random: [UInt8] = [], announcesEnhancedRTMP: Bool = true) {
        self.mode = mode
        capabilities = announcesEnhancedRTMP ? .relay(canEncode: mode == .publish) : nil
        self.app = app
        self.tcURL = tcURL
        self.streamKey = streamKey
        self.limits = limits
        handshake = ClientHandshake(epoch: epoch, random: random.isEmpty ? HandshakeFormat.randomBytes() : random)
        chunks = ChunkConnection(limits: limits)
    }

    /// C0+C1, to write as soon as TCP (or TLS) is up.
    public mutating func start() -> [UInt8] {
        handshake.start()
    }

    /// Publish: NetStream.Publish.Start arrived. Play: playing.
    public var isReady: Bool { state == .ready }

    /// The message stream ID the server gave with createStream (0 before).
    public var messageStreamID: UInt32 { streamID }

    /// Feed bytes as they arrive; returns what to do, in order.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> [ClientAction] {
        var actions = ActionList<ClientAction> { .send($0) }
        var consumed = 0
        if !handshake.isComplete {
            try handshake.receive(bytes, consumed: &consumed, out: &actions.pending)
            if handshake.isComplete { sendConnect(into: &actions.pending) }
        }
        while consumed < bytes.count,
              let message = try chunks.nextMessage(from: bytes, consumed: &consumed, out: &actions.pending) {
            try handle(message, actions: &actions)
        }
        return actions.finish()
    }

    /// Feed bytes as they arrive (an array).
    public mutating func receive(_ bytes: [UInt8]) throws(ProtocolError) -> [ClientAction] {
        let result: Result<[ClientAction], ProtocolError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ProtocolError) -> [ClientAction] in try receive(buffer) }
        }
        return try result.get()
    }

    /// Publish mode, after `.ready`: encodes one audio/video/data message on the published stream, appending its
    /// chunks to `out`. The message's own stream ID is replaced by the published stream's.
    public mutating func encodeMedia(_ message: Message, into out: inout [UInt8]) {
        var message = message
        message.streamID = streamID
        chunks.send(message, on: OutgoingChunkStream.forMedia(message.typeID), into: &out)
    }

    /// Bytes that close politely (FCUnpublish and deleteStream when publishing, deleteStream when playing); may be empty.
    public mutating func close() -> [UInt8] {
        defer { state = .closed }
        guard streamID != 0, state != .closed else { return [] }
        var out: [UInt8] = []
        if mode == .publish {
            sendCommand("FCUnpublish", arguments: [.string(streamKey)], into: &out)
        }
        sendCommand("deleteStream", arguments: [.number(Double(streamID))], into: &out)
        return out
    }

    // MARK: - Commands we send

    private mutating func sendCommand(_ name: String, arguments: [AMF0Value], commandObject: AMF0Value = .null,
                                      streamID: UInt32 = 0, into out: inout [UInt8]) {
        let transactionID = nextTransactionID
        nextTransactionID += 1
        let chunkStreamID = streamID == 0 ? OutgoingChunkStream.netConnection : OutgoingChunkStream.netStream
        chunks.send(Command(name: name, transactionID: transactionID, commandObject: commandObject, arguments: arguments),
                    streamID: streamID, on: chunkStreamID, into: &out)
    }

    private mutating func sendConnect(into out: inout [UInt8]) {
        var properties = [
            AMF0Property("app", .string(app)),
            AMF0Property("type", .string("nonprivate")),
            AMF0Property("flashVer", .string(Self.flashVersion)),
            AMF0Property("tcUrl", .string(tcURL)),
        ]
        if mode == .play {
            // What FFmpeg's player announces; some servers pick codecs from it.
            properties += [
                AMF0Property("fpad", .boolean(false)),
                AMF0Property("capabilities", .number(15)),
                AMF0Property("audioCodecs", .number(4071)),
                AMF0Property("videoCodecs", .number(252)),
                AMF0Property("videoFunction", .number(1)),
            ]
        }
        properties += capabilities?.properties ?? []
        connectTransaction = nextTransactionID
        sendCommand("connect", arguments: [], commandObject: .object(properties), into: &out)
        state = .connecting
    }

    private mutating func connected(into out: inout [UInt8]) {
        chunks.send(ProtocolControl.windowAcknowledgementSize(limits.windowAcknowledgementSize),
                    on: OutgoingChunkStream.control, into: &out)
        chunks.sendChunkSize(into: &out)
        if mode == .publish {
            sendCommand("releaseStream", arguments: [.string(streamKey)], into: &out)
            sendCommand("FCPublish", arguments: [.string(streamKey)], into: &out)
        }
        createStreamTransaction = nextTransactionID
        sendCommand("createStream", arguments: [], into: &out)
        state = .creatingStream
    }

    private mutating func streamCreated(_ id: UInt32, into out: inout [UInt8]) {
        streamID = id
        startTransaction = nextTransactionID
        switch mode {
        case .publish:
            sendCommand("publish", arguments: [.string(streamKey), .string("live")], streamID: id, into: &out)
        case .play:
            // Start -2000: live if there is one, else recorded (FFmpeg's default).
            sendCommand("play", arguments: [.string(streamKey), .number(-2000)], streamID: id, into: &out)
            chunks.send(UserControlEvent.setBufferLength(streamID: id, milliseconds: Self.playBufferMilliseconds).message,
                        on: OutgoingChunkStream.control, into: &out)
        }
        state = .starting
    }

    // MARK: - Messages

    private mutating func handle(_ message: Message, actions: inout ActionList<ClientAction>) throws(ProtocolError) {
        if let event = try chunks.handleControl(message, out: &actions.pending) {
            if case .streamEOF = event { endStream(actions: &actions) }
            return
        }
        switch message.type {
        case .audio, .video, .dataAMF0:
            guard mode == .play, state == .starting || state == .ready, message.streamID == streamID else { return }
            if message.type == .dataAMF0, !Self.isMediaData(message.payload) { return }
            if state == .starting {
                state = .ready
                actions.append(.ready)
            }
            actions.append(.media(message))
        case .aggregate:
            // FMS and Wowza batch media into aggregates; players get the messages inside.
            guard mode == .play, state == .starting || state == .ready, message.streamID == streamID else { return }
            for inner in try AggregateMessage.split(message) {
                switch inner.type {
                case .audio, .video, .dataAMF0: try handle(inner, actions: &actions)
                default: break
                }
            }
        case .commandAMF0, .commandAMF3:
            try handle(Command(parsing: message.payload, typeID: message.typeID), actions: &actions)
        default:
            break
        }
    }

    /// Data messages worth relaying: metadata, not nginx-rtmp's |RtmpSampleAccess or onStatus notifications.
    private static func isMediaData(_ payload: [UInt8]) -> Bool {
        guard let name = StatusInfo.dataName(payload) else { return false }
        return name.elementsEqual("@setDataFrame".utf8) || name.elementsEqual("onMetaData".utf8)
    }

    private mutating func handle(_ command: Command, actions: inout ActionList<ClientAction>) throws(ProtocolError) {
        switch command.name {
        case "_result":
            if state == .connecting, command.transactionID == connectTransaction {
                let announced = EnhancedCapabilities(properties: command.commandObject)
                serverCapabilities = announced.announcesCodecs || announced.capsEx != nil ? announced : nil
                connected(into: &actions.pending)
            } else if state == .creatingStream, command.transactionID == createStreamTransaction {
                guard let number = command.arguments.first?.numberValue, number >= 1, number <= Double(UInt32.max),
                      number == number.rounded() else {
                    throw ProtocolError(.malformedMessage, "createStream _result without a valid message stream ID")
                }
                streamCreated(UInt32(number), into: &actions.pending)
            }
        case "_error":
            // releaseStream / FCPublish errors do not matter (nginx-rtmp does not even answer them).
            let transaction = command.transactionID
            guard transaction == connectTransaction || transaction == createStreamTransaction || transaction == startTransaction else { return }
            refuse(command, defaultCode: "NetConnection.Call.Failed", actions: &actions)
        case "onStatus":
            let level = command.infoString("level") ?? ""
            let code = command.infoString("code") ?? ""
            if level == "error" {
                refuse(command, defaultCode: "NetStream.Failed", actions: &actions)
            } else if code == "NetStream.Publish.Start" && mode == .publish || code == "NetStream.Play.Start" && mode == .play {
                if state == .starting {
                    state = .ready
                    actions.append(.ready)
                }
            } else if mode == .play, code == "NetStream.Play.UnpublishNotify" || code == "NetStream.Play.Stop" {
                endStream(actions: &actions)
            }
        default:
            guard command.transactionID > 0, !command.name.hasPrefix("_"), !command.name.hasPrefix("on") else { return }
            let information = StatusInfo.object(level: "error", code: "NetConnection.Call.Failed", description: "Method not found.")
            chunks.send(Command(name: "_error", transactionID: command.transactionID, arguments: [information]),
                        on: OutgoingChunkStream.netConnection, into: &actions.pending)
        }
    }

    private mutating func refuse(_ command: Command, defaultCode: String, actions: inout ActionList<ClientAction>) {
        guard state != .refused, state != .closed else { return }
        state = .refused
        actions.append(.refused(code: command.infoString("code") ?? defaultCode,
                                description: command.infoString("description") ?? ""))
    }

    private mutating func endStream(actions: inout ActionList<ClientAction>) {
        guard mode == .play, state == .ready else { return }
        state = .ended
        actions.append(.streamEnded)
    }
}
