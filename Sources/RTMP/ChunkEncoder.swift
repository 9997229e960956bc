// RTMP specification 1.0, §5.3: splits messages into chunks, compressing chunk message headers (type 0 first,
// then 1, 2 or 3 when fields repeat) and writing extended timestamps (§5.3.1.3) on every chunk that needs one.
import MediaFormats

/// The sending half of a chunk stream. Keeps, per chunk stream ID, the last header sent, and appends chunks to a
/// caller's buffer without allocating anything else.
public struct ChunkEncoder: Sendable {
    private struct OutgoingChunkStream: Sendable {
        var id: UInt32
        var timestamp: UInt32
        var timestampField: UInt32
        var hasDelta: Bool
        var length: Int
        var typeID: UInt8
        var streamID: UInt32
    }

    /// The chunk size we send with (announce it with Set Chunk Size before changing it).
    public private(set) var chunkSize = ChunkFormat.defaultChunkSize
    private var streams: [OutgoingChunkStream] = []

    /// An encoder at the default chunk size of 128.
    public init() {}

    /// Sends later chunks at `size` bytes (1...2^31−1); the caller has sent Set Chunk Size already.
    public mutating func setChunkSize(_ size: Int) {
        chunkSize = min(max(size, 1), Int(Int32.max))
    }

    /// Appends `message` as chunks on chunk stream `chunkStreamID` (2...65599).
    public mutating func encode(_ message: Message, chunkStreamID: UInt32, into out: inout [UInt8]) {
        let id = min(max(chunkStreamID, 2), ChunkFormat.largestID)
        let length = message.payload.count
        var type: UInt8 = 0
        var field = message.timestamp
        var slot: Int? = nil
        for index in streams.indices where streams[index].id == id { slot = index; break }
        if let slot {
            let previous = streams[slot]
            let delta = message.timestamp &- previous.timestamp
            // A backwards timestamp (delta "negative" as Int32) starts over with an absolute type 0 header.
            if previous.streamID == message.streamID, Int32(bitPattern: delta) >= 0 {
                field = delta
                if previous.length != length || previous.typeID != message.typeID {
                    type = 1
                } else if previous.hasDelta, previous.timestampField == delta {
                    type = 3
                } else {
                    type = 2
                }
            }
            streams[slot].timestamp = message.timestamp
            streams[slot].timestampField = field
            streams[slot].hasDelta = type != 0
            streams[slot].length = length
            streams[slot].typeID = message.typeID
            streams[slot].streamID = message.streamID
        } else {
            streams.append(OutgoingChunkStream(
                id: id, timestamp: message.timestamp, timestampField: field, hasDelta: false,
                length: length, typeID: message.typeID, streamID: message.streamID))
        }
        let extended = field >= ChunkFormat.extendedTimestampMarker
        // Geometric growth: reserving the exact size on every call would copy `out` once per message.
        let needed = out.count + length + (length / chunkSize + 1) * 8 + 16
        if out.capacity < needed { out.reserveCapacity(max(needed, out.capacity * 2)) }
        ChunkFormat.appendBasicHeader(type: type, chunkStreamID: id, into: &out)
        if type <= 2 { out.appendUInt24(extended ? ChunkFormat.extendedTimestampMarker : field) }
        if type <= 1 {
            // Lengths beyond 24 bits cannot be expressed; callers keep messages under Limits.maxMessageLength.
            out.appendUInt24(UInt32(truncatingIfNeeded: length))
            out.append(message.typeID)
        }
        if type == 0 { out.appendUInt32LE(message.streamID) }
        if extended { out.appendUInt32(field) }
        var offset = 0
        repeat {
            let end = min(offset + chunkSize, length)
            out.append(contentsOf: message.payload[offset..<end])
            offset = end
            if offset < length {
                ChunkFormat.appendBasicHeader(type: 3, chunkStreamID: id, into: &out)
                // Continuation chunks repeat the extended timestamp, as FFmpeg and Flash expect.
                if extended { out.appendUInt32(field) }
            }
        } while offset < length
    }
}
