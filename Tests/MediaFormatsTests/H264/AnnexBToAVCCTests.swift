import SluiceTestSupport
import Testing
import MediaFormats

@Suite("Annex B → AVCC converter")
struct AnnexBToAVCCTests {
    static let aud: [UInt8] = [0x09, 0xF0]
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
    static let sps = H264Fixtures.closedGOPSPS
    static let pps = H264Fixtures.closedGOPPPS
    static let idr = H264Fixtures.closedGOPSlices[0]
    static let p = H264Fixtures.closedGOPSlices[1]
    static let b = H264Fixtures.closedGOPSlices[3]

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let accessUnit: [UInt8]
        let sample: [[UInt8]]
        let isKeyframe: Bool
        let changed: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "IDR access unit: AUD dropped, SPS/PPS extracted", accessUnit: annexB([aud, sps, pps, sei, idr]),
             sample: [sei, idr], isKeyframe: true, changed: true),
        Case(name: "3-byte start codes", accessUnit: annexB([sps, pps, idr], short: true), sample: [idr], isKeyframe: true, changed: true),
        Case(name: "trailing zeros and empty NAL units", accessUnit: [0, 0, 0, 1] + p + [0, 0, 0, 0, 0, 1, 0, 0, 1] + b + [0, 0],
             sample: [p, b], isKeyframe: false, changed: false),
        Case(name: "garbage before the first start code", accessUnit: [0xDE, 0xAD, 0x00] + annexB([p]), sample: [p],
             isKeyframe: false, changed: false),
        Case(name: "no NAL units", accessUnit: [0xFF, 0xFF], sample: [], isKeyframe: false, changed: false),
        Case(name: "two-slice IDR", accessUnit: annexB([sps, pps, idr, idr]), sample: [idr, idr], isKeyframe: true, changed: true),
    ]

    @Test(arguments: cases)
    func converts(_ c: Case) throws {
        var converter = AnnexBToAVCCConverter()
        let (sample, conversion) = try converter.convert(c.accessUnit)
        #expect(sample == avcc(c.sample))
        #expect(conversion == AVCCConversion(isKeyframe: c.isKeyframe, parameterSetsChanged: c.changed))
        #expect((converter.record != nil) == c.changed)
        // The same access unit as NAL units (an RTP depacketizer's) gives the same sample, flags and record.
        var split = AnnexBToAVCCConverter()
        var nalUnits: [[UInt8]] = []
        try c.accessUnit.withUnsafeBytes { buffer in
            try AnnexB.forEachNALUnit(in: buffer) { nalUnits.append(Array(buffer[$0])) }
        }
        var fromNALUnits: [UInt8] = []
        #expect(try split.convert(nalUnits: nalUnits + [[]], into: &fromNALUnits) == conversion)
        #expect(fromNALUnits == sample)
        #expect(split.record == converter.record)
    }

    @Test func tracksParameterSetChanges() throws {
        var converter = AnnexBToAVCCConverter()
        #expect(converter.record == nil)
        var output: [UInt8] = [0xAA]
        let first = try annexB([Self.aud, Self.sps, Self.pps, Self.idr]).withUnsafeBytes { try converter.convert($0, into: &output) }
        #expect(first == AVCCConversion(isKeyframe: true, parameterSetsChanged: true))
        #expect(output == [0xAA] + avcc([Self.idr]))  // appended, not replaced
        let expectedRecord = try AVCDecoderConfigurationRecord(sequenceParameterSets: [Self.sps], pictureParameterSets: [Self.pps])
        #expect(converter.record == expectedRecord)

        // The same parameter sets again (x264 repeats them before every IDR): no change.
        #expect(try converter.convert(annexB([Self.sps, Self.pps, Self.idr])).conversion.parameterSetsChanged == false)
        #expect(try converter.convert(annexB([Self.p])).conversion == AVCCConversion(isKeyframe: false, parameterSetsChanged: false))

        // SPS change mid-stream (a new resolution): flagged, and the record follows.
        let changed = try converter.convert(annexB([H264Fixtures.high.sps, H264Fixtures.high.pps, H264Fixtures.high.idrSlice]))
        #expect(changed.conversion == AVCCConversion(isKeyframe: true, parameterSetsChanged: true))
        #expect(changed.sample == avcc([H264Fixtures.high.idrSlice]))
        #expect(converter.record?.sequenceParameterSets == [H264Fixtures.high.sps])
        #expect(converter.record?.levelIndication == 40)

        // A PPS alone changing also counts.
        let ppsOnly = try converter.convert(annexB([H264Fixtures.highScalingMatrix.pps, Self.p]))
        #expect(ppsOnly.conversion.parameterSetsChanged)
        #expect(converter.record?.pictureParameterSets == [H264Fixtures.highScalingMatrix.pps])

        converter.reset()
        #expect(converter.record == nil)
    }

    @Test func keepsParameterSetsById() throws {
        var converter = AnnexBToAVCCConverter()
        // PPS id 0 for SPS 0, then SPS 1 with PPS ids 5 and 6: all kept, in id order.
        _ = try converter.convert(annexB([Self.sps, Self.pps, Self.idr]))
        _ = try converter.convert(annexB([H264Fixtures.fmoSPS, H264Fixtures.weightedPPS, H264Fixtures.fmoType4PPS, Self.p]))
        #expect(converter.record?.sequenceParameterSets == [Self.sps, H264Fixtures.fmoSPS])
        #expect(converter.record?.pictureParameterSets == [Self.pps, H264Fixtures.fmoType4PPS, H264Fixtures.weightedPPS])
    }

    @Test(arguments: ["avcC", "Annex B"])
    func seededFromExtradata(_ kind: String) throws {
        let extradata = kind == "avcC"
            ? try AVCDecoderConfigurationRecord(sequenceParameterSets: [Self.sps], pictureParameterSets: [Self.pps]).serialized()
            : annexB([Self.sps, Self.pps])
        var converter = try AnnexBToAVCCConverter(extradata: extradata)
        let seeded = converter.record
        #expect(seeded?.sequenceParameterSets == [Self.sps])
        #expect(seeded?.nalUnitLengthSize == 4)
        // In-band copies of the seeded sets are not a change.
        #expect(try converter.convert(annexB([Self.sps, Self.pps, Self.idr])).conversion.parameterSetsChanged == false)
        _ = try converter.convert(annexB([H264Fixtures.high.sps, Self.idr]))
        converter.reset()
        #expect(converter.record == seeded)
    }

    @Test func seededWithShortLengthsStillWritesFourByteLengths() throws {
        var record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [Self.sps], pictureParameterSets: [Self.pps])
        record.nalUnitLengthSize = 2
        let converter = try AnnexBToAVCCConverter(extradata: try record.serialized())
        #expect(converter.record?.nalUnitLengthSize == 4)
    }

    @Test func malformedParameterSetsThrow() {
        var converter = AnnexBToAVCCConverter()
        #expect(throws: MediaFormatError.self) { try converter.convert(annexB([[0x67, 0x64], Self.idr])) }
        #expect(throws: MediaFormatError.invalid(structure: "PPS", reason: "pic_parameter_set_id 256 above 255")) {
            try converter.convert(annexB([[0x68, 0x00, 0x80, 0x80, 0x80], Self.idr]))
        }
    }

    /// Annex B → AVCC → Annex B gives back the same NAL units, parameter sets moved to just before the IDR.
    @Test func roundTripThroughAVCC() throws {
        var toAVCC = AnnexBToAVCCConverter()
        let units = AccessUnitTimestamperTests.accessUnits(
            sps: Self.sps, pps: Self.pps, slices: H264Fixtures.closedGOPSlices)
        var samples: [[UInt8]] = []
        for unit in units { samples.append(try toAVCC.convert(unit).sample) }
        var toAnnexB = try AVCCToAnnexBConverter(record: try #require(toAVCC.record))
        for (unit, sample) in zip(units, samples) {
            let (bytes, isKeyframe) = try toAnnexB.convert(sample)
            let original = AnnexB.nalUnits(in: unit).map(Array.init)
            let roundTripped = AnnexB.nalUnits(in: bytes).map(Array.init)
            let isParameterSetOrAUD: ([UInt8]) -> Bool = { [7, 8, 9].contains($0[0] & 0x1F) }
            #expect(roundTripped.filter { !isParameterSetOrAUD($0) } == original.filter { !isParameterSetOrAUD($0) })
            #expect(isKeyframe == original.contains { $0[0] & 0x1F == 5 })
            if isKeyframe {
                let idrIndex = try #require(roundTripped.firstIndex { $0[0] & 0x1F == 5 })
                #expect(Array(roundTripped[(idrIndex - 2)..<idrIndex]) == [Self.sps, Self.pps])
                #expect(roundTripped.filter(isParameterSetOrAUD).count == 2)
            } else {
                #expect(!roundTripped.contains(where: isParameterSetOrAUD))
            }
        }
    }

    @Test func randomInputNeverCrashes() {
        var generator = SeededGenerator(seed: 0xA7CC)
        var converted = 0
        for _ in 0..<2000 {
            var bytes = generator.bytes(Int.random(in: 0...64, using: &generator))
            for _ in 0..<3 where !bytes.isEmpty {
                bytes.insert(contentsOf: [0, 0, 1], at: Int.random(in: 0..<bytes.count, using: &generator))
            }
            var converter = AnnexBToAVCCConverter()
            if let (sample, _) = try? converter.convert(bytes) {
                converted += 1
                // Whatever came out is well-formed AVCC.
                #expect((try? AVCC.nalUnits(in: sample, lengthSize: 4)) != nil)
            }
        }
        #expect(converted > 0)
    }
}
