import SluiceTestSupport
import Testing
import MediaFormats

@Suite("AVCC → Annex B converter (parameter-set injection)")
struct AVCCToAnnexBTests {
    static let sps = H264Fixtures.closedGOPSPS
    static let pps = H264Fixtures.closedGOPPPS
    static let idr = H264Fixtures.closedGOPSlices[0]
    static let p = H264Fixtures.closedGOPSlices[1]
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
    static let otherSPS = H264Fixtures.high.sps
    static let otherPPS = H264Fixtures.highScalingMatrix.pps

    static func record(lengthSize: Int = 4, sps: [UInt8] = sps, pps: [UInt8] = pps) throws -> AVCDecoderConfigurationRecord {
        try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps], pictureParameterSets: [pps], nalUnitLengthSize: lengthSize)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let sample: [[UInt8]]
        let output: [[UInt8]]
        let isKeyframe: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "IDR without parameter sets: record's injected", sample: [sei, idr], output: [sei, sps, pps, idr], isKeyframe: true),
        Case(name: "IDR with in-band SPS and PPS: nothing injected", sample: [otherSPS, otherPPS, idr],
             output: [otherSPS, otherPPS, idr], isKeyframe: true),
        Case(name: "IDR with in-band SPS only: PPS injected", sample: [otherSPS, idr], output: [otherSPS, pps, idr], isKeyframe: true),
        Case(name: "IDR with in-band PPS only: SPS injected", sample: [otherPPS, idr], output: [otherPPS, sps, idr], isKeyframe: true),
        Case(name: "parameter sets after the IDR do not count", sample: [idr, otherSPS, otherPPS],
             output: [sps, pps, idr, otherSPS, otherPPS], isKeyframe: true),
        Case(name: "two IDR slices: injected once", sample: [idr, idr], output: [sps, pps, idr, idr], isKeyframe: true),
        Case(name: "non-IDR: passed through", sample: [sei, p], output: [sei, p], isKeyframe: false),
        Case(name: "zero-length NAL units skipped", sample: [[], p, []], output: [p], isKeyframe: false),
        Case(name: "empty sample", sample: [], output: [], isKeyframe: false),
    ]

    @Test(arguments: cases, [1, 2, 4])
    func converts(_ c: Case, lengthSize: Int) throws {
        var converter = try AVCCToAnnexBConverter(record: try Self.record(lengthSize: lengthSize))
        let sample = avcc(c.sample, lengthSize: lengthSize)
        let (bytes, isKeyframe) = try converter.convert(sample)
        #expect(bytes == annexB(c.output))
        #expect(isKeyframe == c.isKeyframe)
    }

    @Test func inBandParameterSetsReplaceTheRecordsFromThenOn() throws {
        var converter = try AVCCToAnnexBConverter(record: try Self.record())
        _ = try converter.convert(avcc([Self.otherSPS, Self.otherPPS, Self.p]))  // in-band, in a non-IDR sample
        #expect(try converter.convert(avcc([Self.idr])).bytes == annexB([Self.otherSPS, Self.otherPPS, Self.idr]))
        converter.reset()
        #expect(try converter.convert(avcc([Self.idr])).bytes == annexB([Self.sps, Self.pps, Self.idr]))
    }

    @Test func parameterSetsOfSeveralIdsAreAllInjected() throws {
        let record = AVCDecoderConfigurationRecord(
            profileIndication: 66, profileCompatibility: 0, levelIndication: 30,
            sequenceParameterSets: [Self.sps, H264Fixtures.fmoSPS],
            pictureParameterSets: [H264Fixtures.weightedPPS, Self.pps])
        var converter = try AVCCToAnnexBConverter(record: record)
        #expect(try converter.convert(avcc([Self.idr])).bytes
            == annexB([Self.sps, H264Fixtures.fmoSPS, Self.pps, H264Fixtures.weightedPPS, Self.idr]))
    }

    @Test func newRecordMidStream() throws {
        var converter = try AVCCToAnnexBConverter(record: try Self.record(lengthSize: 4))
        _ = try converter.convert(avcc([Self.idr]))
        let newRecord = try Self.record(lengthSize: 2, sps: Self.otherSPS, pps: Self.otherPPS)
        // New extradata mid-stream is a new converter (what AnnexBConversion.update does).
        converter = try AVCCToAnnexBConverter(record: newRecord)
        #expect(converter.nalUnitLengthSize == 2)
        // The new length size applies to the next sample; the new sets go before the next IDR.
        #expect(try converter.convert(avcc([Self.p], lengthSize: 2)).bytes == annexB([Self.p]))
        #expect(try converter.convert(avcc([Self.idr], lengthSize: 2)).bytes == annexB([Self.otherSPS, Self.otherPPS, Self.idr]))
    }

    @Test func truncatedSampleThrows() throws {
        var converter = try AVCCToAnnexBConverter(record: try Self.record())
        var sample = avcc([Self.p])
        sample.removeLast()
        #expect(throws: MediaFormatError.truncated(needed: Self.p.count, available: Self.p.count - 1)) { try converter.convert(sample) }
        var output: [UInt8] = []
        #expect(throws: MediaFormatError.truncated(needed: 4, available: 2)) {
            try ([0, 0] as [UInt8]).withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in try converter.convert(buffer, into: &output) }
        }
    }

    @Test func rejectsRecordsItCannotUse() throws {
        var bad = try Self.record()
        bad.nalUnitLengthSize = 3
        #expect(throws: MediaFormatError.invalid(structure: "AVCC", reason: "NAL unit length size 3 (must be 1, 2 or 4)")) {
            try AVCCToAnnexBConverter(record: bad)
        }
        var noId = try Self.record()
        noId.sequenceParameterSets = [[0x67, 0x42]]
        #expect(throws: MediaFormatError.self) { try AVCCToAnnexBConverter(record: noId) }
    }

    @Test func randomInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 0x3A7B)
        var converted = 0
        for index in 0..<2000 {
            let lengthSize = [1, 2, 4][index % 3]
            var converter = try AVCCToAnnexBConverter(record: try Self.record(lengthSize: lengthSize))
            if let (bytes, _) = try? converter.convert(generator.bytes(Int.random(in: 0...48, using: &generator))) {
                converted += 1
                #expect(bytes.isEmpty || AnnexB.hasStartCode(bytes))
            }
        }
        #expect(converted > 0)
    }
}

