// RTMP specification 1.0, §5.3: reassembles messages from chunks, applying Set Chunk Size (§5.4.1) and
// Abort Message (§5.4.2) as they complete.
import MediaFormats

/// The receiving half of a chunk stream: bytes in, complete messages out. Incremental: a header or payload
/// split across calls is resumed; each payload byte is copied once, from the input into the message's array.
public struct ChunkDecoder: Sendable {
    /// What one chunk stream remembers from its previous chunk message header (§5.3.1.2).
    private struct IncomingChunkStream: Sendable {
        var id: UInt32
        var timestamp: UInt32 = 0
        /// The timestamp field (delta, or absolute for type 0) of the last type 0/1/2 header, reused by type 3.
        var timestampField: UInt32 = 0
        var hasExtendedTimestamp = false
        var length = 0
        var typeID: UInt8 = 0
        var streamID: UInt32 = 0
        var payload: [UInt8] = []
        var inMessage = false
    }

    private let limits: Limits
    /// The peer's chunk size, from its last Set Chunk Size.
    public private(set) var chunkSize = ChunkFormat.defaultChunkSize
    private var streams: [IncomingChunkStream] = []
    /// A chunk header split across calls (never more than `ChunkFormat.maxHeaderLength` bytes).
    private var headerBytes: [UInt8] = []
    /// The chunk stream whose chunk payload is being read, and how many bytes of that chunk are still due.
    private var current = 0
    private var chunkRemaining = 0
    /// Payload bytes of unfinished messages on all chunk streams together (bounded by `Limits.maxPendingBytes`).
    private var pendingBytes = 0

