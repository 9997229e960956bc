import Testing
import MediaFormats

@Suite("AV1: leb128, OBUs, sequence header, av1C, temporal units")
struct AV1Tests {
    struct LEB128Case: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let value: UInt64
        var testDescription: String { "\(bytes)" }
    }

    static let leb128: [LEB128Case] = [
        .init(bytes: [0x00], value: 0), .init(bytes: [0x7F], value: 127), .init(bytes: [0x80, 0x01], value: 128),
        .init(bytes: [0xE5, 0x8E, 0x26], value: 624_485), .init(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F], value: 0xFFFF_FFFF),
    ]

    @Test(arguments: leb128)
    func leb128RoundTrips(_ c: LEB128Case) throws {
        var reader = ByteReader(c.bytes)
        #expect(try LEB128.read(from: &reader) == c.value)
        #expect(reader.isAtEnd)
        var written: [UInt8] = []
        try LEB128.write(c.value, into: &written)
        #expect(written == c.bytes)
    }

    @Test func leb128RejectsMalformedValues() throws {
        var padded = ByteReader([0x80, 0x80, 0x00])  // not minimal, but allowed
        #expect(try LEB128.read(from: &padded) == 0)
        for (bytes, error) in [
            ([0x80] as [UInt8], MediaFormatError.truncated(needed: 1, available: 0)),
            (Array(repeating: 0x80, count: 8) + [0x01], .invalid(structure: "leb128", reason: "more than 8 bytes")),
            ([0x80, 0x80, 0x80, 0x80, 0x10], .invalid(structure: "leb128", reason: "value 4294967296 over 2^32 − 1")),
        ] {
            var reader = ByteReader(bytes)
            #expect(throws: error) { try LEB128.read(from: &reader) }
        }
        var out: [UInt8] = []
        #expect(throws: MediaFormatError.self) { try LEB128.write(1 << 32, into: &out) }
    }

    /// Expected values are ffprobe's for the same streams (profile, size, pixel format).
    struct StreamCase: Sendable, CustomTestStringConvertible {
        let name: String
        let stream: AV1Fixtures.Stream
        let profile: UInt8, width: Int, height: Int, bitDepth: Int, frames: Int
        var testDescription: String { name }
    }

    static let streams: [StreamCase] = [
        .init(name: "libaom Main 8-bit 4:2:0 64x48", stream: AV1Fixtures.aom, profile: 0, width: 64, height: 48, bitDepth: 8, frames: 5),
        .init(name: "SVT-AV1 Main 10-bit 4:2:0 160x90", stream: AV1Fixtures.svt10, profile: 0, width: 160, height: 90, bitDepth: 10, frames: 6),
    ]

    static func temporalUnits(_ stream: [UInt8]) throws -> [[UInt8]] {
        var units: [[UInt8]] = []
        for obu in try AV1OBU.all(in: stream) {
            if obu.header.type == .temporalDelimiter { units.append([]); continue }
            var bytes: [UInt8] = []
            try obu.write(into: &bytes)
            units[units.count - 1] += bytes
        }
        return units
    }

    @Test(arguments: streams)
    func parsesTheSequenceHeaderFFprobeDescribes(_ c: StreamCase) throws {
        let obus = try AV1OBU.all(in: c.stream.obuStream)
        #expect(obus.first?.header.type == .temporalDelimiter)
        #expect(obus.filter { $0.header.type == .temporalDelimiter }.count == c.frames)
        let payload = try #require(obus.first { $0.header.type == .sequenceHeader }).payload
        let header = try AV1SequenceHeader(parsing: payload)
        #expect(header.seqProfile == c.profile)
        #expect(header.maxFrameWidth == c.width && header.maxFrameHeight == c.height)
        #expect(header.colorConfig.bitDepth == c.bitDepth)
        #expect(!header.colorConfig.monochrome && header.colorConfig.subsamplingX && header.colorConfig.subsamplingY)
        #expect(!header.stillPicture && !header.reducedStillPictureHeader)
        #expect(header.operatingPoints.first?.levelIdx == 0)
    }

    @Test(arguments: streams)
    func av1CMatchesWhatFFmpegWrites(_ c: StreamCase) throws {
        let record = try AV1CodecConfigurationRecord(parsing: c.stream.av1C)
        #expect(try record.serialized() == c.stream.av1C)
        let header = try #require(try record.sequenceHeader())
        #expect(record.seqProfile == header.seqProfile)
        #expect(record.highBitdepth == (c.bitDepth > 8) && !record.twelveBit && !record.monochrome)
        #expect(record.chromaSubsamplingX && record.chromaSubsamplingY)
        // Built from the in-band sequence header OBU, it is the record FFmpeg wrote.
        let obu = try #require(try AV1OBU.all(in: c.stream.obuStream).first { $0.header.type == .sequenceHeader })
        var obuBytes: [UInt8] = []
        try obu.write(into: &obuBytes)
        #expect(try AV1CodecConfigurationRecord(sequenceHeaderOBU: obuBytes) == record)
    }

    @Test(arguments: streams)
    func findsKeyframeTemporalUnits(_ c: StreamCase) throws {
        let units = try Self.temporalUnits(c.stream.obuStream)
        #expect(units.count == c.frames)
        let first = try AV1TemporalUnit(parsing: units[0])
        #expect(first.isKeyframe && first.sequenceHeader != nil)
        #expect(try !AV1TemporalUnit(parsing: units[1]).isKeyframe)
        // FFmpeg 8's FLV samples: the first starts the stream, the second does not.
        #expect(try AV1TemporalUnit(parsing: c.stream.firstSample).isKeyframe)
        #expect(try !AV1TemporalUnit(parsing: c.stream.secondSample).isKeyframe)
    }

    @Test(arguments: streams)
    func truncatedAndCorruptSequenceHeadersNeverTrap(_ c: StreamCase) throws {
        let payload = try #require(try AV1OBU.all(in: c.stream.obuStream).first { $0.header.type == .sequenceHeader }).payload
        let bytes = Array(payload)
        for prefix in truncatedPrefixes(of: bytes) {
            #expect(throws: MediaFormatError.self, "\(prefix.count) bytes") { try AV1SequenceHeader(parsing: prefix[...]) }
        }
        for index in bytes.indices {
            for bit in 0..<8 {
                var corrupted = bytes
                corrupted[index] ^= 1 << bit
                _ = try? AV1SequenceHeader(parsing: corrupted[...])
            }
        }
        for prefix in truncatedPrefixes(of: c.stream.av1C) {
            if prefix.count == AV1CodecConfigurationRecord.fixedSize {
                #expect(try AV1CodecConfigurationRecord(parsing: prefix).configOBUs.isEmpty)  // configOBUs are optional
            } else {
                #expect(throws: MediaFormatError.self, "\(prefix.count) bytes") { try AV1CodecConfigurationRecord(parsing: prefix) }
            }
        }
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let malformedOBUs: [Malformed] = [
        .init(name: "forbidden bit", bytes: [0x92, 0x00], error: .invalid(structure: "AV1 OBU header", reason: "obu_forbidden_bit set")),
        .init(name: "size past the end", bytes: [0x0A, 0x0B, 0x00], error: .truncated(needed: 11, available: 1)),
        .init(name: "absurd size", bytes: [0x32, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], error: .truncated(needed: 0xFFFF_FFFF, available: 0)),
        .init(name: "extension byte missing", bytes: [0x36], error: .truncated(needed: 1, available: 0)),
        .init(name: "size missing", bytes: [0x12], error: .truncated(needed: 1, available: 0)),
    ]

    @Test(arguments: malformedOBUs)
    func rejectsMalformedOBUs(_ m: Malformed) {
        #expect(throws: m.error) { try AV1OBU.all(in: m.bytes) }
    }

    @Test func readsOBUExtensionsAndUnsizedLastOBUs() throws {
        // A frame OBU with temporal_id 2, spatial_id 1, sized; then a padding OBU without obu_size.
        let obus = try AV1OBU.all(in: [0x36, 0x48, 0x02, 0x10, 0x00, 0x78, 0xAA, 0xBB])
        #expect(obus.count == 2)
        #expect(obus[0].header == AV1OBUHeader(type: .frame, extensionIds: .init(temporalId: 2, spatialId: 1)))
        #expect(Array(obus[0].payload) == [0x10, 0x00])
        #expect(obus[1].header == AV1OBUHeader(type: .padding, hasSizeField: false))
        #expect(Array(obus[1].payload) == [0xAA, 0xBB])
        var written: [UInt8] = []
        try obus[0].write(into: &written)
        #expect(written == [0x36, 0x48, 0x02, 0x10, 0x00])
        // A shown key frame (show_existing_frame 0, frame_type 0, show_frame 1) without a sequence header.
        let keyWithoutHeader = try AV1TemporalUnit(parsing: [0x32, 0x01, 0x10])
        #expect(keyWithoutHeader.startsWithShownKeyFrame && !keyWithoutHeader.isKeyframe)
        #expect(try !AV1TemporalUnit(parsing: [0x32, 0x01, 0x80]).startsWithShownKeyFrame)  // show_existing_frame
        #expect(try !AV1TemporalUnit(parsing: [0x32, 0x01, 0x00]).startsWithShownKeyFrame)  // hidden key frame
    }

    @Test func av1CRejectsMalformedRecords() throws {
        #expect(throws: MediaFormatError.invalid(structure: "AV1CodecConfigurationRecord", reason: "marker/version byte 1 (must be 0x81)")) {
            try AV1CodecConfigurationRecord(parsing: [0x01, 0x00, 0x0C, 0x00])
        }
        #expect(throws: MediaFormatError.truncated(needed: 10, available: 1)) {
            try AV1CodecConfigurationRecord(parsing: [0x81, 0x00, 0x0C, 0x00, 0x0A, 0x0A, 0x00])
        }
        let withDelay = try AV1CodecConfigurationRecord(parsing: [0x81, 0x48, 0x8E, 0x1F])
        #expect(withDelay.initialPresentationDelayMinusOne == 15 && withDelay.seqLevelIdx0 == 8 && withDelay.seqTier0)
        #expect(withDelay.chromaSamplePosition == 2 && withDelay.configOBUs.isEmpty)
        #expect(try withDelay.serialized() == [0x81, 0x48, 0x8E, 0x1F])
        #expect(try withDelay.sequenceHeader() == nil)
        #expect(throws: MediaFormatError.unsupported(structure: "AV1 sequence header", reason: "seq_profile 3")) {
            try AV1SequenceHeader(parsing: [0x60, 0x00][...])
        }
    }
}
