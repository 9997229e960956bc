// RTMP specification 1.0, §7.1.6: an aggregate message (type 22) carries sub-messages, each laid out as an FLV
// tag (type, 24-bit size, timestamp with its extension byte, 24-bit stream ID, data) plus a 4-byte back pointer.

/// Splits aggregate messages into the audio, video and data messages they carry.
public enum AggregateMessage {
    /// Sub-message header: 1 type + 3 size + 3 timestamp + 1 timestamp extension + 3 stream ID.
    static let headerSize = 11
    /// The back pointer (previous tag size) after each sub-message.
    static let backPointerSize = 4

    /// The sub-messages of `message`, on its message stream, with timestamps moved so that the first one has the
    /// aggregate's own timestamp (§7.1.6). Throws on a sub-message that runs past the end.
    public static func split(_ message: Message) throws(ProtocolError) -> [Message] {
        let payload = message.payload
        var messages: [Message] = []
        var offset = 0
        var firstTimestamp: UInt32?
        while offset < payload.count {
            guard payload.count - offset >= headerSize else {
                throw ProtocolError(.malformedMessage, "aggregate message: \(payload.count - offset) bytes left, short of a sub-message header")
            }
            let typeID = payload[offset]
            let size = Int(payload[offset + 1]) << 16 | Int(payload[offset + 2]) << 8 | Int(payload[offset + 3])
            // Timestamp: lower 24 bits, then the extension byte as the upper 8 (as in FLV).
            let timestamp = UInt32(payload[offset + 7]) << 24 | UInt32(payload[offset + 4]) << 16
                | UInt32(payload[offset + 5]) << 8 | UInt32(payload[offset + 6])
            let start = offset + headerSize
            guard payload.count - start >= size else {
                throw ProtocolError(.malformedMessage, "aggregate message: a \(size)-byte sub-message with \(payload.count - start) bytes left")
            }
            let base = firstTimestamp ?? timestamp
            firstTimestamp = base
            messages.append(Message(
                typeID: typeID, timestamp: message.timestamp &+ (timestamp &- base), streamID: message.streamID,
                payload: Array(payload[start..<(start + size)])))
            // The back pointer is optional after the last sub-message.
            offset = min(payload.count, start + size + backPointerSize)
        }
        return messages
    }
}
