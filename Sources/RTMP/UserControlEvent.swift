// RTMP specification 1.0, §6.2 (and §7.1.7): User Control Message events, message type 4 on message stream 0.
import MediaFormats

/// One User Control Message event: a 2-byte event type, then its data.
public enum UserControlEvent: Sendable, Equatable {
    /// StreamBegin (0): the stream is ready for use.
    case streamBegin(streamID: UInt32)
    /// StreamEOF (1): playback of the stream is over.
    case streamEOF(streamID: UInt32)
    /// StreamDry (2): no more data on the stream for now.
    case streamDry(streamID: UInt32)
    /// SetBufferLength (3): the client's buffer in milliseconds.
    case setBufferLength(streamID: UInt32, milliseconds: UInt32)
    /// StreamIsRecorded (4).
    case streamIsRecorded(streamID: UInt32)
    /// PingRequest (6): the peer's timestamp, to echo in a PingResponse.
    case pingRequest(timestamp: UInt32)
    /// PingResponse (7).
    case pingResponse(timestamp: UInt32)
    /// An event type this implementation does not interpret.
    case unknown(eventType: UInt16)

    /// Parses the payload of a User Control Message.
    public init(parsing payload: [UInt8]) throws(ProtocolError) {
        guard payload.count >= 2 else {
            throw ProtocolError(.malformedMessage, "User Control Message of \(payload.count) bytes")
        }
        let eventType = UInt16(payload[0]) << 8 | UInt16(payload[1])
        func value(_ offset: Int) throws(ProtocolError) -> UInt32 {
            guard let value = payload.uint32BE(at: offset) else {
                throw ProtocolError(.malformedMessage, "User Control Message event \(eventType) of \(payload.count) bytes")
            }
            return value
        }
        switch eventType {
        case 0: self = .streamBegin(streamID: try value(2))
        case 1: self = .streamEOF(streamID: try value(2))
        case 2: self = .streamDry(streamID: try value(2))
        case 3: self = .setBufferLength(streamID: try value(2), milliseconds: try value(6))
        case 4: self = .streamIsRecorded(streamID: try value(2))
        case 6: self = .pingRequest(timestamp: try value(2))
        case 7: self = .pingResponse(timestamp: try value(2))
        default: self = .unknown(eventType: eventType)
        }
    }

    /// The User Control Message carrying this event.
    public var message: Message {
        var payload: [UInt8] = []
        func put(_ type: UInt16, _ values: UInt32...) {
            payload.append(UInt8(truncatingIfNeeded: type >> 8))
            payload.append(UInt8(truncatingIfNeeded: type))
            for value in values { payload.appendUInt32(value) }
        }
        switch self {
        case let .streamBegin(id): put(0, id)
        case let .streamEOF(id): put(1, id)
        case let .streamDry(id): put(2, id)
        case let .setBufferLength(id, milliseconds): put(3, id, milliseconds)
        case let .streamIsRecorded(id): put(4, id)
        case let .pingRequest(timestamp): put(6, timestamp)
        case let .pingResponse(timestamp): put(7, timestamp)
        case let .unknown(type): put(type)
        }
        return Message(type: .userControl, payload: payload)
    }
}
