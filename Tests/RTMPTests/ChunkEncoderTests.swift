import MediaFormats
import SluiceTestSupport
import Testing
@testable import RTMP

/// The chunk encoder (RTMP 1.0 §5.3) byte by byte, and encoder → decoder round trips.
@Suite struct ChunkEncoderTests {
    @Test func firstMessageGetsAType0Header() {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        encoder.encode(Message(typeID: 20, timestamp: 1000, streamID: 0x0201, payload: [1, 2]), chunkStreamID: 3, into: &out)
        #expect(out == [0x03, 0x00, 0x03, 0xE8, 0x00, 0x00, 0x02, 0x14, 0x01, 0x02, 0x00, 0x00, 1, 2])
    }

    @Test func repeatedFieldsCompressToTypes1And2And3() {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        encoder.encode(Message(typeID: 9, timestamp: 0, streamID: 1, payload: [1]), chunkStreamID: 4, into: &out)
        out = []
        encoder.encode(Message(typeID: 9, timestamp: 40, streamID: 1, payload: [1, 2]), chunkStreamID: 4, into: &out)
        #expect(out == [0x44, 0, 0, 40, 0, 0, 2, 9, 1, 2])
        out = []
        encoder.encode(Message(typeID: 9, timestamp: 80, streamID: 1, payload: [3, 4]), chunkStreamID: 4, into: &out)
        #expect(out == [0xC4, 3, 4], "same length, type and delta: type 3")
        out = []
        encoder.encode(Message(typeID: 9, timestamp: 100, streamID: 1, payload: [5, 6]), chunkStreamID: 4, into: &out)
        #expect(out == [0x84, 0, 0, 20, 5, 6], "new delta only: type 2")
        out = []
        encoder.encode(Message(typeID: 9, timestamp: 90, streamID: 1, payload: [7, 8]), chunkStreamID: 4, into: &out)
        #expect(out.first == 0x04, "a backwards timestamp starts over with type 0")
        out = []
        encoder.encode(Message(typeID: 9, timestamp: 95, streamID: 2, payload: [7, 8]), chunkStreamID: 4, into: &out)
        #expect(out.first == 0x04, "another message stream needs type 0")
    }

    @Test func extendedTimestampOnEveryChunk() {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        let payload = [UInt8](repeating: 0x5A, count: 130)
        encoder.encode(Message(typeID: 9, timestamp: 0x0123_4567, streamID: 1, payload: payload), chunkStreamID: 6, into: &out)
        let header: [UInt8] = [0x06, 0xFF, 0xFF, 0xFF, 0, 0, 130, 9, 1, 0, 0, 0, 0x01, 0x23, 0x45, 0x67]
        #expect(Array(out[0..<16]) == header)
        #expect(Array(out[(16 + 128)...]) == [0xC6, 0x01, 0x23, 0x45, 0x67, 0x5A, 0x5A])
    }

    @Test func timestampExactlyAtTheMarkerIsExtended() {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        encoder.encode(Message(typeID: 8, timestamp: 0xFF_FFFF, streamID: 1, payload: []), chunkStreamID: 6, into: &out)
        #expect(out == [0x06, 0xFF, 0xFF, 0xFF, 0, 0, 0, 8, 1, 0, 0, 0, 0x00, 0xFF, 0xFF, 0xFF])
    }

    @Test func largeChunkStreamIDsUseTwoAndThreeByteBasicHeaders() {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        encoder.encode(Message(typeID: 8, timestamp: 0, streamID: 1, payload: []), chunkStreamID: 80, into: &out)
        #expect(Array(out.prefix(2)) == [0x00, 16])
        out = []
        encoder.encode(Message(typeID: 8, timestamp: 0, streamID: 1, payload: []), chunkStreamID: 592, into: &out)
        #expect(Array(out.prefix(3)) == [0x01, 0x10, 0x02])
    }

    @Test func timestampWrapRoundTrips() throws {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        let messages = [UInt32(0xFFFF_FF00), 0xFFFF_FFF0, 0x10, 0x0100_0000].map {
            Message(typeID: 8, timestamp: $0, streamID: 1, payload: [1, 2, 3])
        }
        for message in messages { encoder.encode(message, chunkStreamID: 4, into: &out) }
        #expect(try decodeWholeAndByteByByte(out) == messages)
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func seededRandomMessagesRoundTrip(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        let chunkSize = [1, 7, 128, 4096, 65_536][Int.random(in: 0..<5, using: &generator)]
        out += type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 1, streamID: 0)
        out.appendUInt32(UInt32(chunkSize))
        encoder.setChunkSize(chunkSize)
        var expected: [Message] = []
        var timestamps: [UInt32: UInt32] = [:]
        for _ in 0..<200 {
            let chunkStream = [UInt32(3), 4, 5, 6, 7, 100, 400][Int.random(in: 0..<7, using: &generator)]
            let jump: UInt32 = Bool.random(using: &generator)
                ? UInt32.random(in: 0...100, using: &generator) : UInt32.random(in: 0...UInt32.max, using: &generator)
            let timestamp = (timestamps[chunkStream] ?? UInt32.random(in: 0...UInt32.max, using: &generator)) &+ jump
            timestamps[chunkStream] = timestamp
            let length = Bool.random(using: &generator) ? Int.random(in: 0...3, using: &generator) : Int.random(in: 0...2000, using: &generator)
            let message = Message(
                typeID: [UInt8(8), 9, 18, 20][Int.random(in: 0..<4, using: &generator)], timestamp: timestamp,
                streamID: UInt32.random(in: 0...2, using: &generator), payload: generator.bytes(length))
            encoder.encode(message, chunkStreamID: chunkStream, into: &out)
            expected.append(message)
        }
        let decoded = try decodeWholeAndByteByByte(out)
        #expect(Array(decoded.dropFirst()) == expected)
        // Random split points give the same messages too.
        var decoder = ChunkDecoder()
        var again: [Message] = []
        var start = 0
        while start < out.count {
            let end = min(out.count, start + Int.random(in: 1...5000, using: &generator))
            again += try decoder.decode(Array(out[start..<end]))
            start = end
        }
        #expect(again == decoded)
    }
}
