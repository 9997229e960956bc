// NetConnection and NetStream, server side (RTMP specification 1.0, §7.2), answering a publisher the way
// nginx-rtmp does: connect, releaseStream, FCPublish, createStream, publish, FCUnpublish, deleteStream.
import MediaFormats

/// What a `ServerConnection` asks its owner to do, in order.
public enum ServerAction: Sendable, Equatable {
    /// Write these bytes to the peer.
    case send([UInt8])
    /// The peer asked to publish `streamKey` in application `app`: answer with `acceptPublish` or `refusePublish`.
    /// Bytes after the publish command are held meanwhile and read by `acceptPublish` (its actions include them).
    case publishRequested(app: String, streamKey: String)
    /// Audio (8), video (9) or AMF0 data (18, e.g. @setDataFrame onMetaData) of the published stream.
    case media(Message)
    /// The publisher stopped (FCUnpublish, deleteStream or closeStream).
    case unpublished
    /// A connection made with `servesPlayers` asked to play `streamKey` in `app`: answer with `acceptPlay`, then send
    /// the stream with `encodeMedia` and end it with `endPlay`.
    case playRequested(app: String, streamKey: String)
}

/// We are the server: one accepted connection from a publisher (ffmpeg, OBS), or, when made with `servesPlayers`, from
/// a player (a test origin). Bytes in, actions out; no I/O.
public struct ServerConnection: Sendable {
    private enum PublishState: Sendable, Equatable {
        case idle
        case requested(streamID: UInt32)
        case publishing(streamID: UInt32)
        case refused
    }

    /// The message stream ID createStream hands out (one stream per connection, as nginx-rtmp does).
    static let publishedStreamID: UInt32 = 1

    private var handshake: ServerHandshake
    private var chunks: ChunkConnection
    private let limits: Limits
    private var app: String?
    private var publishState = PublishState.idle
    /// Bytes that arrived after publish while the owner decides: a publisher that does not wait for
    /// NetStream.Publish.Start must not lose its metadata and sequence headers.
    private var held: [UInt8] = []
    /// An error found in `held` bytes during `acceptPublish`, thrown by the next `receive`.
    private var deferredError: ProtocolError?
    /// What the connect `_result` announces (Enhanced RTMP): publishers such as OBS and FFmpeg send HEVC, AV1 and
    /// Opus only to a server that lists them.
    private let capabilities: EnhancedCapabilities?
    /// What the publisher's connect announced (nil when it announced nothing, or before connect).
    public private(set) var peerCapabilities: EnhancedCapabilities?
    /// Whether `play` is answered (`.playRequested`); otherwise it gets `_error` like any unknown call.
    private let servesPlayers: Bool
    /// The message stream a player asked to play on (0 before play).
    private var playStreamID: UInt32 = 0

    /// A connection enforcing `limits`; `epoch` is the time field of S1/S2; `random` fills S1's random field
    /// (repeated; fresh system random bytes when empty); `capabilities` are announced in the connect `_result`
    /// (nil: a legacy answer without Enhanced RTMP properties).
    public init(limits: Limits = Limits(), epoch: UInt32 = 0, random: [UInt8] = [],
                capabilities: EnhancedCapabilities? = .relay(), servesPlayers: Bool = false) {
        self.limits = limits
        self.capabilities = capabilities
        self.servesPlayers = servesPlayers
        handshake = ServerHandshake(epoch: epoch, random: random.isEmpty ? HandshakeFormat.randomBytes() : random)
        chunks = ChunkConnection(limits: limits)
    }

    /// Whether C0, C1 and C2 have all arrived.
    public var isHandshakeComplete: Bool { handshake.isComplete }

    /// Whether a publish was accepted and has not ended.
    public var isPublishing: Bool {
        if case .publishing = publishState { return true }
        return false
    }