    /// A decoder enforcing `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Consumes bytes from `bytes[consumed...]` until one message completes (returned) or the input runs out (nil).
    /// Set Chunk Size and Abort Message are applied before they are returned.
    public mutating func nextMessage(from bytes: UnsafeRawBufferPointer, consumed: inout Int) throws(ProtocolError) -> Message? {
        let count = bytes.count
        while consumed < count {
            if chunkRemaining > 0 {
                let take = min(chunkRemaining, count - consumed)
                pendingBytes += take
                guard pendingBytes <= limits.maxPendingBytes else {
                    throw ProtocolError(.messageTooLong, "unfinished messages hold more than \(limits.maxPendingBytes) bytes across chunk streams")
                }
                streams[current].payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + take)]))
                consumed += take
                chunkRemaining -= take
                if chunkRemaining == 0, let message = try finishChunk() { return message }
                continue
            }
            if headerBytes.isEmpty, count - consumed >= ChunkFormat.maxHeaderLength {
                guard let length = try parseHeader(UnsafeRawBufferPointer(rebasing: bytes[consumed...]), available: count - consumed) else {
                    // Unreachable: maxHeaderLength bytes always hold a whole header.
                    throw ProtocolError(.malformedChunk, "chunk header longer than \(ChunkFormat.maxHeaderLength) bytes")
                }
                consumed += length
            } else {
                let carried = headerBytes.count
                let take = min(ChunkFormat.maxHeaderLength - carried, count - consumed)
                headerBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + take)]))
                let remainingAfter = count - consumed - take
                // Moved out while parsing (parseHeader mutates self), moved back after: no copy of the bytes.
                var header: [UInt8] = []
                swap(&header, &headerBytes)
                let result: Result<Int?, ProtocolError> = header.withUnsafeBytes { buffer in
                    Result { () throws(ProtocolError) -> Int? in try parseHeader(buffer, available: buffer.count + remainingAfter) }
                }
                swap(&header, &headerBytes)
                let parsed = try result.get()
                guard let length = parsed else {
                    consumed += take
                    continue
                }
                consumed += length - carried
                headerBytes.removeAll(keepingCapacity: true)
            }
            if chunkRemaining == 0, let message = try finishChunk() { return message }
        }
        return nil
    }

    /// Decodes every message `bytes` completes.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> [Message] {
        var consumed = 0
        var messages: [Message] = []
        while let message = try nextMessage(from: bytes, consumed: &consumed) { messages.append(message) }
        return messages
    }

    /// Decodes every message `bytes` completes.
    public mutating func decode(_ bytes: [UInt8]) throws(ProtocolError) -> [Message] {
        let result: Result<[Message], ProtocolError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ProtocolError) -> [Message] in try decode(buffer) }
        }
        return try result.get()
    }

    // MARK: - Chunk header

    /// Parses one chunk header at the start of `buffer`; nil when it is not complete yet. Applies it (and sets
    /// `current`, `chunkRemaining`) only when complete. `available` bounds the payload capacity reserved.
    private mutating func parseHeader(_ buffer: UnsafeRawBufferPointer, available: Int) throws(ProtocolError) -> Int? {
        let count = buffer.count
        guard count >= 1 else { return nil }
        let first = buffer[0]
        // Basic header: 2 bits fmt (chunk message header type), 6 bits chunk stream ID or 0 / 1 for the longer forms.
        let type = first >> 6
        var position = 1
        let chunkStreamID: UInt32
        switch first & 0x3F {
        case 0:
            guard count >= 2 else { return nil }
            chunkStreamID = 64 + UInt32(buffer[1])
            position = 2
        case 1:
            guard count >= 3 else { return nil }
            chunkStreamID = 64 + UInt32(buffer[1]) + UInt32(buffer[2]) << 8
            position = 3
        case let id:
            chunkStreamID = UInt32(id)
        }
        let messageHeaderLength = ChunkFormat.messageHeaderLength(type: type)
        guard count >= position + messageHeaderLength else { return nil }
        let existing = index(of: chunkStreamID)
        guard type == 0 || existing != nil else {
            throw ProtocolError(.malformedChunk, "chunk message header type \(type) on chunk stream \(chunkStreamID), which has no previous header")
        }
        var timestampField: UInt32 = 0
        var length = 0
        var typeID: UInt8 = 0
        var streamID: UInt32 = 0
        if type <= 2 { timestampField = buffer.uint24BE(at: position) }
        if type <= 1 {
            length = Int(buffer.uint24BE(at: position + 3))
            typeID = buffer[position + 6]
        }
        if type == 0 { streamID = buffer.uint32LE(at: position + 7) }
        position += messageHeaderLength
        let extended: Bool
        if type <= 2 {
            extended = timestampField == ChunkFormat.extendedTimestampMarker
        } else {
            extended = existing.map { streams[$0].hasExtendedTimestamp } ?? false
        }
        var extendedTimestamp: UInt32 = 0
        if extended {
            guard count >= position + 4 else { return nil }
            extendedTimestamp = buffer.uint32BE(at: position)
            position += 4
        }
        if type <= 1, length > limits.maxMessageLength {
            throw ProtocolError(.messageTooLong, "chunk message header claims a \(length)-byte message, over the limit of \(limits.maxMessageLength)")
        }
        let index: Int
        if let existing {
            index = existing
        } else {
            guard streams.count < limits.maxChunkStreams else {
                throw ProtocolError(.tooManyChunkStreams, "chunk stream \(chunkStreamID) is past the limit of \(limits.maxChunkStreams) chunk streams")
            }
            streams.append(IncomingChunkStream(id: chunkStreamID))
            index = streams.count - 1
        }
        if type == 3, streams[index].inMessage {
            // Continuation chunk: its extended timestamp, if any, repeats the header's and changes nothing.
        } else {
            // A new message; a type 0–2 header in the middle of one discards the unfinished message, as FFmpeg does.
            let field = extended ? extendedTimestamp : (type == 3 ? streams[index].timestampField : timestampField)
            switch type {
            case 0:
                streams[index].timestamp = field
                streams[index].streamID = streamID
            default:
                streams[index].timestamp &+= field
            }
            if type <= 1 {
                streams[index].length = length
                streams[index].typeID = typeID
            }
            if type <= 2 || extended {
                streams[index].timestampField = field
            }
            if type <= 2 { streams[index].hasExtendedTimestamp = extended }
            streams[index].inMessage = true
            // Capacity only for bytes that have arrived, never for the peer's length claim alone.
            pendingBytes -= streams[index].payload.count
            streams[index].payload = []
            streams[index].payload.reserveCapacity(min(streams[index].length, max(0, available - position)))
        }
        current = index
        chunkRemaining = min(chunkSize, streams[index].length - streams[index].payload.count)
        return position
    }

    /// Capacity held by unfinished messages (what the allocation rule bounds).
    var pendingPayloadCapacity: Int { streams.reduce(0) { $0 + $1.payload.capacity } }

    private func index(of chunkStreamID: UInt32) -> Int? {
        // A handful of chunk streams per connection: a linear scan beats hashing.
        for index in streams.indices where streams[index].id == chunkStreamID { return index }
        return nil
    }

    // MARK: - Messages

    /// After a chunk's payload: the message when it is complete, with Set Chunk Size and Abort applied.
    private mutating func finishChunk() throws(ProtocolError) -> Message? {
        guard streams[current].payload.count == streams[current].length else { return nil }
        var payload: [UInt8] = []
        swap(&payload, &streams[current].payload)
        pendingBytes -= payload.count
        streams[current].inMessage = false
        let message = Message(
            typeID: streams[current].typeID, timestamp: streams[current].timestamp,
            streamID: streams[current].streamID, payload: payload)
        switch message.type {
        case .setChunkSize:
            chunkSize = try ProtocolControl.parseChunkSize(message.payload, limits: limits)
        case .abort:
            guard let id = message.payload.uint32BE(at: 0) else {
                throw ProtocolError(.malformedMessage, "Abort Message of \(message.payload.count) bytes, expected 4")
            }
            if let index = index(of: id) {
                pendingBytes -= streams[index].payload.count
                streams[index].payload = []
                streams[index].inMessage = false
            }
        default:
            break
        }
        return message
    }
}
