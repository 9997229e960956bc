// libFuzzer target: the RTMP chunk stream decoder (RTMP 1.0 §5.3) on arbitrary bytes, with small limits.
// Decoding all at once and in uneven pieces must give the same messages (or both fail); aggregates are split.
import RTMP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    var limits = Limits()
    limits.maxChunkSize = 4096
    limits.maxMessageLength = 1 << 16
    limits.maxChunkStreams = 8
    limits.maxPendingBytes = 1 << 17

    var whole = ChunkDecoder(limits: limits)
    let wholeResult = Result { () throws(ProtocolError) -> [Message] in try whole.decode(bytes) }

    var pieces = ChunkDecoder(limits: limits)
    var pieceMessages: [Message] = []
    var pieceError: ProtocolError?
    var start = 0
    var length = 1
    while start < bytes.count {
        let end = min(bytes.count, start + length)
        do {
            pieceMessages += try pieces.decode(Array(bytes[start..<end]))
        } catch {
            pieceError = error
            break
        }
        start = end
        length = length % 13 + 1
    }
    switch wholeResult {
    case let .success(messages):
        guard pieceError == nil, messages == pieceMessages else {
            fatalError("chunk stream decoded differently in pieces: \(messages.count) vs \(pieceMessages.count), \(String(describing: pieceError))")
        }
        for message in messages where message.payload.count > limits.maxMessageLength {
            fatalError("message of \(message.payload.count) bytes passed the limit")
        }
        // Aggregates split into sub-messages no larger than themselves, or fail cleanly.
        for message in messages where message.type == .aggregate {
            guard let parts = try? AggregateMessage.split(message) else { continue }
            guard parts.reduce(0, { $0 + $1.payload.count }) <= message.payload.count else {
                fatalError("aggregate split into more bytes than it holds")
            }
        }
    case let .failure(error):
        guard pieceError == error else {
            fatalError("chunk stream failed differently in pieces: \(error) vs \(String(describing: pieceError))")
        }
    }
    return 0
}
