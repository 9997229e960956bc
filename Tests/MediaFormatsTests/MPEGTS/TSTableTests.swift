import Testing
@testable import MediaFormats

/// Sections cut from the ffmpeg fixture (`TSFixtures`), from table_id through CRC_32.
enum TSTableFixtures {
    /// PAT: transport_stream_id 1, version 0, program 1 → PMT PID 0x1000.
    static let ffmpegPATSection = H264Fixtures.hex("00b00d0001c100000001f0002ab104b2")
    /// PMT: program 1, PCR_PID 0x100, H.264 on 0x100, AAC on 0x101, no descriptors.
    static let ffmpegPMTSection = H264Fixtures.hex("02b0170001c10000e100f0001be100f0000fe101f0002f44b99b")
}

/// PSI sections, PAT, PMT and descriptors: parse and write from one table of cases, CRC checked both ways.
@Suite struct TSTableTests {
    @Test func ffmpegPATReadsAndWritesBack() throws {
        let bytes = TSTableFixtures.ffmpegPATSection
        let section = try PSISection(parsing: bytes[...])
        let pat = try ProgramAssociationTable(section: section)
        #expect(pat == ProgramAssociationTable(transportStreamID: 1, version: 0, programs: [.init(programNumber: 1, pid: 0x1000)]))
        var written: [UInt8] = []
        try pat.section.write(into: &written)
        #expect(written == bytes)
    }

    @Test func ffmpegPMTReadsAndWritesBack() throws {
        let bytes = TSTableFixtures.ffmpegPMTSection
        let pmt = try ProgramMapTable(section: try PSISection(parsing: bytes[...]))
        #expect(pmt.programNumber == 1 && pmt.pcrPID == 0x100 && pmt.version == 0)
        #expect(pmt.streams.map(\.pid) == [0x100, 0x101])
        #expect(pmt.streams.map(\.codec) == [.h264, .aac])
        var written: [UInt8] = []
        try pmt.section().write(into: &written)
        #expect(written == bytes)
    }

    static let pmtCases: [(name: String, pmt: ProgramMapTable)] = [
        ("HEVC + Opus stereo with descriptors", ProgramMapTable(
            programNumber: 7, version: 3, pcrPID: 0x100, programDescriptors: [TSDescriptor(tag: 0x0E, data: [1, 2, 3])],
            streams: [.init(codec: .hevc, pid: 0x100), .init(codec: .opus(OpusAudioDescriptor(channelConfigCode: 2)), pid: 0x101)])),
        ("no streams, no PCR", ProgramMapTable(programNumber: 1, pcrPID: 0x1FFF, streams: [])),
        ("unknown stream type keeps its descriptors", ProgramMapTable(
            programNumber: 1, pcrPID: 0x200,
            streams: [.init(streamType: 0x86, pid: 0x200, descriptors: [TSDescriptor(tag: 0x52, data: [9])])])),
    ]

    @Test(arguments: pmtCases.indices)
    func programMapTableRoundTrips(_ index: Int) throws {
        let row = Self.pmtCases[index]
        var bytes: [UInt8] = []
        try row.pmt.section().write(into: &bytes)
        #expect(CRC32MPEG2.checksum(bytes) == 0, "\(row.name)")
        #expect(try ProgramMapTable(section: PSISection(parsing: bytes[...])) == row.pmt, "\(row.name)")
        // Any byte changed fails the CRC (or the length checks before it).
        for position in [0, 5, bytes.count / 2, bytes.count - 1] {
            var damaged = bytes
            damaged[position] ^= 0x10
            #expect(throws: MediaFormatError.self) { try PSISection(parsing: damaged[...]) }
        }
        for length in 0..<bytes.count {
            #expect(throws: MediaFormatError.self) { try PSISection(parsing: bytes.prefix(length)) }
        }
    }

