import Testing
@testable import MediaFormats

@Suite struct MP4BoxReaderTests {
    static let malformed: [(name: String, hex: String, error: MediaFormatError)] = [
        ("size smaller than the header", "00000004 66726565",
         .invalid(structure: "box header", reason: "'free' size 4 is smaller than its 8-byte header")),
        ("largesize smaller than its 16-byte header", "00000001 6d646174 00000000 0000000f",
         .invalid(structure: "box header", reason: "'mdat' size 15 is smaller than its 16-byte header")),
        ("size past the end", "00000010 66726565 0000", .truncated(needed: 8, available: 2)),
        ("largesize past any buffer", "00000001 6d646174 ffffffff ffffffff",
         .truncated(needed: Int.max, available: 0)),
        ("header cut short", "000000", .truncated(needed: 4, available: 3)),
        ("uuid without its usertype", "00000010 75756964 0000", .truncated(needed: 16, available: 2)),
        ("stsd shorter than its entry count", "0000000c 73747364 00000000", .truncated(needed: 8, available: 4)),
        ("garbage child inside a container", "00000010 6d6f6f76 00000009 66726565",
         .truncated(needed: 1, available: 0)),
    ]

    @Test(arguments: malformed)
    func malformedInputThrows(name: String, hex: String, error: MediaFormatError) {
        #expect(throws: error) { try MP4BoxReader.boxes(in: AACFixtures.bytes(hex)) }
    }

    @Test func readsLargesizeSizeToEndAndUUIDHeaders() throws {
        let bytes = AACFixtures.bytes("""
            00000001 6d646174 00000000 00000012 abcd
            00000019 75756964 00112233445566778899aabbccddeeff ee
            00000000 66726565 0102
            """)
        let boxes = try MP4BoxReader.boxes(in: bytes)
        #expect(boxes.map(\.type) == ["mdat", "uuid", "free"])
        #expect(boxes.map(\.header.headerSize) == [16, 24, 8])
        #expect(boxes.map { Array($0.payload) } == [[0xAB, 0xCD], [0xEE], [0x01, 0x02]])
        #expect(boxes[2].header.boxSize == nil)
        #expect(boxes.map(\.range) == [0..<18, 18..<43, 43..<53])
    }

    @Test func nestingDeeperThanTheLimitThrowsInsteadOfRecursing() {
        var bytes: [UInt8] = []
        for _ in 0...(MP4BoxReader.maxDepth + 1) {
            var outer: [UInt8] = []
            MP4BoxHeader(type: "moov", payloadSize: bytes.count).write(into: &outer)
            bytes = outer + bytes
        }
        #expect(throws: MediaFormatError.limitExceeded(what: "box nesting depth", value: MP4BoxReader.maxDepth + 1,
                                                       limit: MP4BoxReader.maxDepth)) {
            try MP4BoxReader.boxes(in: bytes)
        }
        #expect((try? MP4BoxReader.topLevelBoxes(in: bytes[...]))?.count == 1)
    }

    /// Every prefix of a real init segment and fragment either reads or throws, and a slice keeps its indices.
    @Test func everyPrefixOfAFileReadsOrThrows() throws {
        var writer = try FragmentedMP4Writer(tracks: [MP4Fixtures.avc, MP4Fixtures.opus()])
        var file = try writer.initSegment()
        try writer.writeFragment([[MP4Fixtures.sample(at: 0, duration: 3600)], [MP4Fixtures.sample(at: 0, duration: 960)]],
                                 into: &file)
        for end in 0...file.count {
            _ = try? MP4BoxReader.boxes(in: file[..<end])
        }
        let sliced = [0xEE, 0xEE] + file
        let boxes = try MP4BoxReader.boxes(in: sliced[2...])
        #expect(boxes.map(\.type) == ["ftyp", "moov", "moof", "mdat"])
        #expect(boxes.first?.range.lowerBound == 2)
        #expect(boxes.last?.range.upperBound == sliced.count)
    }

    @Test func trunSampleCountIsCheckedAgainstTheBytesThere() {
        // version 1, all four per-sample fields, sample_count 0x10000000, no entries.
        #expect(throws: MediaFormatError.truncated(needed: 0x1000_0000 * 16, available: 0)) {
            try TrackRunBox(parsing: AACFixtures.bytes("01000f00 10000000")[...])
        }
        #expect(throws: MediaFormatError.limitExceeded(what: "trun sample_count without per-sample fields",
                                                       value: 0x1000_0000, limit: TrackRunBox.maxSamplesWithoutFields)) {
            try TrackRunBox(parsing: AACFixtures.bytes("01000000 10000000")[...])
        }
        #expect(throws: MediaFormatError.unsupported(structure: "trun", reason: "version 0 composition offset 4294967295")) {
            try TrackRunBox(parsing: AACFixtures.bytes("00000800 00000001 ffffffff")[...])
        }
    }
}
