import MediaFormats
import Testing
@testable import RTMP

/// Handcrafted chunk streams (RTMP 1.0 §5.3), each decoded whole and one byte at a time.
@Suite struct ChunkDecoderTests {
    @Test func type0HeaderWithOneByteBasicHeader() throws {
        // fmt 0, csid 3 | timestamp 1000 | length 5 | type 20 | stream ID 0 (little-endian) | payload
        let bytes: [UInt8] = [0x03, 0x00, 0x03, 0xE8, 0x00, 0x00, 0x05, 0x14, 0x00, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages == [Message(typeID: 20, timestamp: 1000, streamID: 0, payload: [1, 2, 3, 4, 5])])
    }

    @Test func messageStreamIDIsLittleEndian() throws {
        let bytes: [UInt8] = [0x04, 0, 0, 0, 0, 0, 1, 0x09, 0x01, 0x02, 0x00, 0x00, 0xAA]
        #expect(try decodeWholeAndByteByByte(bytes) == [Message(typeID: 9, timestamp: 0, streamID: 0x0201, payload: [0xAA])])
    }

    @Test func types1And2And3AccumulateTimestampDeltas() throws {
        var bytes = type0Header(chunkStream: 4, timestamp: 100, length: 2, typeID: 9, streamID: 1) + [0xA0, 0xA1]
        // fmt 1: delta 40, length 3, type 8 (stream ID carried over)
        bytes += [0x44, 0x00, 0x00, 0x28, 0x00, 0x00, 0x03, 0x08, 0xB0, 0xB1, 0xB2]
        // fmt 2: delta 33, same length and type
        bytes += [0x84, 0x00, 0x00, 0x21, 0xC0, 0xC1, 0xC2]
        // fmt 3 at a message start: everything repeats, delta 33 again
        bytes += [0xC4, 0xD0, 0xD1, 0xD2]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages == [
            Message(typeID: 9, timestamp: 100, streamID: 1, payload: [0xA0, 0xA1]),
            Message(typeID: 8, timestamp: 140, streamID: 1, payload: [0xB0, 0xB1, 0xB2]),
            Message(typeID: 8, timestamp: 173, streamID: 1, payload: [0xC0, 0xC1, 0xC2]),
            Message(typeID: 8, timestamp: 206, streamID: 1, payload: [0xD0, 0xD1, 0xD2]),
        ])
    }

    @Test func type3AfterType0ReusesTheType0TimestampAsDelta() throws {
        // As FFmpeg, nginx-rtmp and SRS read it: the timestamp field of the last type 0–2 header is the delta.
        let bytes = type0Header(chunkStream: 5, timestamp: 20, length: 1, typeID: 8, streamID: 1) + [1, 0xC5, 2]
        #expect(try decodeWholeAndByteByByte(bytes).map(\.timestamp) == [20, 40])
    }

    @Test func twoAndThreeByteBasicHeaders() throws {
        // 2-byte form: byte 0 low bits 0, ID = 64 + second byte; 3-byte form: low bits 1, ID = 64 + b1 + b2 * 256.
        var bytes: [UInt8] = [0x00, 0x10, 0, 0, 5, 0, 0, 1, 0x08, 1, 0, 0, 0, 0x11]
        bytes += [0x01, 0x10, 0x02, 0, 0, 6, 0, 0, 1, 0x09, 1, 0, 0, 0, 0x22]
        // fmt 2 on the 2-byte ID again: delta 10
        bytes += [0x80, 0x10, 0, 0, 10, 0x33]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages == [
            Message(typeID: 8, timestamp: 5, streamID: 1, payload: [0x11]),
            Message(typeID: 9, timestamp: 6, streamID: 1, payload: [0x22]),
            Message(typeID: 8, timestamp: 15, streamID: 1, payload: [0x33]),
        ])
    }

    @Test func extendedTimestampIsRepeatedOnType3ContinuationChunks() throws {
        let payload = (0..<200).map { UInt8($0) }
        var bytes = type0Header(chunkStream: 6, timestamp: 0x0100_0000, length: 200, typeID: 9, streamID: 1)
        bytes += payload[0..<128]
        bytes += [0xC6, 0x01, 0x00, 0x00, 0x00]
        bytes += payload[128...]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages == [Message(typeID: 9, timestamp: 0x0100_0000, streamID: 1, payload: payload)])
    }

    @Test func extendedTimestampDeltaOnType2AndType3() throws {
        var bytes = type0Header(chunkStream: 6, timestamp: 10, length: 1, typeID: 9, streamID: 1) + [1]
        // fmt 2 with delta 0xFFFFFF marker, extended delta 0x01000000
        bytes += [0x86, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x00, 2]
        // fmt 3 new message: the extended delta is repeated and applied again
        bytes += [0xC6, 0x01, 0x00, 0x00, 0x00, 3]
        #expect(try decodeWholeAndByteByByte(bytes).map(\.timestamp) == [10, 0x0100_000A, 0x0200_000A])
    }

    @Test func timestampsWrapAcross2To32() throws {
        var bytes = type0Header(chunkStream: 4, timestamp: 0xFFFF_FFF0, length: 1, typeID: 8, streamID: 1) + [1]
        bytes += [0x84, 0x00, 0x00, 0x20, 2]
        #expect(try decodeWholeAndByteByByte(bytes).map(\.timestamp) == [0xFFFF_FFF0, 0x10])
    }

    @Test func setChunkSizeAppliesToTheChunksAfterIt() throws {
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var bytes = type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 1, streamID: 0) + [0, 0, 1, 0]
        // 300 bytes at chunk size 256: one continuation chunk.
        bytes += type0Header(chunkStream: 4, timestamp: 0, length: 300, typeID: 9, streamID: 1) + payload[0..<256]
        bytes += [0xC4] + payload[256...]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages.count == 2)
        #expect(messages.last?.payload == payload)
        var decoder = ChunkDecoder()
        _ = try decoder.decode(bytes)
        #expect(decoder.chunkSize == 256)
    }

    @Test func interleavedChunkStreams() throws {
        let video = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        var bytes = type0Header(chunkStream: 7, timestamp: 40, length: 200, typeID: 9, streamID: 1) + video[0..<128]
        bytes += type0Header(chunkStream: 6, timestamp: 42, length: 3, typeID: 8, streamID: 1) + [0xAF, 0x01, 0x21]
        bytes += [0xC7] + video[128...]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages == [
            Message(typeID: 8, timestamp: 42, streamID: 1, payload: [0xAF, 0x01, 0x21]),
            Message(typeID: 9, timestamp: 40, streamID: 1, payload: video),
        ])
    }

    @Test func abortMessageDropsThePartialMessage() throws {
        var bytes = type0Header(chunkStream: 7, timestamp: 0, length: 200, typeID: 9, streamID: 1) + Array(repeating: 0xEE, count: 128)
        bytes += type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 2, streamID: 0) + [0, 0, 0, 7]
        // A type 3 chunk on 7 now starts a new 200-byte message instead of finishing the old one.
        let fresh = Array(repeating: UInt8(0x11), count: 200)
        bytes += [0xC7] + fresh[0..<128] + [0xC7] + fresh[128...]
        let messages = try decodeWholeAndByteByByte(bytes)
        #expect(messages.map(\.typeID) == [2, 9])
        #expect(messages.last?.payload == fresh)
        #expect(messages.last?.timestamp == 0)
    }

    @Test func zeroLengthMessage() throws {
        let bytes = type0Header(chunkStream: 3, timestamp: 1, length: 0, typeID: 18, streamID: 1)
        #expect(try decodeWholeAndByteByByte(bytes) == [Message(typeID: 18, timestamp: 1, streamID: 1, payload: [])])
    }

    @Test func unknownMessageTypesStillDecode() throws {
        let bytes = type0Header(chunkStream: 3, timestamp: 0, length: 1, typeID: 0x7F, streamID: 0) + [9]
        #expect(try decodeWholeAndByteByByte(bytes).first?.type == nil)
    }

    // MARK: - Limits

    private func decodeError(_ bytes: [UInt8], limits: Limits = Limits()) -> ProtocolError? {
        var decoder = ChunkDecoder(limits: limits)
        do {
            _ = try decoder.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func chunkSizeZeroIsRefused() {
        let bytes = type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 1, streamID: 0) + [0, 0, 0, 0]
        #expect(decodeError(bytes)?.kind == .invalidChunkSize)
    }

    @Test func chunkSizeWithTopBitSetIsRefused() {
        let bytes = type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 1, streamID: 0) + [0x80, 0, 0, 0]
        #expect(decodeError(bytes)?.kind == .invalidChunkSize)
    }

    @Test func chunkSizeAboveTheLimitIsRefused() {
        let bytes = type0Header(chunkStream: 2, timestamp: 0, length: 4, typeID: 1, streamID: 0) + [0, 1, 0, 1]
        #expect(decodeError(bytes)?.kind == .invalidChunkSize)
        var limits = Limits()
        limits.maxChunkSize = 65_537
        #expect(decodeError(bytes, limits: limits) == nil)
    }

    @Test func shortSetChunkSizeIsRefused() {
        let bytes = type0Header(chunkStream: 2, timestamp: 0, length: 2, typeID: 1, streamID: 0) + [0, 1]
        #expect(decodeError(bytes)?.kind == .malformedMessage)
    }

    @Test func sixteenMegabyteLengthClaimIsRefusedFromTheHeaderAlone() {
        // Only the 12-byte header arrives: the claim is refused before any payload (or allocation).
        let bytes = type0Header(chunkStream: 4, timestamp: 0, length: 0xFF_FFFF, typeID: 9, streamID: 1)
        #expect(decodeError(bytes)?.kind == .messageTooLong)
        var limits = Limits()
        limits.maxMessageLength = 100
        let type1 = type0Header(chunkStream: 4, timestamp: 0, length: 1, typeID: 9, streamID: 1) + [0, 0x44, 0, 0, 0, 0, 0, 101, 9]
        #expect(decodeError(type1, limits: limits)?.kind == .messageTooLong)
    }

    @Test func tooManyChunkStreamsIsRefused() {
        var limits = Limits()
        limits.maxChunkStreams = 4
        var bytes: [UInt8] = []
        for id: UInt8 in 3...6 { bytes += type0Header(chunkStream: id, timestamp: 0, length: 0, typeID: 8, streamID: 1) }
        #expect(decodeError(bytes, limits: limits) == nil)
        bytes += type0Header(chunkStream: 7, timestamp: 0, length: 0, typeID: 8, streamID: 1)
        #expect(decodeError(bytes, limits: limits)?.kind == .tooManyChunkStreams)
    }

    @Test func unfinishedMessagesAcrossChunkStreamsAreBounded() {
        var limits = Limits()
        limits.maxPendingBytes = 200
        // Two 1000-byte messages each 128 bytes in: 256 unfinished bytes, over 200.
        var bytes = type0Header(chunkStream: 4, timestamp: 0, length: 1000, typeID: 9, streamID: 1) + [UInt8](repeating: 1, count: 128)
        #expect(decodeError(bytes, limits: limits) == nil)
        bytes += type0Header(chunkStream: 5, timestamp: 0, length: 1000, typeID: 9, streamID: 1) + [UInt8](repeating: 2, count: 128)
        #expect(decodeError(bytes, limits: limits)?.kind == .messageTooLong)
        // Finished messages no longer count.
        var finished: [UInt8] = []
        for id: UInt8 in 3...9 { finished += type0Header(chunkStream: id, timestamp: 0, length: 100, typeID: 8, streamID: 1) + [UInt8](repeating: id, count: 100) }
        #expect(decodeError(finished, limits: limits) == nil)
    }

    @Test func continuationHeaderOnAnUnknownChunkStreamIsRefused() {
        #expect(decodeError([0xC9, 0x00])?.kind == .malformedChunk)
        #expect(decodeError([0x49, 0, 0, 0, 0, 0, 1, 8, 0])?.kind == .malformedChunk)
    }

    @Test func payloadCapacityFollowsArrivedBytesNotTheClaim() throws {
        // A 1 MB claim with 10 bytes of it arrived: nothing near 1 MB is reserved.
        var decoder = ChunkDecoder()
        let bytes = type0Header(chunkStream: 4, timestamp: 0, length: 1 << 20, typeID: 9, streamID: 1) + Array(repeating: 1, count: 10)
        #expect(try decoder.decode(bytes).isEmpty)
        #expect(decoder.pendingPayloadCapacity < 1024)
    }
}
