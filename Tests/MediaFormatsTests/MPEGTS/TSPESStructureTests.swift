import Testing
@testable import MediaFormats

/// PES headers, the Opus control header and descriptor, Opus durations and the 33-bit unwrapper.
@Suite struct TSPESStructureTests {
    static let pesCases: [(name: String, bytes: [UInt8], streamID: UInt8, packetLength: Int, pts: Int64?, dts: Int64?, headerLength: Int)] = [
        ("ffmpeg video: unbounded, PTS 133200 + DTS 126000",
         H264Fixtures.hex("000001e0000080c00a31000910a1110007d861"), 0xE0, 0, 133_200, 126_000, 19),
        ("ffmpeg AAC: bounded, PTS 131110 only",
         H264Fixtures.hex("000001c0057b808005210009004d"), 0xC0, 0x057B, 131_110, nil, 14),
        ("PTS at 2^33 − 1", [0, 0, 1, 0xBD, 0, 8, 0x84, 0x80, 5, 0x2F, 0xFF, 0xFF, 0xFF, 0xFF], 0xBD, 8, (1 << 33) - 1, nil, 14),
        ("padding stream: no optional header", [0, 0, 1, 0xBE, 0, 2], 0xBE, 2, nil, nil, 6),
    ]

    @Test(arguments: pesCases.indices)
    func pesHeaderParses(_ index: Int) throws {
        let row = Self.pesCases[index]
        let header = try PESPacketHeader(parsing: row.bytes[...])
        #expect(header.streamID == row.streamID && header.packetLength == row.packetLength, "\(row.name)")
        #expect(header.pts == row.pts, "\(row.name)")
        #expect(header.dts == row.dts, "\(row.name)")
        #expect(header.headerLength == row.headerLength, "\(row.name)")
        for length in 0..<row.bytes.count {
            #expect(throws: MediaFormatError.self) { try PESPacketHeader(parsing: row.bytes.prefix(length)) }
        }
    }

    static let writeCases: [(name: String, header: PESPacketHeader, payload: Int, unbounded: Bool, bytes: [UInt8])] = [
        ("video, PTS + DTS, unbounded", PESPacketHeader(streamID: 0xE0, pts: 133_200, dts: 126_000), 10, true,
         H264Fixtures.hex("000001e0000084c00a31000910a1110007d861")),
        ("audio, PTS only, bounded", PESPacketHeader(streamID: 0xC0, pts: 0), 100, false,
         H264Fixtures.hex("000001c0006c8480052100010001")),
        ("video over 16 bits writes 0", PESPacketHeader(streamID: 0xE0, pts: 1), 70_000, false,
         H264Fixtures.hex("000001e000008480052100010003")),
        ("PTS wraps modulo 2^33", PESPacketHeader(streamID: 0xBD, pts: (1 << 33) + 1), 0, false,
         H264Fixtures.hex("000001bd000884800521000100 03".replacingOccurrences(of: " ", with: ""))),
    ]

    @Test(arguments: writeCases.indices)
    func pesHeaderWritesAndReadsBack(_ index: Int) throws {
        let row = Self.writeCases[index]
        var header = row.header
        var out: [UInt8] = []
        try header.write(payloadLength: row.payload, unboundedLength: row.unbounded, into: &out)
        #expect(out == row.bytes, "\(row.name)")
        let parsed = try PESPacketHeader(parsing: out[...])
        #expect(parsed.pts == row.header.pts && parsed.dts == row.header.dts, "\(row.name)")
        #expect(parsed.payloadLength == (parsed.packetLength == 0 ? nil : row.payload), "\(row.name)")
    }

