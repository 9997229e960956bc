import Testing
@testable import MediaFormats

@Suite("HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 §8.3.3)")
struct HEVCDecoderConfigurationRecordTests {
    static let streams: [(String, HEVCFixtures.Stream)] = [
        ("Main", HEVCFixtures.main), ("Main 10", HEVCFixtures.main10), ("RExt 4:4:4", HEVCFixtures.rext444),
    ]
    static let names = streams.map(\.0)
    static func stream(_ name: String) -> HEVCFixtures.Stream { streams.first { $0.0 == name }?.1 ?? HEVCFixtures.main }

    @Test(arguments: names)
    func parsesAndWritesBackWhatFFmpegWrites(_ name: String) throws {
        let s = Self.stream(name)
        let record = try HEVCDecoderConfigurationRecord(parsing: s.hvcC)
        #expect(record.nalUnitLengthSize == 4)
        #expect(record.nalUnits(ofType: .videoParameterSet) == [s.vps])
        #expect(record.nalUnits(ofType: .sequenceParameterSet) == [s.sps])
        #expect(record.nalUnits(ofType: .pictureParameterSet) == [s.pps])
        #expect(try record.serialized() == s.hvcC)
        #expect(HEVCDecoderConfigurationRecord.isHVCC(s.hvcC))
        #expect(!HEVCDecoderConfigurationRecord.isHVCC(annexB([s.vps, s.sps, s.pps])))
    }

    @Test(arguments: names)
    func buildsWhatFFmpegBuildsFromParameterSets(_ name: String) throws {
        let s = Self.stream(name)
        let ffmpeg = try HEVCDecoderConfigurationRecord(parsing: s.hvcC)
        var built = try HEVCDecoderConfigurationRecord(
            videoParameterSets: [s.vps], sequenceParameterSets: [s.sps], pictureParameterSets: [s.pps])
        #expect(built.arrays.allSatisfy { $0.completeness })
        // FFmpeg's FLV muxer writes array_completeness 0 and keeps x265's SEI array; everything else is the same.
        built.arrays = built.arrays.map { .init(completeness: false, nalUnitType: $0.nalUnitType, nalUnits: $0.nalUnits) }
        var expected = ffmpeg
        expected.arrays = ffmpeg.arrays.filter { $0.nalUnitType.isParameterSet }
        #expect(built == expected)
    }

    @Test(arguments: names)
    func everyTruncationThrows(_ name: String) {
        for prefix in truncatedPrefixes(of: Self.stream(name).hvcC) {
            #expect(throws: MediaFormatError.self, "\(prefix.count) bytes") { try HEVCDecoderConfigurationRecord(parsing: prefix) }
        }
    }

    @Test func roundTripsEveryField() throws {
        let record = HEVCDecoderConfigurationRecord(
            profileTierLevel: .init(profileSpace: 1, tierFlag: true, profileIdc: 2, profileCompatibilityFlags: 0x2000_0000,
                                    constraintIndicatorFlags: 0xB000_0000_0001, levelIdc: 153),
            minSpatialSegmentationIdc: 0xABC, parallelismType: 3, chromaFormatIdc: 2, bitDepthLuma: 12, bitDepthChroma: 10,
            averageFrameRate: 7680, constantFrameRate: 1, numTemporalLayers: 3, temporalIdNested: true, nalUnitLengthSize: 2,
            arrays: [.init(completeness: true, nalUnitType: .videoParameterSet, nalUnits: [HEVCFixtures.main.vps]),
                     .init(completeness: false, nalUnitType: .prefixSEI, nalUnits: [[0x4E, 0x01, 0x05], [0x4E, 0x01, 0x06]])])
        let bytes = try record.serialized()
        #expect(bytes[0...1] == [1, 0x62])
        #expect(bytes[21] == 0x5D)  // 01 011 1 01: constant, 3 layers, nested, 2-byte lengths
        #expect(try HEVCDecoderConfigurationRecord(parsing: bytes) == record)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let header = HEVCFixtures.main.hvcC.prefix(22)
    static let malformed: [Malformed] = [
        Malformed(name: "empty", bytes: [], error: .truncated(needed: 1, available: 0)),
        Malformed(name: "Annex B (configurationVersion 0)", bytes: [0, 0, 0, 1, 0x40, 0x01] + Array(repeating: 0, count: 20),
                  error: .invalid(structure: "HEVCDecoderConfigurationRecord", reason: "configurationVersion 0 (must be 1)")),
        Malformed(name: "lengthSizeMinusOne 2", bytes: Array(header.dropLast()) + [0x0E, 0],
                  error: .invalid(structure: "AVCC", reason: "NAL unit length size 3 (must be 1, 2 or 4)")),
        Malformed(name: "NAL unit of 1 byte", bytes: Array(header) + [1, 0xA0, 0, 1, 0, 1, 0x40],
                  error: .invalid(structure: "HEVCDecoderConfigurationRecord", reason: "NAL unit of 1 bytes")),
        Malformed(name: "NAL unit length past the end", bytes: Array(header) + [1, 0xA0, 0, 1, 0xFF, 0xFF, 0x40, 0x01],
                  error: .truncated(needed: 0xFFFF, available: 2)),
        Malformed(name: "65535 NAL units announced, none present", bytes: Array(header) + [1, 0xA0, 0xFF, 0xFF],
                  error: .truncated(needed: 2, available: 0)),
        Malformed(name: "255 arrays announced, none present", bytes: Array(header) + [0xFF],
                  error: .truncated(needed: 1, available: 0)),
    ]

    @Test(arguments: malformed)
    func rejects(_ m: Malformed) {
        #expect(throws: m.error) { try HEVCDecoderConfigurationRecord(parsing: m.bytes) }
    }

    @Test func refusesRecordsWithoutAnSPSOrOutOfRangeFields() {
        #expect(throws: MediaFormatError.invalid(structure: "HEVCDecoderConfigurationRecord", reason: "no SPS")) {
            try HEVCDecoderConfigurationRecord(videoParameterSets: [HEVCFixtures.main.vps], sequenceParameterSets: [],
                                               pictureParameterSets: [HEVCFixtures.main.pps])
        }
        var record = HEVCDecoderConfigurationRecord(
            profileTierLevel: .init(profileSpace: 0, tierFlag: false, profileIdc: 1, profileCompatibilityFlags: 0,
                                    constraintIndicatorFlags: 0, levelIdc: 30),
            chromaFormatIdc: 1, bitDepthLuma: 16, bitDepthChroma: 8, numTemporalLayers: 1, temporalIdNested: true, arrays: [])
        #expect(throws: MediaFormatError.self) { try record.serialized() }
        record.bitDepthLuma = 8
        record.arrays = [.init(completeness: true, nalUnitType: .sequenceParameterSet, nalUnits: [Array(repeating: 0x42, count: 0x1_0000)])]
        #expect(throws: MediaFormatError.limitExceeded(what: "hvcC NAL unit length", value: 0x1_0000, limit: 0xFFFF)) {
            try record.serialized()
        }
    }
}
