import SluiceTestSupport
import Testing
import MediaFormats

@Suite("AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1)")
struct AVCDecoderConfigurationRecordTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stream: H264Fixtures.Stream
        /// The avcC FFmpeg writes for the same SPS/PPS (`ffmpeg -i x.h264 -c copy x.mp4; ffprobe -show_data`).
        let ffmpegRecord: [UInt8]
        let trailer: AVCDecoderConfigurationRecord.HighProfileFields?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "baseline", stream: H264Fixtures.baseline,
             ffmpegRecord: H264Fixtures.hex("0142c00dffe100186742c00dd90141fb011000000300100000030320f142a48001000568cb83cb20"), trailer: nil),
        Case(name: "main", stream: H264Fixtures.hrd,
             ffmpegRecord: H264Fixtures.hex("014d401fffe10023674d401feca05017fcb8088000000300800000323030007a12000f425369c03c60c65801000468ebecb2"),
             trailer: nil),
        Case(name: "high", stream: H264Fixtures.high,
             ffmpegRecord: H264Fixtures.hex("01640028ffe1001b67640028acd940780227a9b0110000030001000003003c0f18319601000668ebe3cb22c0fdf8f800"),
             trailer: .init(chromaFormat: 1, bitDepthLuma: 8, bitDepthChroma: 8)),
        Case(name: "high 10", stream: H264Fixtures.high10,
             ffmpegRecord: H264Fixtures.hex("016e000dffe10018676e000da6cd9416096c04400000fa40002ee003c50a658001000668ebe3cb22c0fdfafa00"),
             trailer: .init(chromaFormat: 1, bitDepthLuma: 10, bitDepthChroma: 10)),
        Case(name: "high 4:4:4", stream: H264Fixtures.high444,
             ffmpegRecord: H264Fixtures.hex("01f4000dffe1001b67f4000d919b282a33c7c5e022000003000200000300781e28532c01000668ebe3c44844fff8f800"),
             trailer: .init(chromaFormat: 3, bitDepthLuma: 8, bitDepthChroma: 8)),
    ]

    @Test(arguments: cases)
    func buildsWhatFFmpegBuilds(_ c: Case) throws {
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [c.stream.sps], pictureParameterSets: [c.stream.pps])
        #expect(record.profileIndication == c.stream.sps[1])
        #expect(record.profileCompatibility == c.stream.sps[2])
        #expect(record.levelIndication == c.stream.sps[3])
        #expect(record.nalUnitLengthSize == 4)
        #expect(record.highProfileFields == c.trailer)
        #expect(try record.serialized() == c.ffmpegRecord)
    }

    @Test(arguments: cases)
    func parsesWhatFFmpegWrites(_ c: Case) throws {
        let record = try AVCDecoderConfigurationRecord(parsing: c.ffmpegRecord)
        #expect(record.configurationVersion == 1)
        #expect(record.sequenceParameterSets == [c.stream.sps])
        #expect(record.pictureParameterSets == [c.stream.pps])
        #expect(record.highProfileFields == c.trailer)
        #expect(try record.serialized() == c.ffmpegRecord)
        #expect(AVCDecoderConfigurationRecord.isAVCC(c.ffmpegRecord))
        #expect(!AnnexB.hasStartCode(c.ffmpegRecord))
    }

    @Test(arguments: cases)
    func buildsFromAnnexBExtradata(_ c: Case) throws {
        // What FFmpeg hands over for MPEG-TS/raw input or a global-header encoder, with an AUD and SEI around.
        let extradata = annexB([[0x09, 0xF0], c.stream.sps]) + annexB([[0x06, 0x05, 0x01, 0x80], c.stream.pps], short: true) + [0, 0]
        #expect(!AVCDecoderConfigurationRecord.isAVCC(extradata))
        let record = try AVCDecoderConfigurationRecord(annexB: extradata)
        #expect(try record.serialized() == c.ffmpegRecord)
    }

    /// Many files (older FFmpeg, some cameras) stop after the PPS even for High profiles.
    @Test func toleratesMissingHighProfileTrailer() throws {
        let full = Self.cases[2].ffmpegRecord
        let withoutTrailer = Array(full.dropLast(4))
        let record = try AVCDecoderConfigurationRecord(parsing: withoutTrailer)
        #expect(record.highProfileFields == nil)
        #expect(record.sequenceParameterSets == [H264Fixtures.high.sps])
        #expect(try record.serialized() == withoutTrailer)
    }

    @Test(arguments: cases)
    func everyTruncationThrowsExceptAtTheOptionalTrailer(_ c: Case) throws {
        let trailerStart = c.trailer == nil ? c.ffmpegRecord.count : c.ffmpegRecord.count - 4
        for prefix in truncatedPrefixes(of: c.ffmpegRecord) {
            if prefix.count == trailerStart {
                #expect(try AVCDecoderConfigurationRecord(parsing: prefix).highProfileFields == nil)
            } else {
                #expect(throws: MediaFormatError.self, "\(prefix.count) bytes") { try AVCDecoderConfigurationRecord(parsing: prefix) }
            }
        }
    }

    @Test func roundTripsSeveralSetsExtensionsAndLengthSizes() throws {
        for lengthSize in [1, 2, 4] {
            let record = AVCDecoderConfigurationRecord(
                profileIndication: 100, profileCompatibility: 0, levelIndication: 31, nalUnitLengthSize: lengthSize,
                sequenceParameterSets: [H264Fixtures.high.sps, H264Fixtures.scalingLists420],
                pictureParameterSets: [H264Fixtures.high.pps, H264Fixtures.fmoType4PPS, H264Fixtures.weightedPPS],
                highProfileFields: .init(chromaFormat: 2, bitDepthLuma: 9, bitDepthChroma: 12, sequenceParameterSetExtensions: [[0x6D, 0x80]]))
            let bytes = try record.serialized()
            #expect(bytes[4] == 0xFC | UInt8(lengthSize - 1))
            #expect(try AVCDecoderConfigurationRecord(parsing: bytes) == record)
        }
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "empty", bytes: [], error: .truncated(needed: 1, available: 0)),
        Malformed(name: "configurationVersion 0 (Annex B extradata)", bytes: [0, 0, 0, 1, 0x67],
                  error: .invalid(structure: "AVCDecoderConfigurationRecord", reason: "configurationVersion 0 (must be 1)")),
        Malformed(name: "lengthSizeMinusOne 2", bytes: [1, 0x42, 0, 0x1E, 0xFE, 0xE0, 0],
                  error: .invalid(structure: "AVCC", reason: "NAL unit length size 3 (must be 1, 2 or 4)")),
        Malformed(name: "empty parameter set", bytes: [1, 0x42, 0, 0x1E, 0xFF, 0xE1, 0, 0, 0],
                  error: .invalid(structure: "AVCDecoderConfigurationRecord", reason: "empty parameter set")),
        Malformed(name: "SPS length past the end", bytes: [1, 0x42, 0, 0x1E, 0xFF, 0xE1, 0, 9, 0x67],
                  error: .truncated(needed: 9, available: 1)),
        Malformed(name: "partial High trailer", bytes: Array(cases[2].ffmpegRecord.dropLast(2)), error: .truncated(needed: 1, available: 0)),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: Malformed) {
        #expect(throws: c.error) { try AVCDecoderConfigurationRecord(parsing: c.bytes) }
    }

    @Test func writeChecksFieldLimits() {
        let base = AVCDecoderConfigurationRecord(
            profileIndication: 66, profileCompatibility: 0, levelIndication: 30,
            sequenceParameterSets: [H264Fixtures.baseline.sps], pictureParameterSets: [H264Fixtures.baseline.pps])
        var tooLong = base
        tooLong.sequenceParameterSets = [[0x67] + [UInt8](repeating: 1, count: 65535)]
        #expect(throws: MediaFormatError.limitExceeded(what: "parameter set length", value: 65536, limit: 65535)) { try tooLong.serialized() }
        var tooMany = base
        tooMany.sequenceParameterSets = Array(repeating: H264Fixtures.baseline.sps, count: 32)
        #expect(throws: MediaFormatError.limitExceeded(what: "numOfSequenceParameterSets", value: 32, limit: 31)) { try tooMany.serialized() }
        var tooManyPPS = base
        tooManyPPS.pictureParameterSets = Array(repeating: H264Fixtures.baseline.pps, count: 256)
        #expect(throws: MediaFormatError.limitExceeded(what: "numOfPictureParameterSets", value: 256, limit: 255)) { try tooManyPPS.serialized() }
        var badLength = base
        badLength.nalUnitLengthSize = 3
        #expect(throws: MediaFormatError.invalid(structure: "AVCC", reason: "NAL unit length size 3 (must be 1, 2 or 4)")) { try badLength.serialized() }
        var output: [UInt8] = []
        #expect(throws: MediaFormatError.self) { try tooLong.write(into: &output) }
    }

    @Test func buildingNeedsBothKindsOfParameterSets() {
        #expect(throws: MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "no sequence parameter set")) {
            try AVCDecoderConfigurationRecord(annexB: annexB([H264Fixtures.high.pps]))
        }
        #expect(throws: MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "no picture parameter set")) {
            try AVCDecoderConfigurationRecord(sequenceParameterSets: [H264Fixtures.high.sps], pictureParameterSets: [])
        }
        #expect(throws: MediaFormatError.invalid(structure: "AVCDecoderConfigurationRecord", reason: "first parameter set is not an SPS")) {
            try AVCDecoderConfigurationRecord(sequenceParameterSets: [H264Fixtures.high.pps], pictureParameterSets: [H264Fixtures.high.pps])
        }
    }

    /// The record reads only the SPS fields it needs, so an SPS with a damaged VUI still yields a record.
    @Test func damagedVUIStillBuildsARecord() throws {
        let damaged = Array(H264Fixtures.high.sps.prefix(12))
        #expect(throws: MediaFormatError.self) { try SequenceParameterSet(parsing: damaged) }
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [damaged], pictureParameterSets: [H264Fixtures.high.pps])
        #expect(record.highProfileFields == .init(chromaFormat: 1, bitDepthLuma: 8, bitDepthChroma: 8))
    }

    @Test func randomInputNeverCrashes() {
        var generator = SeededGenerator(seed: 1449615)
        var parsed = 0
        for _ in 0..<2000 {
            var bytes = generator.bytes(Int.random(in: 0...48, using: &generator))
            if !bytes.isEmpty { bytes[0] = 1 }
            if let record = try? AVCDecoderConfigurationRecord(parsing: bytes) {
                parsed += 1
                #expect(record.configurationVersion == 1)
            }
        }
        #expect(parsed < 2000)
    }
}
