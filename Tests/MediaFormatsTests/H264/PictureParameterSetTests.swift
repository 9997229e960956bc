import SluiceTestSupport
import Testing
import MediaFormats

@Suite("Picture parameter set (§7.3.2.2)")
struct PictureParameterSetTests {
    /// Expected values, read off `ffmpeg -bsf:v trace_headers`.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let nalUnit: [UInt8]
        var chromaFormatIdc = 1
        var id = 0
        var spsId = 0
        var cabac = true
        var bottomFieldPicOrder = false
        var sliceGroups = 1
        var mapType = 0
        var refs = (l0: 3, l1: 1)
        var weightedPred = true
        var bipred = 2
        var qp = 23
        var chromaQpOffset = -2
        var redundantPicCnt = false
        var transform8x8 = true
        var scalingMatrix = false
        var secondChromaQpOffset = -2
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "baseline (no optional tail)", nalUnit: H264Fixtures.baseline.pps, cabac: false, weightedPred: false, bipred: 0,
             transform8x8: false),
        Case(name: "high", nalUnit: H264Fixtures.high.pps),
        Case(name: "interlaced", nalUnit: H264Fixtures.interlaced.pps, bottomFieldPicOrder: true, weightedPred: false),
        Case(name: "main (no optional tail)", nalUnit: H264Fixtures.hrd.pps, qp: 26, transform8x8: false),
        Case(name: "scaling matrix 4:2:0 (8 lists)", nalUnit: H264Fixtures.highScalingMatrix.pps, scalingMatrix: true),
        Case(name: "scaling matrix 4:4:4 (12 lists)", nalUnit: H264Fixtures.high444ScalingMatrix.pps, chromaFormatIdc: 3,
             chromaQpOffset: 4, scalingMatrix: true, secondChromaQpOffset: 4),
        Case(name: "FMO map type 0", nalUnit: H264Fixtures.fmoType0PPS, id: 2, spsId: 1, cabac: false, sliceGroups: 3,
             refs: (1, 1), weightedPred: false, bipred: 0, qp: 26, chromaQpOffset: 0, transform8x8: false, secondChromaQpOffset: 0),
        Case(name: "FMO map type 2", nalUnit: H264Fixtures.fmoType2PPS, id: 3, spsId: 1, cabac: false, sliceGroups: 2, mapType: 2,
             refs: (1, 1), weightedPred: false, bipred: 0, qp: 26, chromaQpOffset: 0, transform8x8: false, secondChromaQpOffset: 0),
        Case(name: "FMO map type 6", nalUnit: H264Fixtures.fmoType6PPS, id: 4, spsId: 1, cabac: false, sliceGroups: 4, mapType: 6,
             refs: (1, 1), weightedPred: false, bipred: 0, qp: 26, chromaQpOffset: 0, transform8x8: false, secondChromaQpOffset: 0),
        Case(name: "FMO map type 4", nalUnit: H264Fixtures.fmoType4PPS, id: 5, spsId: 1, cabac: false, bottomFieldPicOrder: true,
             sliceGroups: 2, mapType: 4, refs: (2, 1), bipred: 0, qp: 22, chromaQpOffset: 3, redundantPicCnt: true,
             transform8x8: false, secondChromaQpOffset: 3),
    ]

    @Test(arguments: cases)
    func parsesParameterSets(_ c: Case) throws {
        let pps = try PictureParameterSet(parsing: c.nalUnit, chromaFormatIdc: c.chromaFormatIdc)
        #expect(pps.id == c.id)
        #expect(pps.spsId == c.spsId)
        #expect(pps.entropyCodingMode == c.cabac)
        #expect(pps.bottomFieldPicOrderInFramePresent == c.bottomFieldPicOrder)
        #expect(pps.numSliceGroups == c.sliceGroups)
        #expect(pps.sliceGroupMapType == c.mapType)
        #expect(pps.numRefIdxL0DefaultActive == c.refs.l0)
        #expect(pps.numRefIdxL1DefaultActive == c.refs.l1)
        #expect(pps.weightedPred == c.weightedPred)
        #expect(pps.weightedBipredIdc == c.bipred)
        #expect(pps.picInitQp == c.qp)
        #expect(pps.picInitQs == 26)
        #expect(pps.chromaQpIndexOffset == c.chromaQpOffset)
        #expect(pps.deblockingFilterControlPresent)
        #expect(!pps.constrainedIntraPred)
        #expect(pps.redundantPicCntPresent == c.redundantPicCnt)
        #expect(pps.transform8x8Mode == c.transform8x8)
        #expect(pps.picScalingMatrixPresent == c.scalingMatrix)
        #expect(pps.secondChromaQpIndexOffset == c.secondChromaQpOffset)
        let ids = try PictureParameterSet.ids(ofNALUnit: c.nalUnit)
        #expect(ids.id == c.id && ids.spsId == c.spsId)
    }

    @Test func changeRateKeptForSliceHeaders() throws {
        #expect(try PictureParameterSet(parsing: H264Fixtures.fmoType4PPS).sliceGroupChangeRate == 3)
    }

    /// Regression: a 4:4:4 PPS read as 4:2:0 takes two of the twelve list flags for second_chroma_qp_index_offset.
    @Test func scalingListCountDependsOnChromaFormat() throws {
        let asIf420 = try? PictureParameterSet(parsing: H264Fixtures.high444ScalingMatrix.pps, chromaFormatIdc: 1)
        #expect(asIf420?.secondChromaQpIndexOffset != 4)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let nalUnit: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static func pps(_ body: (inout BitWriter) -> Void) -> [UInt8] {
        var writer = BitWriter()
        body(&writer)
        return writer.nalUnit(header: 0x68)
    }

    static let malformed: [Malformed] = [
        Malformed(name: "not a PPS", nalUnit: H264Fixtures.high.sps, error: .invalid(structure: "PPS", reason: "nal_unit_type 7 is not 8")),
        Malformed(name: "id 256", nalUnit: pps { $0.writeUE(256) },
                  error: .invalid(structure: "PPS", reason: "pic_parameter_set_id 256 above 255")),
        Malformed(name: "sps id 32", nalUnit: pps {
                      $0.writeUE(0)
                      $0.writeUE(32)
                  }, error: .invalid(structure: "PPS", reason: "seq_parameter_set_id 32 above 31")),
        Malformed(name: "9 slice groups", nalUnit: pps {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(0, bits: 2)
                      $0.writeUE(8)
                  }, error: .invalid(structure: "PPS", reason: "num_slice_groups_minus1 8 above 7")),
        Malformed(name: "slice_group_id count past the data", nalUnit: pps {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(0, bits: 2)
                      $0.writeUE(1)
                      $0.writeUE(6)
                      $0.writeUE(1_000_000)
                  }, error: .truncated(needed: 125001, available: 0)),
        Malformed(name: "weighted_bipred_idc 3", nalUnit: pps {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(0, bits: 2)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(0, bits: 1)
                      $0.write(3, bits: 2)
                  }, error: .invalid(structure: "PPS", reason: "weighted_bipred_idc 3")),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: Malformed) {
        #expect(throws: c.error) { try PictureParameterSet(parsing: c.nalUnit) }
    }

    /// more_rbsp_data() ends the syntax at the last 1 bit, so a cut can leave a shorter PPS that is still valid
    /// (the optional tail dropped); what must hold is that a cut never crashes and never yields the same PPS.
    @Test(arguments: cases)
    func truncationThrowsOrLosesFields(_ c: Case) throws {
        let full = try PictureParameterSet(parsing: c.nalUnit, chromaFormatIdc: c.chromaFormatIdc)
        for prefix in truncatedPrefixes(of: c.nalUnit) {
            if let parsed = try? PictureParameterSet(parsing: prefix, chromaFormatIdc: c.chromaFormatIdc) {
                #expect(parsed != full, "\(prefix.count) bytes")
            }
        }
        // Cuts inside the fixed part (header, ids, flags and the three se(v) fields) always throw.
        #expect(throws: (any Error).self) { try PictureParameterSet(parsing: Array(c.nalUnit.prefix(2))) }
    }

    @Test func randomInputNeverCrashes() {
        var generator = SeededGenerator(seed: 8)
        var parsed = 0
        for _ in 0..<2000 {
            let body = generator.bytes(Int.random(in: 0...24, using: &generator))
            if (try? PictureParameterSet(parsing: [0x68] + body, chromaFormatIdc: Int.random(in: 0...3, using: &generator))) != nil {
                parsed += 1
            }
        }
        #expect(parsed < 2000)
    }
}
