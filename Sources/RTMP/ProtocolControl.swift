// RTMP specification 1.0, §5.4: protocol control messages, sent on chunk stream 2, message stream 0.
import MediaFormats

/// Set Peer Bandwidth limit type (§5.4.5).
public enum PeerBandwidthLimitType: UInt8, Sendable {
    case hard = 0
    case soft = 1
    case dynamic = 2
}

/// Builds and parses protocol control messages (§5.4.1–§5.4.5).
public enum ProtocolControl {
    /// Chunk stream ID reserved for protocol control messages (§5.4).
    public static let chunkStreamID: UInt32 = 2

    /// Set Chunk Size (§5.4.1): 1 bit zero, 31 bits chunk size.
    public static func setChunkSize(_ size: Int) -> Message {
        var payload: [UInt8] = []
        payload.appendUInt32(UInt32(truncatingIfNeeded: size) & 0x7FFF_FFFF)
        return Message(type: .setChunkSize, payload: payload)
    }

    /// Abort Message (§5.4.2): the chunk stream whose partial message the receiver drops.
    public static func abort(chunkStreamID: UInt32) -> Message {
        var payload: [UInt8] = []
        payload.appendUInt32(chunkStreamID)
        return Message(type: .abort, payload: payload)
    }

    /// Acknowledgement (§5.4.3): bytes received so far, modulo 2^32.
    public static func acknowledgement(sequenceNumber: UInt32) -> Message {
        var payload: [UInt8] = []
        payload.appendUInt32(sequenceNumber)
        return Message(type: .acknowledgement, payload: payload)
    }

    /// Window Acknowledgement Size (§5.4.4).
    public static func windowAcknowledgementSize(_ size: UInt32) -> Message {
        var payload: [UInt8] = []
        payload.appendUInt32(size)
        return Message(type: .windowAcknowledgementSize, payload: payload)
    }

    /// Set Peer Bandwidth (§5.4.5): window size, then the limit type.
    public static func setPeerBandwidth(_ size: UInt32, limitType: PeerBandwidthLimitType) -> Message {
        var payload: [UInt8] = []
        payload.appendUInt32(size)
        payload.append(limitType.rawValue)
        return Message(type: .setPeerBandwidth, payload: payload)
    }

    /// The chunk size of a Set Chunk Size payload, refused when 0, with the top bit set, or above the limit.
    public static func parseChunkSize(_ payload: [UInt8], limits: Limits) throws(ProtocolError) -> Int {
        guard let value = payload.uint32BE(at: 0) else {
            throw ProtocolError(.malformedMessage, "Set Chunk Size of \(payload.count) bytes, expected 4")
        }
        guard value & 0x8000_0000 == 0 else {
            throw ProtocolError(.invalidChunkSize, "Set Chunk Size \(value) has its top bit set")
        }
        guard value > 0, Int(value) <= limits.maxChunkSize else {
            throw ProtocolError(.invalidChunkSize, "Set Chunk Size \(value) is outside 1...\(limits.maxChunkSize)")
        }
        return Int(value)
    }

    /// The 4-byte value of an Acknowledgement or Window Acknowledgement Size (or the size of Set Peer Bandwidth).
    public static func parseUInt32(_ message: Message) throws(ProtocolError) -> UInt32 {
        guard let value = message.payload.uint32BE(at: 0) else {
            throw ProtocolError(.malformedMessage, "message type \(message.typeID) of \(message.payload.count) bytes, expected at least 4")
        }
        return value
    }
}