    static let malformedSections: [(name: String, bytes: [UInt8], error: MediaFormatError)] = [
        ("bad CRC", Array(TSTableFixtures.ffmpegPMTSection.dropLast()) + [0x00],
         .invalid(structure: "PSI section", reason: "CRC_32 mismatch (table_id 0x2)")),
        ("short form", [0x02, 0x30, 0x09] + [UInt8](repeating: 0, count: 9),
         .unsupported(structure: "PSI section", reason: "section_syntax_indicator 0 (short form)")),
        ("section_length over 1021", [0x02, 0xB3, 0xFE] + [UInt8](repeating: 0, count: 1022),
         .invalid(structure: "PSI section", reason: "section_length 1022 (at most 1021)")),
        ("section_length too short for its header", [0x02, 0xB0, 0x08] + [UInt8](repeating: 0, count: 8),
         .invalid(structure: "PSI section", reason: "section_length 8 leaves no room for its header and CRC_32")),
    ]

    @Test(arguments: malformedSections.indices)
    func malformedSectionsThrow(_ index: Int) {
        let row = Self.malformedSections[index]
        #expect(throws: row.error, "\(row.name)") { try PSISection(parsing: row.bytes[...]) }
    }

    @Test func tableIDsAreChecked() throws {
        let pmtSection = try PSISection(parsing: TSTableFixtures.ffmpegPMTSection[...])
        #expect(throws: MediaFormatError.invalid(structure: "PAT", reason: "table_id 0x2, not 0x0")) {
            try ProgramAssociationTable(section: pmtSection)
        }
        var odd = pmtSection
        odd.tableID = 0
        #expect(throws: MediaFormatError.invalid(structure: "PAT", reason: "14 bytes of entries, not a multiple of 4")) {
            try ProgramAssociationTable(section: odd)
        }
    }

    @Test func sectionBodyOverTheLimitThrowsOnWrite() {
        let section = PSISection(tableID: 2, tableIDExtension: 1, body: [UInt8](repeating: 0, count: 1013))
        var out: [UInt8] = []
        #expect(throws: MediaFormatError.limitExceeded(what: "PSI section_length", value: 1022, limit: 1021)) {
            try section.write(into: &out)
        }
    }

    @Test func descriptorLoopsParseAndRunOutSafely() throws {
        let descriptors = [TSDescriptor.registration("Opus"), TSDescriptor(tag: 0x7F, data: [0x80, 0x02])]
        let bytes = TSDescriptor.loopBytes(descriptors)
        #expect(bytes == [0x05, 0x04, 0x4F, 0x70, 0x75, 0x73, 0x7F, 0x02, 0x80, 0x02])
        #expect(try TSDescriptor.parseLoop(bytes) == descriptors)
        #expect(descriptors[0].formatIdentifier == "Opus")
        #expect(throws: MediaFormatError.truncated(needed: 2, available: 1)) { try TSDescriptor.parseLoop(bytes.dropLast()) }
    }

    static let codecCases: [(streamType: UInt8, descriptors: [TSDescriptor], codec: TSStreamCodec, streamID: UInt8)] = [
        (0x1B, [], .h264, 0xE0),
        (0x24, [], .hevc, 0xE0),
        (0x0F, [], .aac, 0xC0),
        (0x06, [.registration("Opus"), OpusAudioDescriptor(channelConfigCode: 6).descriptor],
         .opus(OpusAudioDescriptor(channelConfigCode: 6)), 0xBD),
        (0x06, [.registration("Opus")], .opus(nil), 0xBD),
        (0x06, [.registration("AC-3")], .other(streamType: 0x06), 0xBD),
        (0x03, [], .other(streamType: 0x03), 0xBD),
    ]

    @Test(arguments: codecCases.indices)
    func streamTypesNameCodecs(_ index: Int) {
        let row = Self.codecCases[index]
        let codec = TSStreamCodec(streamType: row.streamType, descriptors: row.descriptors)
        #expect(codec == row.codec)
        #expect(codec.streamType == row.streamType)
        #expect(codec.streamID == row.streamID)
        if case .other = codec {} else { #expect(codec.descriptors == row.descriptors) }
    }
}