    @Test func audioPESOver16BitsThrows() {
        var header = PESPacketHeader(streamID: 0xC0, pts: 0)
        var out: [UInt8] = []
        #expect(throws: MediaFormatError.limitExceeded(what: "PES_packet_length", value: 65_544, limit: 65_535)) {
            try header.write(payloadLength: 65_536, unboundedLength: false, into: &out)
        }
    }

    @Test func malformedPESHeaders() {
        #expect(throws: MediaFormatError.invalid(structure: "PES header", reason: "packet_start_code_prefix is 0x2, not 0x000001")) {
            try PESPacketHeader(parsing: [0, 0, 2, 0xE0, 0, 0, 0x80, 0, 0][...])
        }
        #expect(throws: MediaFormatError.invalid(structure: "PES header", reason: "PTS_DTS_flags '01' is forbidden")) {
            try PESPacketHeader(parsing: [0, 0, 1, 0xE0, 0, 0, 0x80, 0x40, 0][...])
        }
        #expect(throws: MediaFormatError.invalid(structure: "PES header", reason: "PES_packet_length 2 is shorter than its header")) {
            try PESPacketHeader(parsing: [0, 0, 1, 0xC0, 0, 2, 0x80, 0, 0][...])
        }
    }

    static let opusHeaderCases: [(name: String, header: OpusControlHeader, bytes: [UInt8])] = [
        ("size 100", OpusControlHeader(accessUnitSize: 100), [0x7F, 0xE0, 100]),
        ("size 255 needs a 0 after 0xFF", OpusControlHeader(accessUnitSize: 255), [0x7F, 0xE0, 0xFF, 0x00]),
        ("size 600 with both trims", OpusControlHeader(accessUnitSize: 600, startTrim: 312, endTrim: 0x1FFF),
         [0x7F, 0xF8, 0xFF, 0xFF, 90, 0x01, 0x38, 0x1F, 0xFF]),
    ]

    @Test(arguments: opusHeaderCases.indices)
    func opusControlHeaderWritesAndParses(_ index: Int) throws {
        let row = Self.opusHeaderCases[index]
        var out: [UInt8] = []
        row.header.write(into: &out)
        #expect(out == row.bytes, "\(row.name)")
        #expect(row.header.encodedLength == row.bytes.count)
        #expect(try OpusControlHeader(parsing: row.bytes[...]) == row.header, "\(row.name)")
        for length in 0..<row.bytes.count {
            #expect(throws: MediaFormatError.self) { try OpusControlHeader(parsing: row.bytes.prefix(length)) }
        }
    }

    @Test func opusControlHeaderExtensionAndPrefix() throws {
        let parsed = try OpusControlHeader(parsing: [0x7F, 0xE4, 3, 2, 0xAB, 0xCD, 1, 2, 3][...])
        #expect(parsed.accessUnitSize == 3 && parsed.controlExtension == [0xAB, 0xCD] && parsed.encodedLength == 6)
        #expect(throws: MediaFormatError.invalid(structure: "opus_control_header", reason: "control_header_prefix is not 0x3ff")) {
            try OpusControlHeader(parsing: [0x7F, 0xC0, 3][...])
        }
    }

    @Test func opusDescriptorFromIDHeaders() throws {
        let stereo = OpusIDHeader(channelCount: 2, preSkip: 312, inputSampleRate: 48000)
        #expect(try OpusAudioDescriptor(idHeader: stereo).channelConfigCode == 2)
        let surround = try #require(OpusAudioDescriptor(channelConfigCode: 6).idHeader)
        #expect(surround.channelMappingFamily == 1 && surround.mapping?.streamCount == 4 && surround.mapping?.coupledStreamCount == 2)
        #expect(try OpusAudioDescriptor(idHeader: surround).channelConfigCode == 6)
        #expect(OpusAudioDescriptor(channelConfigCode: 0x80).channelCount == 2)
        #expect(OpusAudioDescriptor(channelConfigCode: 0x80).idHeader == nil)
        let family255 = OpusIDHeader(channelCount: 3, preSkip: 0, inputSampleRate: 0, channelMappingFamily: 255,
                                     mapping: .init(streamCount: 3, coupledStreamCount: 0, channelMapping: [0, 1, 2]))
        #expect(throws: MediaFormatError.self) { try OpusAudioDescriptor(idHeader: family255) }
    }

    @Test func opusPacketDurations() {
        #expect(OpusPacketDuration.samples(of: [0xFC]) == 960)
        #expect(OpusPacketDuration.samples(of: [0x78]) == 960)
        #expect(OpusPacketDuration.samples(of: [0x70]) == 480)
        #expect(OpusPacketDuration.samples(of: [0x01]) == 960)
        #expect(OpusPacketDuration.samples(of: [0x1B, 0x03]) == OpusPacketDuration.maxSamples)
        #expect(OpusPacketDuration.samples(of: [0x83, 0x05]) == 600)
        #expect(OpusPacketDuration.samples(of: [0x03]) == nil)
        #expect(OpusPacketDuration.samples(of: [UInt8]()) == nil)
        #expect(OpusPacketDuration.ticks90kHz(of: [0xFC]) == 1800)
        #expect(OpusPacketDuration.ticks90kHz(of: [0x80]) == 225)
    }

    static let unwrapCases: [(name: String, raw: [Int64], unwrapped: [Int64])] = [
        ("forward across the wrap", [(1 << 33) - 3000, (1 << 33) - 1, 2999, 6000],
         [(1 << 33) - 3000, (1 << 33) - 1, (1 << 33) + 2999, (1 << 33) + 6000]),
        ("B-frame steps back stay back", [10_000, 6000, 13_000], [10_000, 6000, 13_000]),
        ("a step back across the wrap", [3000, (1 << 33) - 3000], [3000, -3000]),
        ("two wraps in quarter steps", [0, 1 << 31, 1 << 32, 3 << 31, 0, 1 << 31, 1 << 32, 3 << 31, 0],
         [0, 1 << 31, 1 << 32, 3 << 31, 1 << 33, (1 << 33) + (1 << 31), (1 << 33) + (1 << 32), (1 << 33) + (3 << 31), 1 << 34]),
    ]

    @Test(arguments: unwrapCases.indices)
    func timestampsUnwrap(_ index: Int) {
        let row = Self.unwrapCases[index]
        var unwrapper = TSTimestampUnwrapper()
        #expect(row.raw.map { unwrapper.unwrap($0) } == row.unwrapped, "\(row.name)")
        unwrapper.reset()
        #expect(unwrapper.unwrap(row.raw[row.raw.count - 1]) == row.raw[row.raw.count - 1] & ((1 << 33) - 1))
    }
}
