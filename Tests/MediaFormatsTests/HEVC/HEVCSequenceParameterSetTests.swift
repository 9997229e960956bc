import Testing
@testable import MediaFormats

@Suite("HEVCSequenceParameterSet (ITU-T H.265 §7.3.2.2, VUI §E.2.1)")
struct HEVCSequenceParameterSetTests {
    /// Expected values are ffprobe's for the same streams (width, height, coded size, profile, pix_fmt, frame rate).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stream: HEVCFixtures.Stream
        let width: Int, height: Int, codedWidth: Int, codedHeight: Int
        let profileIdc: UInt8, levelIdc: UInt8, chroma: Int, bitDepth: Int
        let frameRate: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "libx265 Main 4:2:0 64x48 25 fps", stream: HEVCFixtures.main, width: 64, height: 48, codedWidth: 64,
             codedHeight: 48, profileIdc: 1, levelIdc: 30, chroma: 1, bitDepth: 8, frameRate: 25),
        Case(name: "libx265 Main 10 100x60 in 104x64 (conformance window) 30 fps", stream: HEVCFixtures.main10, width: 100,
             height: 60, codedWidth: 104, codedHeight: 64, profileIdc: 2, levelIdc: 30, chroma: 1, bitDepth: 10, frameRate: 30),
        Case(name: "libx265 RExt 4:4:4 64x48", stream: HEVCFixtures.rext444, width: 64, height: 48, codedWidth: 64,
             codedHeight: 48, profileIdc: 4, levelIdc: 30, chroma: 3, bitDepth: 8, frameRate: 25),
    ]

    @Test(arguments: cases)
    func parsesWhatFFprobeReports(_ c: Case) throws {
        let sps = try HEVCSequenceParameterSet(parsing: c.stream.sps)
        #expect(sps.width == c.width && sps.height == c.height)
        #expect(sps.codedWidth == c.codedWidth && sps.codedHeight == c.codedHeight)
        #expect(sps.profileTierLevel.profileIdc == c.profileIdc)
        #expect(sps.profileTierLevel.levelIdc == c.levelIdc)
        #expect(!sps.profileTierLevel.tierFlag)
        #expect(sps.chromaFormatIdc == c.chroma)
        #expect(sps.bitDepthLuma == c.bitDepth && sps.bitDepthChroma == c.bitDepth)
        #expect(sps.frameRate == c.frameRate)
        #expect(sps.id == 0 && sps.videoParameterSetId == 0 && sps.maxSubLayers == 1)
        #expect(try HEVCSequenceParameterSet.id(ofNALUnit: c.stream.sps) == 0)
        // The hvcC FFmpeg wrote carries the same general profile fields.
        let record = try HEVCDecoderConfigurationRecord(parsing: c.stream.hvcC)
        #expect(record.profileTierLevel == sps.profileTierLevel)
        #expect(try record.sequenceParameterSet() == sps)
    }

    @Test(arguments: cases)
    func truncationAndCorruptionThrowOrParseButNeverTrap(_ c: Case) {
        for prefix in truncatedPrefixes(of: c.stream.sps) {
            do {
                let sps = try HEVCSequenceParameterSet(parsing: prefix)
                // Only a cut after the VUI timing (where reading stops) can still parse.
                #expect(sps.frameRate == c.frameRate, "\(prefix.count) bytes")
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        for index in 2..<c.stream.sps.count {
            for bit in 0..<8 {
                var corrupted = c.stream.sps
                corrupted[index] ^= 1 << bit
                _ = try? HEVCSequenceParameterSet(parsing: corrupted)
            }
        }
    }

    @Test func readsShortTermReferencePictureSetsWithInterPrediction() throws {
        // An SPS written bit by bit: 2 sets, the second predicted from the first (§7.4.8 (7-61), (7-62)).
        var w = BitWriter()
        w.write(0, bits: 4); w.write(0, bits: 3); w.writeFlag(true)  // vps id, max_sub_layers_minus1, nesting
        w.write(1, bits: 8); w.write(0x6000_0000, bits: 32); w.write(0x9000, bits: 16); w.write(0, bits: 32); w.write(93, bits: 8)
        w.writeUE(0); w.writeUE(1); w.writeUE(1920); w.writeUE(1088)  // sps id, 4:2:0, coded size
        w.writeFlag(true); w.writeUE(0); w.writeUE(0); w.writeUE(0); w.writeUE(4)  // conformance window: 8 rows
        w.writeUE(0); w.writeUE(0); w.writeUE(4)  // bit depths, log2_max_poc_lsb_minus4
        w.writeFlag(false); w.writeUE(4); w.writeUE(2); w.writeUE(0)  // ordering info for the top sub-layer
        for value: UInt32 in [0, 3, 0, 3, 1, 1] { w.writeUE(value) }
        w.writeFlag(false); w.writeFlag(true); w.writeFlag(true); w.writeFlag(false)  // scaling, amp, sao, pcm
        w.writeUE(2)
        w.writeUE(2); w.writeUE(1)  // set 0: two negative, one positive picture
        w.writeUE(0); w.writeFlag(true); w.writeUE(1); w.writeFlag(true)  // −1, −3
        w.writeUE(1); w.writeFlag(true)  // +2
        w.writeFlag(true); w.writeFlag(true); w.writeUE(0)  // set 1: predicted, deltaRps −1
        for _ in 0...3 { w.writeFlag(true) }  // every picture used
        w.writeFlag(false); w.writeFlag(true); w.writeFlag(true)  // no long-term, tmvp, strong intra smoothing
        w.writeFlag(true)  // VUI
        w.writeFlag(true); w.write(255, bits: 8); w.write(4, bits: 16); w.write(3, bits: 16)  // EXTENDED_SAR 4:3
        w.writeFlag(false); w.writeFlag(true); w.write(5, bits: 3); w.writeFlag(true); w.writeFlag(true)
        w.write(9, bits: 8); w.write(16, bits: 8); w.write(9, bits: 8)  // BT.2020 PQ
        w.writeFlag(false); w.write(0, bits: 3); w.writeFlag(false)
        w.writeFlag(true); w.write(1001, bits: 32); w.write(60000, bits: 32)
        w.writeFlag(true)  // the rest is not read
        let sps = try HEVCSequenceParameterSet(parsing: [0x42, 0x01] + addingEmulationPrevention(w.bytes))
        #expect(sps.width == 1920 && sps.height == 1080)
        #expect(sps.shortTermReferencePictureSets == [
            HEVCShortTermReferencePictureSet(negativeDeltas: [-1, -3], positiveDeltas: [2]),
            HEVCShortTermReferencePictureSet(negativeDeltas: [-1, -2, -4], positiveDeltas: [1]),
        ])
        #expect(sps.maxDecPicBuffering == 5 && sps.maxNumReorderPics == 2)
        #expect(sps.vui?.sampleAspectRatio == .init(width: 4, height: 3))
        #expect(sps.vui?.videoFullRange == true)
        #expect(sps.vui?.colourDescription == .init(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9))
        #expect(sps.frameRate == 60000.0 / 1001.0)
        #expect(sps.profileTierLevel.levelIdc == 93)
    }

    @Test func skipsSubLayerProfilesAndLevels() throws {
        // Three sub-layers: the first with a profile and a level, the second with a level only (§7.3.3).
        var w = BitWriter()
        w.write(1, bits: 4); w.write(2, bits: 3); w.writeFlag(false)  // vps id 1, max_sub_layers_minus1 2
        w.write(0x22, bits: 8); w.write(0x2000_0000, bits: 32); w.write(0, bits: 16); w.write(0, bits: 32); w.write(120, bits: 8)
        w.writeFlag(true); w.writeFlag(true); w.writeFlag(false); w.writeFlag(true)
        w.write(0, bits: 2 * 6)  // reserved_zero_2bits for sub-layers 2...7
        w.write(0x7FF, bits: 32); w.write(0x7FF, bits: 32); w.write(0x7FF, bits: 24); w.write(90, bits: 8)  // sub-layer 0
        w.write(60, bits: 8)  // sub-layer 1 level
        w.writeUE(3); w.writeUE(0); w.writeUE(16); w.writeUE(16); w.writeFlag(false)  // id 3, monochrome 16x16
        w.writeUE(2); w.writeUE(2); w.writeUE(0)  // 10-bit
        w.writeFlag(true)
        for _ in 0..<3 { w.writeUE(1); w.writeUE(0); w.writeUE(0) }
        for _ in 0..<6 { w.writeUE(0) }
        w.writeFlag(false); w.writeFlag(false); w.writeFlag(false); w.writeFlag(true)  // PCM on
        w.write(0x77, bits: 8); w.writeUE(0); w.writeUE(0); w.writeFlag(false)
        w.writeUE(0); w.writeFlag(true); w.writeUE(2)  // no short-term sets, two long-term pictures
        w.write(0b1_0000_1, bits: 5); w.write(0b0_1000_0, bits: 5)
        w.writeFlag(false); w.writeFlag(false); w.writeFlag(false)  // no VUI
        w.writeFlag(true)
        let nalUnit = [0x42, 0x01] + addingEmulationPrevention(w.bytes)
        let sps = try HEVCSequenceParameterSet(parsing: nalUnit)
        #expect(sps.videoParameterSetId == 1 && sps.maxSubLayers == 3 && sps.id == 3)
        #expect(sps.profileTierLevel.profileIdc == 2 && sps.profileTierLevel.tierFlag && sps.profileTierLevel.levelIdc == 120)
        #expect(sps.chromaFormatIdc == 0 && sps.width == 16 && sps.bitDepthLuma == 10)
        #expect(sps.vui == nil && sps.frameRate == nil)
        #expect(try HEVCSequenceParameterSet.id(ofNALUnit: nalUnit) == 3)
    }

    @Test func rejectsAbsurdValues() {
        var w = BitWriter()
        w.write(0, bits: 8); w.write(1, bits: 8); w.write(0, bits: 32); w.write(0, bits: 48 - 32); w.write(0, bits: 32)
        w.write(93, bits: 8); w.writeUE(0); w.writeUE(7)  // chroma_format_idc 7
        #expect(throws: MediaFormatError.invalid(structure: "HEVC SPS", reason: "chroma_format_idc 7 (at most 3)")) {
            try HEVCSequenceParameterSet(parsing: [0x42, 0x01] + w.bytes + [0x80])
        }
        #expect(throws: MediaFormatError.invalid(structure: "HEVC SPS", reason: "NAL unit type PPS")) {
            try HEVCSequenceParameterSet(parsing: HEVCFixtures.main.pps)
        }
    }
}