@Suite("Annex B parameter-set injector")
struct AnnexBParameterSetInjectorTests {
    static let sps = H264Fixtures.closedGOPSPS
    static let pps = H264Fixtures.closedGOPPPS
    static let idr = H264Fixtures.closedGOPSlices[0]
    static let p = H264Fixtures.closedGOPSlices[1]

    @Test func passesThroughUnchangedWhenNothingIsMissing() throws {
        var injector = try AnnexBParameterSetInjector(extradata: annexB([Self.sps, Self.pps]))
        let units: [[UInt8]] = [
            annexB([[0x09, 0xF0], Self.sps, Self.pps, Self.idr], short: true),
            [0xEE, 0x00] + annexB([Self.p]) + [0, 0],  // garbage before, trailing zeros after
            annexB([Self.p], short: true),
        ]
        for unit in units {
            let (bytes, _) = try injector.convert(unit)
            #expect(bytes == unit)
        }
    }

    @Test(arguments: ["Annex B", "avcC"])
    func insertsBeforeAnIDRThatLacksThem(_ kind: String) throws {
        let extradata = kind == "avcC"
            ? try AVCDecoderConfigurationRecord(sequenceParameterSets: [Self.sps], pictureParameterSets: [Self.pps]).serialized()
            : annexB([Self.sps, Self.pps])
        var injector = try AnnexBParameterSetInjector(extradata: extradata)
        let unit = [0xEE] + annexB([[0x09, 0xF0]]) + [0, 0, 1] + Self.idr + [0, 0, 1] + Self.idr
        let (bytes, isKeyframe) = try injector.convert(unit)
        #expect(isKeyframe)
        // Inserted right before the start code of the first IDR slice; every input byte kept in place around it.
        let insertion = 1 + 6
        #expect(bytes == Array(unit[..<insertion]) + annexB([Self.sps, Self.pps]) + Array(unit[insertion...]))
        #expect(try injector.convert(annexB([Self.p])).isKeyframe == false)
    }

    @Test func insertsOnlyWhatIsMissingAndLearnsInBandSets() throws {
        var injector = try AnnexBParameterSetInjector(extradata: annexB([Self.sps, Self.pps]))
        let other = H264Fixtures.high.sps
        #expect(try injector.convert(annexB([other, Self.idr])).bytes == annexB([other, Self.pps, Self.idr]))
        // The in-band SPS (same id 0) replaced the extradata's.
        #expect(try injector.convert(annexB([Self.idr])).bytes == annexB([other, Self.pps, Self.idr]))
        injector.reset()
        #expect(try injector.convert(annexB([Self.idr])).bytes == annexB([Self.sps, Self.pps, Self.idr]))
    }

    @Test func emptyExtradataInjectsNothingUntilSetsAreSeen() throws {
        var injector = try AnnexBParameterSetInjector(extradata: [])
        #expect(try injector.convert(annexB([Self.idr])).bytes == annexB([Self.idr]))
        _ = try injector.convert(annexB([Self.sps, Self.pps, Self.idr]))
        #expect(try injector.convert(annexB([Self.idr])).bytes == annexB([Self.sps, Self.pps, Self.idr]))
    }

    @Test func randomInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 0x1DB)
        var injector = try AnnexBParameterSetInjector(extradata: annexB([Self.sps, Self.pps]))
        var passed = 0
        for _ in 0..<2000 {
            var bytes = generator.bytes(Int.random(in: 0...48, using: &generator))
            for _ in 0..<3 where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.insert(contentsOf: [0, 0, 1, [0x65, 0x41, 0x67, 0x68][at % 4]], at: at)
            }
            if let (output, _) = try? injector.convert(bytes) {
                passed += 1
                // Nothing is ever dropped: the input survives as a subsequence of the output.
                #expect(output.count >= bytes.count)
            }
        }
        #expect(passed > 0)
    }
}
