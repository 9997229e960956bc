// What both roles share once the handshake is done: the chunk stream in both directions, the acknowledgement
// window, and the protocol control messages and User Control events every peer must answer.
import MediaFormats

/// Chunk stream IDs we send on, as nginx-rtmp assigns them.
enum OutgoingChunkStream {
    /// Protocol control and User Control Messages (§5.4, §6.2).
    static let control: UInt32 = 2
    /// NetConnection commands (connect, createStream, their _result).
    static let netConnection: UInt32 = 3
    /// NetStream commands and data messages (publish, play, onStatus, @setDataFrame).
    static let netStream: UInt32 = 5
    static let audio: UInt32 = 6
    static let video: UInt32 = 7

    static func forMedia(_ typeID: UInt8) -> UInt32 {
        switch MessageType(rawValue: typeID) {
        case .audio: return audio
        case .video: return video
        default: return netStream
        }
    }
}

/// The chunk-level state of one connection after the handshake.
struct ChunkConnection: Sendable {
    var decoder: ChunkDecoder
    var encoder = ChunkEncoder()
    var window = AcknowledgementWindow()
    let limits: Limits

    init(limits: Limits) {
        self.limits = limits
        decoder = ChunkDecoder(limits: limits)
    }

    /// The next complete message in `bytes[consumed...]`, sending an Acknowledgement to `out` exactly where the
    /// peer's window is reached (so the result does not depend on how the input was split).
    mutating func nextMessage(from bytes: UnsafeRawBufferPointer, consumed: inout Int, out: inout [UInt8]) throws(ProtocolError) -> Message? {
        while consumed < bytes.count {
            let limit = window.bytesUntilAcknowledgement(available: bytes.count - consumed)
            var used = 0
            let message = try decoder.nextMessage(
                from: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + limit)]), consumed: &used)
            consumed += used
            if let sequenceNumber = window.received(used) {
                send(ProtocolControl.acknowledgement(sequenceNumber: sequenceNumber), on: OutgoingChunkStream.control, into: &out)
            }
            if let message { return message }
        }
        return nil
    }

    mutating func send(_ message: Message, on chunkStreamID: UInt32, into out: inout [UInt8]) {
        encoder.encode(message, chunkStreamID: chunkStreamID, into: &out)
    }

    mutating func send(_ command: Command, streamID: UInt32 = 0, on chunkStreamID: UInt32, into out: inout [UInt8]) {
        encoder.encode(command.message(streamID: streamID), chunkStreamID: chunkStreamID, into: &out)
    }

    /// Announces and switches to our outgoing chunk size.
    mutating func sendChunkSize(into out: inout [UInt8]) {
        let size = min(max(limits.outgoingChunkSize, 1), Int(Int32.max))
        send(ProtocolControl.setChunkSize(size), on: OutgoingChunkStream.control, into: &out)
        encoder.setChunkSize(size)
    }

    /// Applies a protocol control message or answers a User Control event. Returns the event for the role to
    /// look at, or nil when the message is not a control message.
    mutating func handleControl(_ message: Message, out: inout [UInt8]) throws(ProtocolError) -> UserControlEvent?? {
        switch message.type {
        case .setChunkSize, .abort, .acknowledgement, .setPeerBandwidth:
            // Chunk size and abort were applied by the decoder; our own sending is not throttled by the peer.
            return .some(nil)
        case .windowAcknowledgementSize:
            window.windowSize = try ProtocolControl.parseUInt32(message)
            return .some(nil)
        case .userControl:
            let event = try UserControlEvent(parsing: message.payload)
            if case let .pingRequest(timestamp) = event {
                send(UserControlEvent.pingResponse(timestamp: timestamp).message, on: OutgoingChunkStream.control, into: &out)
            }
            return .some(event)
        default:
            return nil
        }
    }
}

/// onStatus / _result info objects (NetConnection and NetStream status, §7.2).
enum StatusInfo {
    static func object(level: String, code: String, description: String) -> AMF0Value {
        .object([
            AMF0Property("level", .string(level)),
            AMF0Property("code", .string(code)),
            AMF0Property("description", .string(description)),
        ])
    }

    /// The name of an AMF0 data message (type 18), read without decoding the rest.
    static func dataName(_ payload: [UInt8]) -> Substring.UTF8View? {
        guard payload.count >= 3, payload[0] == AMF0Marker.string else { return nil }
        let length = Int(payload[1]) << 8 | Int(payload[2])
        guard payload.count >= 3 + length else { return nil }
        return Substring(decoding: payload[3..<(3 + length)], as: UTF8.self).utf8
    }
}

/// Collects outgoing bytes and actions in order: bytes written in a row become one `.send`.
struct ActionList<Action> {
    var actions: [Action] = []
    var pending: [UInt8] = []
    let makeSend: ([UInt8]) -> Action

    init(_ makeSend: @escaping ([UInt8]) -> Action) { self.makeSend = makeSend }

    mutating func append(_ action: Action) {
        flush()
        actions.append(action)
    }

    mutating func flush() {
        guard !pending.isEmpty else { return }
        actions.append(makeSend(pending))
        pending = []
    }

    mutating func finish() -> [Action] {
        flush()
        return actions
    }
}
