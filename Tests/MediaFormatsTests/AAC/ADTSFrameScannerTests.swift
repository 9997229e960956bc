import SluiceTestSupport
import Testing
@testable import MediaFormats

@Suite struct ADTSFrameScannerTests {
    /// A frame: the given header, then a payload of `header.frameLength − header length` bytes of `fill`.
    private func frame(_ header: [UInt8], fill: UInt8) throws -> [UInt8] {
        let parsed = try ADTSHeader(parsing: header)
        return header + [UInt8](repeating: fill, count: parsed.payloadLength)
    }

    @Test func walksConcatenatedFrames() throws {
        let first = try frame(AACFixtures.adtsLC44100Mono, fill: 0x11)
        let second = try frame(AACFixtures.adtsLC44100MonoShort, fill: 0x22)
        let third = try frame(AACFixtures.bytes("fff05040217ffc1234"), fill: 0x33)
        let stream = first + second + third
        let frames = try ADTSFrameScanner.frames(in: stream)
        #expect(frames.count == 3)
        #expect(frames.map(\.frameRange) == [0..<265, 265..<418, 418..<685])
        #expect(frames.map(\.payloadRange) == [7..<265, 272..<418, 427..<685])
        #expect(frames[2].header.crc == 0x1234)
        #expect(stream[frames[1].payloadRange].allSatisfy { $0 == 0x22 })
        #expect(frames.map(\.header.frameLength) == [265, 153, 267])
    }

    @Test func onePacketHoldingHeaderAndPayload() throws {
        let packet = try frame(AACFixtures.adtsLC48000Surround, fill: 0x5A)
        var scanner = ADTSFrameScanner(packet[...])
        let only = try #require(try scanner.next())
        #expect(only.header.channelConfiguration == 6)
        #expect(only.payloadRange == 7..<765)
        #expect(try scanner.next() == nil)
    }

    @Test func slicesKeepTheirIndices() throws {
        let bytes = [0xAA, 0xBB] + (try frame(AACFixtures.adtsLC44100MonoShort, fill: 1))
        var scanner = ADTSFrameScanner(bytes[2...])
        let found = try #require(try scanner.next())
        #expect(found.frameRange == 2..<155)
        #expect(found.payloadRange == 9..<155)
    }

    @Test func partialFrameAtTheEndThrowsWithoutAdvancing() throws {
        let whole = try frame(AACFixtures.adtsLC44100MonoShort, fill: 1)
        let stream = whole + whole.prefix(100)
        var scanner = ADTSFrameScanner(stream)
        #expect(try scanner.next()?.frameRange == 0..<153)
        #expect(throws: MediaFormatError.truncated(needed: 153, available: 100)) { try scanner.next() }
        #expect(scanner.index == 153)
        #expect(scanner.remaining.count == 100)
    }

    @Test func refusesSeveralRawDataBlocks() throws {
        // number_of_raw_data_blocks_in_frame = 1 (last two bits of byte 6).
        var header = AACFixtures.adtsLC44100MonoShort
        header[6] |= 0x01
        let bytes = header + [UInt8](repeating: 0, count: 146)
        #expect(throws: MediaFormatError.unsupported(
            structure: "ADTS frame",
            reason: "number_of_raw_data_blocks_in_frame is 1 at offset 0; only frames holding a single raw data "
                + "block are supported")) {
            try ADTSFrameScanner.frames(in: bytes)
        }
    }

    @Test func garbageBetweenFramesNamesTheOffset() throws {
        let stream = (try frame(AACFixtures.adtsLC44100MonoShort, fill: 1)) + [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        #expect(throws: MediaFormatError.invalid(
            structure: "ADTS header", reason: "syncword is 0x0, not 0xfff at offset 153")) {
            try ADTSFrameScanner.frames(in: stream)
        }
    }

    @Test func truncationAtEveryOffsetThrowsOrStopsAtAFrameBoundary() throws {
        let stream = (try frame(AACFixtures.adtsLC44100MonoShort, fill: 7))
            + (try frame(AACFixtures.bytes("fff05040217ffc1234"), fill: 8))
        for length in 0..<stream.count {
            do {
                let frames = try ADTSFrameScanner.frames(in: Array(stream.prefix(length)))
                #expect(length == 0 || length == 153, "length \(length) gave \(frames.count) frames")
            } catch {
                #expect(error is MediaFormatError)
            }
        }
    }

    @Test func seededRandomInputsNeverCrash() {
        var generator = SeededGenerator(seed: 0x5CA7)
        for _ in 0..<2000 {
            var input = generator.bytes(Int.random(in: 0...64, using: &generator))
            if input.count >= 7 {
                input[0] = 0xFF
                input[1] = 0xF1
                // Keep aac_frame_length small so whole frames occur.
                input[3] &= 0xFC
                input[4] = UInt8.random(in: 1...4, using: &generator)
            }
            do {
                let frames = try ADTSFrameScanner.frames(in: input)
                #expect(frames.reduce(0) { $0 + $1.frameRange.count } == input.count)
            } catch {
                #expect(error is MediaFormatError)
            }
        }
    }
}
