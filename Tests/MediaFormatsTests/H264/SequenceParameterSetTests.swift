import SluiceTestSupport
import Testing
@testable import MediaFormats

@Suite("Sequence parameter set (§7.3.2.1.1, Annex E)")
struct SequenceParameterSetTests {
    /// Expected values, read off `ffmpeg -bsf:v trace_headers` for each fixture.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let nalUnit: [UInt8]
        var profile: UInt8
        var constraints: UInt8 = 0
        var level: UInt8
        var id = 0
        var chroma = 1
        var separatePlanes = false
        var bitDepth = (luma: 8, chroma: 8)
        var scalingMatrix = false
        var log2MaxFrameNum = 4
        var log2MaxPocLsb = 6
        var pocType = 0
        var refs = 4
        var mbs: (width: Int, heightMapUnits: Int)
        var frameMbsOnly = true
        var mbaff = false
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        var size: (width: Int, height: Int)
        var frameRate: Double?
        var reorder: Int?
        var dpb: Int?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "baseline 320x240", nalUnit: H264Fixtures.baseline.sps, profile: 66, constraints: 0xC0, level: 13,
             log2MaxPocLsb: 0, pocType: 2, refs: 3, mbs: (20, 15), size: (320, 240), frameRate: 25, reorder: 0, dpb: 3),
        Case(name: "high 1918x1078 (odd crop)", nalUnit: H264Fixtures.high.sps, profile: 100, level: 40,
             mbs: (120, 68), crop: (0, 1, 0, 5), size: (1918, 1078), frameRate: 30, reorder: 2, dpb: 4),
        Case(name: "high 10 352x288 23.976", nalUnit: H264Fixtures.high10.sps, profile: 110, level: 13, bitDepth: (10, 10),
             mbs: (22, 18), size: (352, 288), frameRate: 48000.0 / 2002.0, reorder: 2, dpb: 4),
        Case(name: "high 4:2:2 322x182", nalUnit: H264Fixtures.high422.sps, profile: 122, level: 13, chroma: 2,
             mbs: (21, 12), crop: (0, 7, 0, 10), size: (322, 182), frameRate: 30, reorder: 2, dpb: 4),
        Case(name: "high 4:4:4 322x182", nalUnit: H264Fixtures.high444.sps, profile: 244, level: 13, chroma: 3,
             mbs: (21, 12), crop: (0, 14, 0, 10), size: (322, 182), frameRate: 30, reorder: 2, dpb: 4),
        Case(name: "interlaced MBAFF 720x572", nalUnit: H264Fixtures.interlaced.sps, profile: 100, level: 30,
             mbs: (45, 18), frameMbsOnly: false, mbaff: true, crop: (0, 0, 0, 1), size: (720, 572), frameRate: 25, reorder: 2, dpb: 4),
        Case(name: "main with NAL HRD 640x360", nalUnit: H264Fixtures.hrd.sps, profile: 77, constraints: 0x40, level: 31,
             mbs: (40, 23), crop: (0, 0, 0, 4), size: (640, 360), frameRate: 50, reorder: 2, dpb: 4),
        Case(name: "high 160x120", nalUnit: H264Fixtures.highScalingMatrix.sps, profile: 100, level: 11,
             mbs: (10, 8), crop: (0, 0, 0, 4), size: (160, 120), frameRate: 30, reorder: 2, dpb: 4),
        Case(name: "scaling lists 4:2:0", nalUnit: H264Fixtures.scalingLists420, profile: 100, level: 40, scalingMatrix: true,
             mbs: (120, 68), crop: (0, 0, 0, 4), size: (1920, 1080)),
        Case(name: "scaling lists 4:4:4 (12 lists)", nalUnit: H264Fixtures.scalingLists444, profile: 244, level: 50, chroma: 3,
             scalingMatrix: true, mbs: (80, 45), size: (1280, 720)),
        Case(name: "POC type 1 with full VUI", nalUnit: H264Fixtures.pocType1, profile: 77, constraints: 0x40, level: 30,
             log2MaxPocLsb: 0, pocType: 1, refs: 2, mbs: (45, 36), size: (720, 576), frameRate: 60000.0 / 2002.0, reorder: 3, dpb: 5),
        Case(name: "separate colour planes", nalUnit: H264Fixtures.separatePlanes, profile: 244, level: 31, chroma: 3,
             separatePlanes: true, bitDepth: (10, 10), mbs: (8, 8), crop: (1, 2, 3, 4), size: (125, 121)),
        Case(name: "monochrome, fields allowed", nalUnit: H264Fixtures.monochromeField, profile: 100, level: 31, chroma: 0,
             log2MaxFrameNum: 16, log2MaxPocLsb: 16, mbs: (10, 5), frameMbsOnly: false, crop: (1, 1, 2, 2), size: (158, 152)),
        Case(name: "level 1b, id 31, POC type 1 always zero", nalUnit: H264Fixtures.alwaysZeroPoc1, profile: 66, constraints: 0xE0,
             level: 9, id: 31, log2MaxPocLsb: 0, pocType: 1, refs: 16, mbs: (11, 9), size: (176, 144)),
    ]

    @Test(arguments: cases)
    func parsesRealParameterSets(_ c: Case) throws {
        let sps = try SequenceParameterSet(parsing: c.nalUnit)
        #expect(sps.profileIdc == c.profile)
        #expect(sps.constraintFlags == c.constraints)
        #expect(sps.levelIdc == c.level)
        #expect(sps.id == c.id)
        #expect(sps.chromaFormatIdc == c.chroma)
        #expect(sps.separateColourPlane == c.separatePlanes)
        #expect(sps.bitDepthLuma == c.bitDepth.luma)
        #expect(sps.bitDepthChroma == c.bitDepth.chroma)
        #expect(sps.seqScalingMatrixPresent == c.scalingMatrix)
        #expect(sps.log2MaxFrameNum == c.log2MaxFrameNum)
        #expect(sps.picOrderCntType == c.pocType)
        #expect(sps.log2MaxPicOrderCntLsb == c.log2MaxPocLsb)
        #expect(sps.maxNumRefFrames == c.refs)
        #expect(sps.picWidthInMbs == c.mbs.width)
        #expect(sps.picHeightInMapUnits == c.mbs.heightMapUnits)
        #expect(sps.frameMbsOnly == c.frameMbsOnly)
        #expect(sps.mbAdaptiveFrameField == c.mbaff)
        #expect(sps.frameCropLeftOffset == c.crop.left)
        #expect(sps.frameCropRightOffset == c.crop.right)
        #expect(sps.frameCropTopOffset == c.crop.top)
        #expect(sps.frameCropBottomOffset == c.crop.bottom)
        #expect(sps.width == c.size.width)
        #expect(sps.height == c.size.height)
        #expect(sps.frameRate == c.frameRate)
        #expect(sps.maxNumReorderFrames == c.reorder)
        #expect(sps.maxDecFrameBuffering == c.dpb)
    }

    @Test func pocType1Fields() throws {
        let sps = try SequenceParameterSet(parsing: H264Fixtures.pocType1)
        #expect(!sps.deltaPicOrderAlwaysZero)
        #expect(sps.offsetForNonRefPic == -2)
        #expect(sps.offsetForTopToBottomField == 1)
        #expect(sps.offsetForRefFrame == [4, -6, 10])
        let alwaysZero = try SequenceParameterSet(parsing: H264Fixtures.alwaysZeroPoc1)
        #expect(alwaysZero.deltaPicOrderAlwaysZero)
        #expect(alwaysZero.offsetForRefFrame.isEmpty)
        #expect(alwaysZero.gapsInFrameNumAllowed)
        #expect(alwaysZero.constraintSetFlag(2))
        #expect(!alwaysZero.constraintSetFlag(3))
    }

    @Test func fullVUI() throws {
        let vui = try #require(try SequenceParameterSet(parsing: H264Fixtures.pocType1).vui)
        #expect(vui.aspectRatioIdc == 255)
        #expect(vui.sampleAspectRatio == VUIParameters.SampleAspectRatio(width: 64, height: 45))
        #expect(vui.overscanAppropriate == true)
        #expect(vui.videoFormat == 5)
        #expect(vui.videoFullRange == true)
        #expect(vui.colourDescription == VUIParameters.ColourDescription(colourPrimaries: 1, transferCharacteristics: 1, matrixCoefficients: 1))
        #expect(vui.chromaSampleLocTypeTopField == 1)
        #expect(vui.chromaSampleLocTypeBottomField == 2)
        #expect(vui.timing == VUIParameters.Timing(numUnitsInTick: 1001, timeScale: 60000, fixedFrameRate: true))
        #expect(vui.nalHRD == nil)
        let hrd = try #require(vui.vclHRD)
        #expect(hrd.bitRateScale == 1)
        #expect(hrd.cpbSizeScale == 2)
        #expect(hrd.schedules == [
            HRDParameters.Schedule(bitRateValue: 1000, cpbSizeValue: 2000, cbr: false),
            HRDParameters.Schedule(bitRateValue: 3000, cpbSizeValue: 4000, cbr: true),
        ])
        #expect(hrd.timeOffsetLength == 24)
        #expect(vui.lowDelayHRD == true)
        #expect(!vui.picStructPresent)
        let restriction = try #require(vui.bitstreamRestriction)
        #expect(restriction.maxBytesPerPicDenom == 2)
        #expect(restriction.maxBitsPerMbDenom == 1)
        #expect(restriction.log2MaxMvLengthHorizontal == 15)
    }

    @Test func nalHRDFromX264() throws {
        let vui = try #require(try SequenceParameterSet(parsing: H264Fixtures.hrd.sps).vui)
        let hrd = try #require(vui.nalHRD)
        #expect(hrd.schedules == [HRDParameters.Schedule(bitRateValue: 15625, cpbSizeValue: 15625, cbr: false)])
        #expect(hrd.bitRate == 1_000_000)  // -maxrate 1M
        #expect(hrd.cpbSizeScale == 3)
        #expect(hrd.initialCpbRemovalDelayLength == 20)
        #expect(hrd.cpbRemovalDelayLength == 14)
        #expect(hrd.dpbOutputDelayLength == 8)
        #expect(hrd.timeOffsetLength == 0)
        #expect(vui.vclHRD == nil)
        #expect(vui.lowDelayHRD == false)
        #expect(vui.sampleAspectRatio == VUIParameters.SampleAspectRatio(width: 1, height: 1))
    }

    @Test func interlacedVUIHasPicStruct() throws {
        let vui = try #require(try SequenceParameterSet(parsing: H264Fixtures.interlaced.sps).vui)
        #expect(vui.picStructPresent)
        #expect(vui.timing?.fixedFrameRate == false)
    }

    @Test func readsIdWithoutFullParse() throws {
        #expect(try SequenceParameterSet.id(ofNALUnit: H264Fixtures.alwaysZeroPoc1) == 31)
        #expect(try SequenceParameterSet.id(ofNALUnit: H264Fixtures.high.sps) == 0)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let nalUnit: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    /// Builds an SPS NAL unit from a Baseline-style body written by `body` after profile/flags/level.
    static func baselineSPS(id: UInt32 = 0, _ body: (inout BitWriter) -> Void) -> [UInt8] {
        var writer = BitWriter()
        writer.write(66, bits: 8)
        writer.write(0, bits: 8)
        writer.write(30, bits: 8)
        writer.writeUE(id)
        body(&writer)
        return writer.nalUnit(header: 0x67)
    }

    /// The rest of a minimal valid Baseline SPS after the id: POC type 2, 1 ref, 16x16, no VUI.
    static func minimalTail(_ writer: inout BitWriter, refs: UInt32 = 1, width: UInt32 = 0, crop: [UInt32]? = nil) {
        writer.writeUE(0)  // log2_max_frame_num_minus4
        writer.writeUE(2)  // pic_order_cnt_type
        writer.writeUE(refs)
        writer.writeFlag(false)
        writer.writeUE(width)
        writer.writeUE(0)
        writer.writeFlag(true)  // frame_mbs_only
        writer.writeFlag(true)
        if let crop {
            writer.writeFlag(true)
            for value in crop { writer.writeUE(value) }
        } else {
            writer.writeFlag(false)
        }
        writer.writeFlag(false)  // no VUI
    }

    static let malformed: [Malformed] = [
        Malformed(name: "not an SPS", nalUnit: H264Fixtures.high.pps,
                  error: .invalid(structure: "SPS", reason: "nal_unit_type 8 is not 7")),
        Malformed(name: "id 32", nalUnit: baselineSPS(id: 32) { minimalTail(&$0) },
                  error: .invalid(structure: "SPS", reason: "seq_parameter_set_id 32 above 31")),
        Malformed(name: "17 reference frames", nalUnit: baselineSPS { minimalTail(&$0, refs: 17) },
                  error: .invalid(structure: "SPS", reason: "max_num_ref_frames 17 above 16")),
        Malformed(name: "absurd width", nalUnit: baselineSPS { minimalTail(&$0, width: 5000) },
                  error: .invalid(structure: "SPS", reason: "pic_width_in_mbs_minus1 5000 above 2047")),
        Malformed(name: "crop wider than the picture", nalUnit: baselineSPS { minimalTail(&$0, crop: [4, 4, 0, 0]) },
                  error: .invalid(structure: "SPS", reason: "frame cropping leaves no picture")),
        Malformed(name: "log2_max_frame_num_minus4 13", nalUnit: baselineSPS { $0.writeUE(13) },
                  error: .invalid(structure: "SPS", reason: "log2_max_frame_num_minus4 13 above 12")),
        Malformed(name: "pic_order_cnt_type 3", nalUnit: baselineSPS {
                      $0.writeUE(0)
                      $0.writeUE(3)
                  },
                  error: .invalid(structure: "SPS", reason: "pic_order_cnt_type 3 above 2")),
        Malformed(name: "bit depth 15", nalUnit: {
                      var writer = BitWriter()
                      writer.write(100, bits: 8)
                      writer.write(0, bits: 8)
                      writer.write(30, bits: 8)
                      writer.writeUE(0)
                      writer.writeUE(1)
                      writer.writeUE(7)
                      return writer.nalUnit(header: 0x67)
                  }(),
                  error: .invalid(structure: "SPS", reason: "bit_depth_luma_minus8 7 above 6")),
        Malformed(name: "Exp-Golomb code with 32 leading zeros", nalUnit: [0x67, 66, 0, 30, 0, 0, 0, 0, 0x80],
                  error: .invalid(structure: "Exp-Golomb code", reason: "more than 31 leading zero bits")),
        Malformed(name: "stop bit missing", nalUnit: {
                      var writer = BitWriter()
                      writer.write(66, bits: 8)
                      writer.write(0, bits: 8)
                      writer.write(30, bits: 8)
                      writer.writeUE(0)
                      minimalTail(&writer)
                      while writer.bitLength % 8 != 0 { writer.write(0, bits: 1) }
                      return [0x67] + writer.bytes + [0x00]
                  }(),
                  error: .invalid(structure: "SPS", reason: "rbsp_stop_one_bit missing")),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: Malformed) {
        #expect(throws: c.error) { try SequenceParameterSet(parsing: c.nalUnit) }
    }

    @Test func minimalBuiltSPSParses() throws {
        let sps = try SequenceParameterSet(parsing: Self.baselineSPS { Self.minimalTail(&$0, crop: [1, 2, 3, 4]) })
        #expect(sps.width == 10)
        #expect(sps.height == 2)
        #expect(sps.vui == nil)
        #expect(sps.frameRate == nil)
    }

    /// A minimal SPS whose VUI carries only timing_info with these two 32-bit fields.
    static func timingSPS(numUnitsInTick: UInt32, timeScale: UInt32) -> [UInt8] {
        baselineSPS { writer in
            writer.writeUE(0)  // log2_max_frame_num_minus4
            writer.writeUE(2)  // pic_order_cnt_type
            writer.writeUE(1)
            writer.writeFlag(false)
            writer.writeUE(0)
            writer.writeUE(0)
            writer.writeFlag(true)  // frame_mbs_only
            writer.writeFlag(true)
            writer.writeFlag(false)  // no cropping
            writer.writeFlag(true)  // vui_parameters_present_flag
            for _ in 0..<4 { writer.writeFlag(false) }  // aspect ratio, overscan, video signal, chroma loc
            writer.writeFlag(true)  // timing_info_present_flag
            writer.write(numUnitsInTick, bits: 32)
            writer.write(timeScale, bits: 32)
            writer.writeFlag(true)  // fixed_frame_rate_flag
            for _ in 0..<4 { writer.writeFlag(false) }  // NAL HRD, VCL HRD, pic_struct, bitstream_restriction
        }
    }

    @Test("VUI timing extremes: a zero field drops the timing, 2^32 − 1 gives a finite rate", arguments: [
        (UInt32(0), UInt32(50), Double?.none),
        (1, 0, nil),
        (0, 0, nil),
        (1001, 60000, 60000.0 / 2002),
        (UInt32.max, 1, 1 / (2 * Double(UInt32.max))),
        (1, UInt32.max, Double(UInt32.max) / 2),
        (UInt32.max, UInt32.max, 0.5),
    ] as [(UInt32, UInt32, Double?)])
    func timingExtremes(_ units: UInt32, _ scale: UInt32, _ rate: Double?) throws {
        let sps = try SequenceParameterSet(parsing: Self.timingSPS(numUnitsInTick: units, timeScale: scale))
        #expect(sps.frameRate == rate)
        #expect(sps.vui?.timing.map { ($0.numUnitsInTick, $0.timeScale) == (units, scale) } ?? (rate == nil))
        if let frameRate = sps.frameRate { #expect(frameRate.isFinite && frameRate > 0) }
    }

    @Test(arguments: cases)
    func everyTruncationThrows(_ c: Case) {
        for prefix in truncatedPrefixes(of: c.nalUnit) {
            #expect(throws: (any Error).self, "\(prefix.count) of \(c.nalUnit.count) bytes") {
                try SequenceParameterSet(parsing: prefix)
            }
        }
    }

    @Test func randomInputNeverCrashes() {
        var generator = SeededGenerator(seed: 7)
        var parsed = 0
        for _ in 0..<2000 {
            let body = generator.bytes(Int.random(in: 0...40, using: &generator))
            if (try? SequenceParameterSet(parsing: [0x67] + body)) != nil { parsed += 1 }
        }
        // Mutating real SPSs reaches deeper syntax than pure noise.
        for index in 0..<2000 {
            var nalUnit = Self.cases[index % Self.cases.count].nalUnit
            let position = Int.random(in: 1..<nalUnit.count, using: &generator)
            nalUnit[position] ^= UInt8.random(in: 1...255, using: &generator)
            if (try? SequenceParameterSet(parsing: nalUnit)) != nil { parsed += 1 }
        }
        #expect(parsed < 4000)
    }
}
