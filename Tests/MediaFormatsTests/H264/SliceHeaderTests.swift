import SluiceTestSupport
import Testing
import MediaFormats

@Suite("Slice header (§7.3.3)")
struct SliceHeaderTests {
    /// Expected values, read off `ffmpeg -bsf:v trace_headers`.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let parameterSets: [[UInt8]]
        let slice: [UInt8]
        var type: SliceType
        var uniform = true
        var refIdc: UInt8 = 2
        var frameNum: Int
        var field = (pic: false, bottom: false)
        var idrPicId: Int?
        var pocLsb = 0
        var deltaBottom = 0
        var deltaPoc = [0, 0]
        var redundantPicCnt = 0
        var directSpatial: Bool?
        var refs = (l0: 0, l1: 0)
        var adaptiveMarking = false
        var mmco5 = false
        var cabacInitIdc: Int?
        var qpDelta: Int
        var deblockingIdc = 0
        var testDescription: String { name }
    }

    static let high = [H264Fixtures.high.sps, H264Fixtures.high.pps]
    static let closed = [H264Fixtures.closedGOPSPS, H264Fixtures.closedGOPPPS]

    static let cases: [Case] = [
        Case(name: "high IDR", parameterSets: high, slice: H264Fixtures.high.idrSlice, type: .i, refIdc: 3, frameNum: 0,
             idrPicId: 0, qpDelta: 4),
        Case(name: "high weighted P", parameterSets: high, slice: H264Fixtures.high.pSlice, type: .p, frameNum: 1, pocLsb: 8,
             refs: (1, 0), cabacInitIdc: 0, qpDelta: 5),
        Case(name: "reference B (B-pyramid)", parameterSets: closed, slice: H264Fixtures.closedGOPSlices[2], type: .b, frameNum: 2,
             pocLsb: 2, directSpatial: true, refs: (1, 1), cabacInitIdc: 0, qpDelta: 10),
        Case(name: "non-reference B", parameterSets: closed, slice: H264Fixtures.closedGOPSlices[3], type: .b, refIdc: 0,
             frameNum: 3, pocLsb: 4, directSpatial: true, refs: (2, 1), cabacInitIdc: 0, qpDelta: 11),
        Case(name: "P with list modification and luma weights", parameterSets: closed, slice: H264Fixtures.closedGOPSlices[4],
             type: .p, frameNum: 3, pocLsb: 14, refs: (4, 0), cabacInitIdc: 0, qpDelta: 6),
        Case(name: "baseline IDR (POC type 2)", parameterSets: [H264Fixtures.baseline.sps, H264Fixtures.baseline.pps],
             slice: H264Fixtures.baseline.idrSlice, type: .i, refIdc: 3, frameNum: 0, idrPicId: 0, qpDelta: 4),
        Case(name: "baseline P (CAVLC)", parameterSets: [H264Fixtures.baseline.sps, H264Fixtures.baseline.pps],
             slice: H264Fixtures.baseline.pSlice, type: .p, frameNum: 1, refs: (1, 0), qpDelta: 4),
        Case(name: "MBAFF IDR with delta_pic_order_cnt_bottom", parameterSets: [H264Fixtures.interlaced.sps, H264Fixtures.interlaced.pps],
             slice: H264Fixtures.interlaced.idrSlice, type: .i, refIdc: 3, frameNum: 0, idrPicId: 0, pocLsb: 1, deltaBottom: -1,
             qpDelta: 1),
        Case(name: "MBAFF P", parameterSets: [H264Fixtures.interlaced.sps, H264Fixtures.interlaced.pps],
             slice: H264Fixtures.interlaced.pSlice, type: .p, frameNum: 1, pocLsb: 3, deltaBottom: -1, refs: (1, 0),
             cabacInitIdc: 0, qpDelta: 1),
        Case(name: "main with HRD, negative qp delta", parameterSets: [H264Fixtures.hrd.sps, H264Fixtures.hrd.pps],
             slice: H264Fixtures.hrd.pSlice, type: .p, frameNum: 1, pocLsb: 6, refs: (1, 0), cabacInitIdc: 0, qpDelta: -8),
        Case(name: "high 4:4:4 P", parameterSets: [H264Fixtures.high444.sps, H264Fixtures.high444.pps],
             slice: H264Fixtures.high444.pSlice, type: .p, frameNum: 1, pocLsb: 8, refs: (1, 0), cabacInitIdc: 0, qpDelta: 2),
        Case(name: "weighted bottom field with MMCO 5", parameterSets: [H264Fixtures.fmoSPS, H264Fixtures.weightedPPS],
             slice: H264Fixtures.weightedFieldSlice, type: .p, uniform: false, frameNum: 9, field: (true, true), pocLsb: 7,
             redundantPicCnt: 1, refs: (3, 0), adaptiveMarking: true, mmco5: true, qpDelta: -3, deblockingIdc: 1),
        Case(name: "same slice through an FMO map type 4 PPS", parameterSets: [H264Fixtures.fmoSPS, H264Fixtures.fmoType4PPS],
             slice: H264Fixtures.fmoFieldSlice, type: .p, uniform: false, frameNum: 9, field: (true, true), pocLsb: 7,
             redundantPicCnt: 1, refs: (3, 0), adaptiveMarking: true, mmco5: true, qpDelta: -3, deblockingIdc: 1),
        Case(name: "POC type 1 IDR", parameterSets: [H264Fixtures.pocType1, H264Fixtures.pocType1PPS], slice: H264Fixtures.pocType1IDR,
             type: .i, refIdc: 3, frameNum: 0, idrPicId: 0, qpDelta: 0),
        Case(name: "POC type 1 P", parameterSets: [H264Fixtures.pocType1, H264Fixtures.pocType1PPS], slice: H264Fixtures.pocType1P,
             type: .p, frameNum: 1, deltaPoc: [3, -1], refs: (1, 0), qpDelta: 0),
        Case(name: "POC type 1 non-reference P", parameterSets: [H264Fixtures.pocType1, H264Fixtures.pocType1PPS],
             slice: H264Fixtures.pocType1NonRefP, type: .p, refIdc: 0, frameNum: 2, deltaPoc: [-2, 5], refs: (1, 0), qpDelta: 0),
        Case(name: "POC type 1 MMCO 5", parameterSets: [H264Fixtures.pocType1, H264Fixtures.pocType1PPS],
             slice: H264Fixtures.pocType1MMCO5, type: .p, frameNum: 2, refs: (1, 0), adaptiveMarking: true, mmco5: true, qpDelta: 0),
    ]

    /// SPS and PPS maps from whole parameter-set NAL units.
    static func maps(_ parameterSets: [[UInt8]]) throws -> ([Int: SequenceParameterSet], [Int: PictureParameterSet]) {
        var spsById: [Int: SequenceParameterSet] = [:]
        var ppsById: [Int: PictureParameterSet] = [:]
        for nalUnit in parameterSets {
            if NALUnitHeader(nalUnit[0]).nalUnitType == .sequenceParameterSet {
                let sps = try SequenceParameterSet(parsing: nalUnit)
                spsById[sps.id] = sps
            } else {
                let ids = try PictureParameterSet.ids(ofNALUnit: nalUnit)
                ppsById[ids.id] = try PictureParameterSet(parsing: nalUnit, chromaFormatIdc: spsById[ids.spsId]?.chromaFormatIdc ?? 1)
            }
        }
        return (spsById, ppsById)
    }

    @Test(arguments: cases)
    func parsesSliceHeaders(_ c: Case) throws {
        let (spsById, ppsById) = try Self.maps(c.parameterSets)
        let slice = try SliceHeader(parsing: c.slice, sequenceParameterSets: spsById, pictureParameterSets: ppsById)
        #expect(slice.firstMbInSlice == 0)
        #expect(slice.sliceType == c.type)
        #expect(slice.sliceTypeIsUniform == c.uniform)
        #expect(slice.nalUnitHeader.nalRefIdc == c.refIdc)
        #expect(slice.isReference == (c.refIdc != 0))
        #expect(slice.frameNum == c.frameNum)
        #expect(slice.fieldPic == c.field.pic)
        #expect(slice.bottomField == c.field.bottom)
        #expect(slice.idrPicId == c.idrPicId)
        #expect(slice.isIDR == (c.idrPicId != nil))
        #expect(slice.picOrderCntLsb == c.pocLsb)
        #expect(slice.deltaPicOrderCntBottom == c.deltaBottom)
        #expect(slice.deltaPicOrderCnt == c.deltaPoc)
        #expect(slice.redundantPicCnt == c.redundantPicCnt)
        #expect(slice.directSpatialMvPred == c.directSpatial)
        #expect(slice.numRefIdxL0Active == c.refs.l0)
        #expect(slice.numRefIdxL1Active == c.refs.l1)
        #expect(slice.adaptiveRefPicMarkingMode == c.adaptiveMarking)
        #expect(slice.hasMemoryManagementControlOperation5 == c.mmco5)
        #expect(slice.cabacInitIdc == c.cabacInitIdc)
        // slice_qp_delta sits after every variable-length part: matching it proves the whole header was walked.
        #expect(slice.sliceQpDelta == c.qpDelta)
        #expect(slice.disableDeblockingFilterIdc == c.deblockingIdc)
    }

    /// A header parses only from a prefix that holds all of it, and then identically: no prefix crashes,
    /// and the 3-byte prefixes (header byte + ~2 bytes) never suffice.
    @Test(arguments: cases)
    func truncatedSlicesThrowOrParseIdentically(_ c: Case) throws {
        let (spsById, ppsById) = try Self.maps(c.parameterSets)
        let full = try SliceHeader(parsing: c.slice, sequenceParameterSets: spsById, pictureParameterSets: ppsById)
        for prefix in truncatedPrefixes(of: c.slice) {
            if let parsed = try? SliceHeader(parsing: prefix, sequenceParameterSets: spsById, pictureParameterSets: ppsById) {
                #expect(parsed == full, "\(prefix.count) bytes")
                #expect(prefix.count > 3)
            }
        }
    }

    /// Headers longer than the first de-emulated window (a big weight table) are read again from the whole NAL unit.
    @Test func longHeaderBeyondFirstWindow() throws {
        let (spsById, ppsById) = try Self.maps([H264Fixtures.fmoSPS, H264Fixtures.weightedPPS])
        var writer = BitWriter()
        writer.writeUE(0)
        writer.writeUE(5)  // P, uniform
        writer.writeUE(6)
        writer.write(3, bits: 4)  // frame_num
        writer.writeFlag(true)  // field_pic
        writer.writeFlag(false)  // top
        writer.write(2, bits: 4)  // pic_order_cnt_lsb
        writer.writeUE(0)  // redundant_pic_cnt
        writer.writeFlag(true)
        writer.writeUE(31)  // 32 references, allowed for a field
        writer.writeFlag(false)  // no list modification
        writer.writeUE(7)
        writer.writeUE(7)
        for _ in 0..<32 {
            writer.writeFlag(true)
            writer.writeSE(-127)
            writer.writeSE(127)
            writer.writeFlag(true)
            for _ in 0..<4 { writer.writeSE(-128) }
        }
        writer.writeFlag(false)  // no adaptive marking
        writer.writeSE(12)
        writer.writeUE(1)
        let nalUnit = writer.nalUnit(header: 0x41) + [UInt8](repeating: 0xA5, count: 300)
        #expect(nalUnit.count > 256 + 300)
        let slice = try SliceHeader(parsing: nalUnit, sequenceParameterSets: spsById, pictureParameterSets: ppsById)
        #expect(slice.numRefIdxL0Active == 32)
        #expect(slice.sliceQpDelta == 12)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let slice: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static func slice(header: UInt8 = 0x41, _ body: (inout BitWriter) -> Void) -> [UInt8] {
        var writer = BitWriter()
        body(&writer)
        return writer.nalUnit(header: header)
    }

    static let malformed: [Malformed] = [
        Malformed(name: "not a slice", slice: H264Fixtures.high.sps,
                  error: .unsupported(structure: "slice header", reason: "nal_unit_type 7 is not a coded slice (1 or 5)")),
        Malformed(name: "slice data partition", slice: [0x22, 0x80],
                  error: .unsupported(structure: "slice header", reason: "nal_unit_type 2 is not a coded slice (1 or 5)")),
        Malformed(name: "slice_type 10", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(10)
                  }, error: .invalid(structure: "slice header", reason: "slice_type 10 above 9")),
        Malformed(name: "IDR P slice", slice: slice(header: 0x65) {
                      $0.writeUE(0)
                      $0.writeUE(5)
                  }, error: .invalid(structure: "slice header", reason: "IDR slice of type p")),
        Malformed(name: "unknown PPS", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(7)
                  }, error: .invalid(structure: "slice header", reason: "unknown pic_parameter_set_id 7")),
        Malformed(name: "17 references in a frame", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(1, bits: 4)  // frame_num
                      $0.write(2, bits: 6)  // pic_order_cnt_lsb
                      $0.writeFlag(true)
                      $0.writeUE(16)
                  }, error: .invalid(structure: "slice header", reason: "num_ref_idx_active above 16")),
        Malformed(name: "modification_of_pic_nums_idc 6", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(1, bits: 4)
                      $0.write(2, bits: 6)
                      $0.writeFlag(false)
                      $0.writeFlag(true)
                      $0.writeUE(6)
                  }, error: .invalid(structure: "ref_pic_list_modification", reason: "modification_of_pic_nums_idc 6")),
        Malformed(name: "endless list modification", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(1, bits: 4)
                      $0.write(2, bits: 6)
                      $0.writeFlag(false)
                      $0.writeFlag(true)
                      for _ in 0..<100 {
                          $0.writeUE(0)
                          $0.writeUE(0)
                      }
                  }, error: .limitExceeded(what: "ref_pic_list_modification entries", value: 67, limit: 66)),
        Malformed(name: "luma_log2_weight_denom 8", slice: slice {
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.writeUE(0)
                      $0.write(1, bits: 4)
                      $0.write(2, bits: 6)
                      $0.writeFlag(false)
                      $0.writeFlag(false)
                      $0.writeUE(8)
                  }, error: .invalid(structure: "pred_weight_table", reason: "luma_log2_weight_denom 8 above 7")),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: Malformed) throws {
        let (spsById, ppsById) = try Self.maps(Self.high)
        #expect(throws: c.error) {
            try SliceHeader(parsing: c.slice, sequenceParameterSets: spsById, pictureParameterSets: ppsById)
        }
    }

    @Test func unknownSPSOfKnownPPS() throws {
        let (_, ppsById) = try Self.maps(Self.high)
        #expect(throws: MediaFormatError.invalid(structure: "slice header", reason: "unknown seq_parameter_set_id 0")) {
            try SliceHeader(parsing: H264Fixtures.high.idrSlice, sequenceParameterSets: [:], pictureParameterSets: ppsById)
        }
    }

    @Test func randomInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 9)
        let maps = [try Self.maps(Self.high), try Self.maps([H264Fixtures.fmoSPS, H264Fixtures.fmoType4PPS]),
                    try Self.maps([H264Fixtures.pocType1, H264Fixtures.pocType1PPS])]
        var parsed = 0
        for index in 0..<2000 {
            let (spsById, ppsById) = maps[index % maps.count]
            let header: UInt8 = [0x65, 0x41, 0x01, 0x25][index % 4]
            let body = generator.bytes(Int.random(in: 0...24, using: &generator))
            if (try? SliceHeader(parsing: [header] + body, sequenceParameterSets: spsById, pictureParameterSets: ppsById)) != nil {
                parsed += 1
            }
        }
        #expect(parsed < 2000)
    }
}
