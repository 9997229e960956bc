import Testing
@testable import MediaFormats

/// The packet-layer structures: one case table per structure drives parse, write and truncation.
@Suite struct TSPacketStructureTests {
    static let headerCases: [(name: String, bytes: [UInt8], header: TSPacketHeader)] = [
        ("ffmpeg PAT: PUSI, PID 0, payload only, CC 0", [0x47, 0x40, 0x00, 0x10],
         TSPacketHeader(pid: 0, payloadUnitStartIndicator: true)),
        ("ffmpeg video start: PID 0x100, adaptation + payload, CC 0", [0x47, 0x41, 0x00, 0x30],
         TSPacketHeader(pid: 0x100, payloadUnitStartIndicator: true, adaptationFieldControl: .adaptationFieldAndPayload)),
        ("adaptation only, CC 15", [0x47, 0x01, 0x00, 0x2F],
         TSPacketHeader(pid: 0x100, adaptationFieldControl: .adaptationFieldOnly, continuityCounter: 15)),
        ("every flag, null PID, scrambled", [0x47, 0xFF, 0xFF, 0xD7],
         TSPacketHeader(pid: 0x1FFF, payloadUnitStartIndicator: true, adaptationFieldControl: .payloadOnly,
                        continuityCounter: 7, transportErrorIndicator: true, transportPriority: true, scramblingControl: 3)),
        ("reserved adaptation_field_control", [0x47, 0x00, 0x11, 0x05],
         TSPacketHeader(pid: 0x11, adaptationFieldControl: .reserved, continuityCounter: 5)),
    ]

    @Test(arguments: headerCases.indices)
    func packetHeaderParsesAndWrites(_ index: Int) throws {
        let row = Self.headerCases[index]
        #expect(try TSPacketHeader(parsing: row.bytes) == row.header, "\(row.name)")
        var written: [UInt8] = []
        row.header.write(into: &written)
        #expect(written == row.bytes, "\(row.name)")
        for length in 1..<row.bytes.count {
            #expect(throws: MediaFormatError.truncated(needed: 4, available: length)) { try TSPacketHeader(parsing: row.bytes.prefix(length)) }
        }
    }

    @Test func packetHeaderNeedsTheSyncByte() {
        #expect(throws: MediaFormatError.invalid(structure: "TS packet header", reason: "sync_byte is 0x46, not 0x47")) {
            try TSPacketHeader(parsing: [0x46, 0x40, 0x00, 0x10])
        }
    }

    static let pcrCases: [(bytes: [UInt8], base: Int64, extensionValue: Int)] = [
        // ffmpeg's first PCR in the fixture: base 63000 (0.7 s before its first DTS of 1.4 s), extension 0.
        ([0x00, 0x00, 0x7B, 0x0C, 0x7E, 0x00], 63_000, 0),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], (1 << 33) - 1, 511),
        ([0x00, 0x00, 0x00, 0x00, 0x7F, 0x2B], 0, 299),
    ]

    @Test(arguments: pcrCases.indices)
    func programClockReferenceParsesAndWrites(_ index: Int) throws {
        let row = Self.pcrCases[index]
        let pcr = try ProgramClockReference(parsing: row.bytes)
        #expect(pcr.base == row.base && pcr.extensionValue == row.extensionValue)
        #expect(pcr.ticks27MHz == row.base * 300 + Int64(row.extensionValue))
        var written: [UInt8] = []
        pcr.write(into: &written)
        #expect(written == row.bytes)
        #expect(throws: MediaFormatError.truncated(needed: 6, available: 5)) { try ProgramClockReference(parsing: row.bytes.prefix(5)) }
    }

    @Test func programClockReferenceBaseWrapsAt33Bits() {
        #expect(ProgramClockReference(base: (1 << 33) + 5).base == 5)
        #expect(ProgramClockReference(base: -1).base == (1 << 33) - 1)
    }

    static let adaptationCases: [(name: String, bytes: [UInt8], field: TSAdaptationField, stuffing: Int)] = [
        ("length 0: one stuffing byte", [0x00], TSAdaptationField(), 0),
        ("flags only, 3 stuffing bytes", [0x04, 0x00, 0xFF, 0xFF, 0xFF], TSAdaptationField(), 3),
        ("ffmpeg keyframe: random access + PCR", [0x07, 0x50, 0x00, 0x00, 0x7B, 0x0C, 0x7E, 0x00],
         TSAdaptationField(randomAccessIndicator: true, pcr: ProgramClockReference(base: 63_000)), 0),
        ("discontinuity", [0x01, 0x80], TSAdaptationField(discontinuityIndicator: true), 0),
        ("every optional field", [0x14, 0x3F, 0, 0, 0, 0, 0x7E, 0x01, 0, 0, 0, 0, 0x7E, 0x02, 0xFD, 0x02, 0xAA, 0xBB, 0x01, 0xCC, 0xFF],
         {
             var field = TSAdaptationField(pcr: ProgramClockReference(base: 0, extensionValue: 1))
             field.elementaryStreamPriorityIndicator = true
             field.originalPCR = ProgramClockReference(base: 0, extensionValue: 2)
             field.spliceCountdown = -3
             field.transportPrivateData = [0xAA, 0xBB]
             field.extensionBytes = [0xCC]
             return field
         }(), 1),
    ]

    @Test(arguments: adaptationCases.indices)
    func adaptationFieldParsesAndWrites(_ index: Int) throws {
        let row = Self.adaptationCases[index]
        let (field, length) = try TSAdaptationField.parse(row.bytes[...])
        #expect(length == row.bytes.count, "\(row.name)")
        #expect(field.stuffingCount == row.stuffing, "\(row.name)")
        var expected = row.field
        var written: [UInt8] = []
        expected.write(encodedLength: row.bytes.count, into: &written)
        #expect(written == row.bytes, "\(row.name)")
        // Equal but for the parsed stuffing count, which writing does not set.
        expected = try TSAdaptationField.parse(written[...]).field
        #expect(field == expected, "\(row.name)")
        if row.bytes.count > 1 {
            #expect(throws: MediaFormatError.self) { try TSAdaptationField.parse(row.bytes.dropLast()) }
        }
    }

    @Test func adaptationFieldLengthOverThePacketIsInvalid() {
        #expect(throws: MediaFormatError.invalid(structure: "TS adaptation field", reason: "adaptation_field_length 184 (at most 183)")) {
            try TSAdaptationField.parse([184] + [UInt8](repeating: 0xFF, count: 184))
        }
    }

    @Test func minimumEncodedLengthCountsEachField() {
        #expect(TSAdaptationField().minimumEncodedLength == 1)
        #expect(TSAdaptationField(randomAccessIndicator: true).minimumEncodedLength == 2)
        #expect(TSAdaptationField(pcr: ProgramClockReference(base: 1)).minimumEncodedLength == 8)
    }

    @Test func crc32MPEG2CheckValueAndSections() {
        // The catalogued check value of CRC-32/MPEG-2 over "123456789".
        #expect(CRC32MPEG2.checksum(Array("123456789".utf8)) == 0x0376_E6E7)
        #expect(CRC32MPEG2.checksum([UInt8]()) == 0xFFFF_FFFF)
        // ffmpeg's PAT section, CRC_32 included, sums to 0.
        #expect(CRC32MPEG2.checksum(TSTableFixtures.ffmpegPATSection) == 0)
    }
}
