import Testing
import MediaFormats

@Suite("hvcC ⇄ Annex B (HVCCToAnnexBConverter, AnnexBToHVCCConverter)")
struct HEVCConversionTests {
    static let s = HEVCFixtures.main
    static let idr: [UInt8] = [0x26, 0x01, 0xAF, 0x10]  // IDR_W_RADL, first slice segment
    static let cra: [UInt8] = [0x2A, 0x01, 0xAF, 0x20]
    static let trail: [UInt8] = [0x02, 0x01, 0xD0, 0x30]
    static let sei: [UInt8] = [0x4E, 0x01, 0x05, 0x01, 0x80]
    static let aud: [UInt8] = [0x46, 0x01, 0x50]

    /// libx265's stream (IDR, CRA with repeated headers, RASL, RASL, TRAIL) through both converters.
    @Test func x265StreamRoundTripsWithParameterSetsBeforeEveryIRAP() throws {
        let accessUnits = hevcAccessUnits(in: Self.s.annexB)
        #expect(accessUnits.count == 5)
        var toHVCC = AnnexBToHVCCConverter()
        var split = AnnexBToHVCCConverter()
        var samples: [[UInt8]] = []
        var keyframes: [Bool] = []
        for (index, accessUnit) in accessUnits.enumerated() {
            let (sample, conversion) = try toHVCC.convert(accessUnit)
            // The same access unit as NAL units (an RTP depacketizer's) gives the same sample and flags.
            var nalUnits: [[UInt8]] = []
            try accessUnit.withUnsafeBytes { buffer in
                try AnnexB.forEachNALUnit(in: buffer) { nalUnits.append(Array(buffer[$0])) }
            }
            var fromNALUnits: [UInt8] = []
            #expect(try split.convert(nalUnits: nalUnits, into: &fromNALUnits) == conversion)
            #expect(fromNALUnits == sample)
            samples.append(sample)
            keyframes.append(conversion.isKeyframe)
            #expect(conversion.parameterSetsChanged == (index == 0))
            #expect(try AVCC.nalUnits(in: sample, lengthSize: 4).allSatisfy { !(32...35).contains(($0[$0.startIndex] >> 1) & 0x3F) })
        }
        #expect(keyframes == [true, true, false, false, false])
        let record = try #require(toHVCC.record)
        #expect(split.record == record)
        #expect(record.nalUnits(ofType: .sequenceParameterSet) == [Self.s.sps])
        #expect(record.profileTierLevel == (try HEVCDecoderConfigurationRecord(parsing: Self.s.hvcC)).profileTierLevel)

        var toAnnexB = try HVCCToAnnexBConverter(record: record)
        for (sample, original) in zip(samples, accessUnits) {
            let (bytes, isKeyframe) = try toAnnexB.convert(sample)
            let types = hevcTypes(bytes)
            #expect(types.filter { !(32...34).contains($0) } == hevcTypes(original).filter { !(32...34).contains($0) })
            #expect(isKeyframe == types.contains { (16...23).contains($0) })
            if let irap = types.firstIndex(where: { (16...23).contains($0) }) {
                #expect(Array(types[(irap - 3)..<irap]) == [32, 33, 34])
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let sample: [[UInt8]]
        let expected: [[UInt8]]
        let isKeyframe: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "IDR without parameter sets: VPS, SPS, PPS injected", sample: [sei, idr],
             expected: [sei, s.vps, s.sps, s.pps, idr], isKeyframe: true),
        Case(name: "IDR with in-band parameter sets: nothing injected", sample: [s.vps, s.sps, s.pps, idr],
             expected: [s.vps, s.sps, s.pps, idr], isKeyframe: true),
        Case(name: "CRA after an AUD", sample: [aud, cra], expected: [aud, s.vps, s.sps, s.pps, cra], isKeyframe: true),
        Case(name: "two IRAP slices: injected once", sample: [idr, idr], expected: [s.vps, s.sps, s.pps, idr, idr], isKeyframe: true),
        Case(name: "trailing picture: nothing injected", sample: [trail], expected: [trail], isKeyframe: false),
        Case(name: "zero-length NAL unit skipped", sample: [[], trail], expected: [trail], isKeyframe: false),
    ]

    @Test(arguments: cases)
    func injectsParameterSetsBeforeIRAP(_ c: Case) throws {
        var converter = try HVCCToAnnexBConverter(record: HEVCDecoderConfigurationRecord(parsing: Self.s.hvcC))
        let (bytes, isKeyframe) = try converter.convert(avcc(c.sample))
        #expect(bytes == annexB(c.expected))
        #expect(isKeyframe == c.isKeyframe)
    }

    @Test func inBandParameterSetsReplaceTheRecordsUntilReset() throws {
        var converter = try HVCCToAnnexBConverter(record: HEVCDecoderConfigurationRecord(parsing: Self.s.hvcC))
        let main10 = HEVCFixtures.main10
        _ = try converter.convert(avcc([main10.sps, Self.trail]))
        #expect(try converter.convert(avcc([Self.idr])).bytes == annexB([Self.s.vps, main10.sps, Self.s.pps, Self.idr]))
        converter.reset()
        #expect(try converter.convert(avcc([Self.idr])).bytes == annexB([Self.s.vps, Self.s.sps, Self.s.pps, Self.idr]))
    }

    @Test func malformedSamplesThrow() throws {
        var converter = try HVCCToAnnexBConverter(record: HEVCDecoderConfigurationRecord(parsing: Self.s.hvcC))
        #expect(throws: MediaFormatError.truncated(needed: 9, available: 4)) { try converter.convert([0, 0, 0, 9] + Self.trail) }
        #expect(throws: MediaFormatError.self) { try converter.convert(avcc([[0x42, 0x01, 0x01]])) }  // unreadable SPS id
        #expect(throws: MediaFormatError.self) { try converter.convert(avcc([[0x44, 0x01]])) }  // PPS without an id
    }

    @Test func annexBToHVCCDropsDelimitersAndSeedsFromExtradata() throws {
        var converter = try AnnexBToHVCCConverter(extradata: annexB([Self.s.vps, Self.s.sps, Self.s.pps]))
        #expect(converter.record?.nalUnits(ofType: .pictureParameterSet) == [Self.s.pps])
        let (sample, conversion) = try converter.convert(annexB([Self.aud, Self.s.vps, Self.s.sps, Self.s.pps, Self.sei, Self.idr]))
        #expect(sample == avcc([Self.sei, Self.idr]))
        #expect(conversion == AVCCConversion(isKeyframe: true, parameterSetsChanged: false))
        let changed = try converter.convert(annexB([HEVCFixtures.main10.sps, Self.trail]))
        #expect(changed.conversion == AVCCConversion(isKeyframe: false, parameterSetsChanged: true))
        #expect(converter.record?.bitDepthLuma == 10)
        converter.reset()
        #expect(converter.record?.bitDepthLuma == 8)
        #expect(try AnnexBToHVCCConverter(extradata: Self.s.hvcC).record?.nalUnits(ofType: .sequenceParameterSet) == [Self.s.sps])
        #expect(AnnexBToHVCCConverter().record == nil)
    }
}