    /// Feed bytes as they arrive; returns what to do, in order.
    /// After a `.publishRequested`, later bytes are held (not read) until `acceptPublish` or `refusePublish`.
    /// A protocol error in held bytes, found while `acceptPublish` reads them, is thrown here next (even for empty input).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> [ServerAction] {
        if let deferredError {
            self.deferredError = nil
            throw deferredError
        }
        if case .requested = publishState {
            try hold(bytes[...])
            return []
        }
        var actions = ActionList<ServerAction> { .send($0) }
        var consumed = 0
        if !handshake.isComplete {
            try handshake.receive(bytes, consumed: &consumed, out: &actions.pending)
        }
        while consumed < bytes.count,
              let message = try chunks.nextMessage(from: bytes, consumed: &consumed, out: &actions.pending) {
            try handle(message, actions: &actions)
            if case .requested = publishState {
                try hold(bytes[consumed...])
                break
            }
        }
        return actions.finish()
    }

    private mutating func hold(_ bytes: Slice<UnsafeRawBufferPointer>) throws(ProtocolError) {
        guard held.count + bytes.count <= limits.maxMessageLength else {
            throw ProtocolError(.unexpectedCommand, "more than \(limits.maxMessageLength) bytes sent before the publish was answered")
        }
        held.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes))
    }

    /// Feed bytes as they arrive (an array).
    public mutating func receive(_ bytes: [UInt8]) throws(ProtocolError) -> [ServerAction] {
        let result: Result<[ServerAction], ProtocolError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ProtocolError) -> [ServerAction] in try receive(buffer) }
        }
        return try result.get()
    }

    /// Answer a `.publishRequested`: StreamBegin, then onStatus NetStream.Publish.Start.
    public mutating func acceptPublish() -> [ServerAction] {
        guard case let .requested(streamID) = publishState else { return [] }
        publishState = .publishing(streamID: streamID)
        var out: [UInt8] = []
        chunks.send(UserControlEvent.streamBegin(streamID: streamID).message, on: OutgoingChunkStream.control, into: &out)
        let status = StatusInfo.object(level: "status", code: "NetStream.Publish.Start", description: "Start publishing")
        chunks.send(Command(name: "onStatus", transactionID: 0, arguments: [status]), streamID: streamID,
                    on: OutgoingChunkStream.netStream, into: &out)
        var actions: [ServerAction] = [.send(out)]
        guard !held.isEmpty else { return actions }
        var bytes: [UInt8] = []
        swap(&bytes, &held)
        do {
            actions += try receive(bytes)
        } catch {
            // acceptPublish cannot throw (the owner answers outside its read path): the next receive does.
            deferredError = error
        }
        return mergingSends(actions)
    }

    private func mergingSends(_ actions: [ServerAction]) -> [ServerAction] {
        var merged: [ServerAction] = []
        merged.reserveCapacity(actions.count)
        for action in actions {
            if case let .send(bytes) = action, case let .send(previous)? = merged.last {
                merged[merged.count - 1] = .send(previous + bytes)
            } else {
                merged.append(action)
            }
        }
        return merged
    }

    /// Refuse it: onStatus level "error" with `code` (e.g. "NetStream.Publish.BadName"); the caller then closes.
    public mutating func refusePublish(code: String, description: String) -> [ServerAction] {
        guard case let .requested(streamID) = publishState else { return [] }
        publishState = .refused
        // The refused publisher's held media is dropped with it.
        held = []
        var out: [UInt8] = []
        let status = StatusInfo.object(level: "error", code: code, description: description)
        chunks.send(Command(name: "onStatus", transactionID: 0, arguments: [status]), streamID: streamID,
                    on: OutgoingChunkStream.netStream, into: &out)
        return [.send(out)]
    }

    // MARK: - Play (servesPlayers)

    /// Answers a `.playRequested`: StreamBegin, then onStatus NetStream.Play.Reset and NetStream.Play.Start.
    public mutating func acceptPlay() -> [ServerAction] {
        guard playStreamID != 0 else { return [] }
        var out: [UInt8] = []
        chunks.send(UserControlEvent.streamBegin(streamID: playStreamID).message, on: OutgoingChunkStream.control, into: &out)
        for (code, description) in [("NetStream.Play.Reset", "Playing and resetting"), ("NetStream.Play.Start", "Started playing")] {
            let status = StatusInfo.object(level: "status", code: code, description: description)
            chunks.send(Command(name: "onStatus", transactionID: 0, arguments: [status]), streamID: playStreamID,
                        on: OutgoingChunkStream.netStream, into: &out)
        }
        return [.send(out)]
    }

    /// After `acceptPlay`: encodes one audio, video or data message on the played stream, appending its chunks to `out`.
    public mutating func encodeMedia(_ message: Message, into out: inout [UInt8]) {
        guard playStreamID != 0 else { return }
        var message = message
        message.streamID = playStreamID
        chunks.send(message, on: OutgoingChunkStream.forMedia(message.typeID), into: &out)
    }

    /// Ends the played stream: StreamEOF and onStatus NetStream.Play.UnpublishNotify (what nginx-rtmp sends).
    public mutating func endPlay() -> [UInt8] {
        guard playStreamID != 0 else { return [] }
        var out: [UInt8] = []
        chunks.send(UserControlEvent.streamEOF(streamID: playStreamID).message, on: OutgoingChunkStream.control, into: &out)
        let status = StatusInfo.object(level: "status", code: "NetStream.Play.UnpublishNotify", description: "Stream ended")
        chunks.send(Command(name: "onStatus", transactionID: 0, arguments: [status]), streamID: playStreamID,
                    on: OutgoingChunkStream.netStream, into: &out)
        return out
    }

    // MARK: - Messages

    private mutating func handle(_ message: Message, actions: inout ActionList<ServerAction>) throws(ProtocolError) {
        if try chunks.handleControl(message, out: &actions.pending) != nil { return }
        switch message.type {
        case .audio, .video, .dataAMF0:
            // Media before publish start, or on another message stream, is ignored (not an error).
            if case let .publishing(streamID) = publishState, message.streamID == streamID {
                actions.append(.media(message))
            }
        case .commandAMF0, .commandAMF3:
            try handle(Command(parsing: message.payload, typeID: message.typeID), streamID: message.streamID, actions: &actions)
        default:
            // Unknown and unsupported message types (shared objects, AMF3 data, aggregate) are ignored.
            break
        }
    }

    private mutating func handle(_ command: Command, streamID: UInt32, actions: inout ActionList<ServerAction>) throws(ProtocolError) {
        switch command.name {
        case "connect":
            guard app == nil else { throw ProtocolError(.unexpectedCommand, "a second connect on one connection") }
            var name = command.commandObject["app"]?.stringValue ?? ""
            while name.hasSuffix("/") { name.removeLast() }
            app = name
            let announced = EnhancedCapabilities(properties: command.commandObject)
            peerCapabilities = announced.announcesCodecs || announced.capsEx != nil ? announced : nil
            chunks.send(ProtocolControl.windowAcknowledgementSize(limits.windowAcknowledgementSize),
                        on: OutgoingChunkStream.control, into: &actions.pending)
            chunks.send(ProtocolControl.setPeerBandwidth(limits.windowAcknowledgementSize, limitType: .dynamic),
                        on: OutgoingChunkStream.control, into: &actions.pending)
            chunks.sendChunkSize(into: &actions.pending)
            let properties = AMF0Value.object([
                AMF0Property("fmsVer", .string("FMS/3,0,1,123")),
                AMF0Property("capabilities", .number(31)),
            ] + (capabilities?.properties ?? []))
            let information = AMF0Value.object([
                AMF0Property("level", .string("status")),
                AMF0Property("code", .string("NetConnection.Connect.Success")),
                AMF0Property("description", .string("Connection succeeded.")),
                AMF0Property("objectEncoding", .number(0)),
            ])
            reply(Command(name: "_result", transactionID: command.transactionID, commandObject: properties,
                          arguments: [information]), to: streamID, actions: &actions)
        case "releaseStream", "FCPublish":
            if command.transactionID > 0 {
                reply(Command(name: "_result", transactionID: command.transactionID, arguments: [.undefined]), to: streamID, actions: &actions)
            }
        case "createStream":
            reply(Command(name: "_result", transactionID: command.transactionID,
                          arguments: [.number(Double(Self.publishedStreamID))]), to: streamID, actions: &actions)
        case "publish":
            guard let app else { throw ProtocolError(.unexpectedCommand, "publish before connect") }
            guard publishState == .idle else { throw ProtocolError(.unexpectedCommand, "a second publish on one connection") }
            guard let key = command.arguments.first?.stringValue else {
                throw ProtocolError(.malformedMessage, "publish without a stream name")
            }
            let publishStreamID = streamID == 0 ? Self.publishedStreamID : streamID
            publishState = .requested(streamID: publishStreamID)
            actions.append(.publishRequested(app: app, streamKey: key))
        case "play" where servesPlayers:
            guard let app else { throw ProtocolError(.unexpectedCommand, "play before connect") }
            guard playStreamID == 0, publishState == .idle else { throw ProtocolError(.unexpectedCommand, "a second play on one connection") }
            guard let key = command.arguments.first?.stringValue else {
                throw ProtocolError(.malformedMessage, "play without a stream name")
            }
            playStreamID = streamID == 0 ? Self.publishedStreamID : streamID
            actions.append(.playRequested(app: app, streamKey: key))
        case "FCUnpublish", "deleteStream", "closeStream":
            if command.name == "FCUnpublish", command.transactionID > 0 {
                reply(Command(name: "_result", transactionID: command.transactionID, arguments: [.undefined]), to: streamID, actions: &actions)
            }
            switch publishState {
            case .publishing, .requested:
                publishState = .idle
                actions.append(.unpublished)
            case .idle, .refused:
                break
            }
        default:
            // Answers and notifications (_result, onBWDone...) need no reply; other calls get _error when they ask for one.
            guard command.transactionID > 0, !command.name.hasPrefix("_"), !command.name.hasPrefix("on") else { return }
            let information = StatusInfo.object(level: "error", code: "NetConnection.Call.Failed",
                                                description: "Method not found.")
            reply(Command(name: "_error", transactionID: command.transactionID, arguments: [information]), to: streamID, actions: &actions)
        }
    }

    private mutating func reply(_ command: Command, to streamID: UInt32, actions: inout ActionList<ServerAction>) {
        let chunkStreamID = streamID == 0 ? OutgoingChunkStream.netConnection : OutgoingChunkStream.netStream
        chunks.send(command, streamID: streamID, on: chunkStreamID, into: &actions.pending)
    }
}
