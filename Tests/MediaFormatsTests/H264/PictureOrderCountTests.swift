import Testing
import MediaFormats

@Suite("Picture order count (§8.2.1)")
struct PictureOrderCountTests {
    typealias Picture = SyntheticStream.Picture

    /// POCs of `slices` (whole NAL units) in decoding order, through one counter.
    static func pocs(sps: [UInt8], pps: [UInt8], slices: [[UInt8]]) throws -> [Int] {
        let parsedSPS = try SequenceParameterSet(parsing: sps)
        let spsById = [parsedSPS.id: parsedSPS]
        let parsedPPS = try PictureParameterSet(parsing: pps)
        let ppsById = [parsedPPS.id: parsedPPS]
        var counter = PictureOrderCounter()
        return try slices.map { nalUnit in
            let slice = try SliceHeader(parsing: nalUnit, sequenceParameterSets: spsById, pictureParameterSets: ppsById)
            return counter.compute(slice, sps: parsedSPS)
        }
    }

    /// x264 writes POC = 2 × display index; ffprobe's PTS order of the same encode gives the expected values.
    @Test func closedGOPFromX264() throws {
        let expected = [0, 6, 2, 4, 14, 10, 8, 12, 20, 16, 18, 22] + [0, 8, 4, 2, 6, 16, 12, 10, 14, 22, 18, 20] + [0, 8, 4, 2, 6, 10]
        let slices = H264Fixtures.closedGOPSlices
        #expect(try Self.pocs(sps: H264Fixtures.closedGOPSPS, pps: H264Fixtures.closedGOPPPS, slices: slices) == expected)
    }

    @Test func openGOPFromX264() throws {
        let pts = [0, 3, 1, 2, 7, 5, 4, 6, 10, 8, 9, 12, 11, 16, 14, 13, 15, 20, 18, 17, 19, 24, 22, 21, 23, 28, 26, 25, 27, 29]
        let pocs = try Self.pocs(sps: H264Fixtures.openGOPSPS, pps: H264Fixtures.openGOPPPS, slices: H264Fixtures.openGOPSlices)
        #expect(pocs == pts.map { 2 * $0 })
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let pocType: Int
        let pictures: [Picture]
        let expected: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "type 0: lsb wraps forward (MaxPicOrderCntLsb 16)", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 4), Picture(frameNum: 2, lsb: 8), Picture(frameNum: 3, lsb: 12),
            Picture(frameNum: 4, lsb: 0), Picture(frameNum: 5, lsb: 4),
        ], expected: [0, 4, 8, 12, 16, 20]),
        Case(name: "type 0: wraps both ways around the previous reference picture", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 6), Picture(frameNum: 2, lsb: 12),
            Picture(type: .b, reference: false, frameNum: 3, lsb: 2),  // 18, not 2: prevPicOrderCntLsb is 12
            Picture(frameNum: 3, lsb: 0),  // 16
            Picture(type: .b, reference: false, frameNum: 4, lsb: 14),  // back across the wrap: 14
        ], expected: [0, 6, 12, 18, 16, 14]),
        Case(name: "type 0: a jump of half MaxPicOrderCntLsb or more counts backwards", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 12),
        ], expected: [0, -4]),
        Case(name: "type 0: non-reference pictures do not move prevPicOrderCnt", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(type: .b, reference: false, frameNum: 1, lsb: 7),
            Picture(type: .b, reference: false, frameNum: 1, lsb: 15), Picture(frameNum: 1, lsb: 5),
        ], expected: [0, 7, -1, 5]),
        Case(name: "type 0: delta_pic_order_cnt_bottom and fields", pocType: 0, pictures: [
            Picture(type: .i, idr: true, lsb: 1, deltaBottom: -1), Picture(frameNum: 1, lsb: 4, field: (false, ())),
            Picture(frameNum: 1, lsb: 5, field: (true, ())), Picture(frameNum: 2, lsb: 8, deltaBottom: 3),
        ], expected: [0, 4, 5, 8]),
        Case(name: "type 0: MMCO 5 restarts the count", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 8), Picture(frameNum: 2, lsb: 12, deltaBottom: -2, mmco5: true),
            Picture(frameNum: 1, lsb: 4), Picture(type: .b, reference: false, frameNum: 2, lsb: 3),
        ], expected: [0, 8, 0, 4, 3]),
        Case(name: "type 0: IDR resets", pocType: 0, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 6), Picture(frameNum: 2, lsb: 12), Picture(frameNum: 3, lsb: 2),
            Picture(type: .i, idr: true, lsb: 2), Picture(frameNum: 1, lsb: 10),
        ], expected: [0, 6, 12, 18, 2, 10]),
        Case(name: "type 1: expected cycle, non-reference offset, deltas", pocType: 1, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, delta: (3, -1)),
            Picture(type: .b, reference: false, frameNum: 2, delta: (-2, 5)), Picture(frameNum: 2),
            Picture(frameNum: 3), Picture(frameNum: 4),
        ], expected: [0, 7, 0, -2, 8, 12]),
        Case(name: "type 1: frame_num wrap adds MaxFrameNum", pocType: 1, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 14), Picture(frameNum: 15), Picture(frameNum: 0),
        ], expected: [0, 30, 40, 44]),
        Case(name: "type 1: fields", pocType: 1, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1, delta: (1, 0), field: (false, ())),
            Picture(frameNum: 1, delta: (2, 0), field: (true, ())),
        ], expected: [0, 5, 7]),
        Case(name: "type 1: MMCO 5", pocType: 1, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1), Picture(frameNum: 2, mmco5: true), Picture(frameNum: 1),
        ], expected: [0, 4, 0, 4]),
        Case(name: "type 2: output order is decoding order", pocType: 2, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1), Picture(reference: false, frameNum: 2), Picture(frameNum: 2),
            Picture(frameNum: 3),
        ], expected: [0, 2, 3, 4, 6]),
        Case(name: "type 2: frame_num wrap and IDR", pocType: 2, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 15), Picture(frameNum: 0), Picture(frameNum: 1),
            Picture(type: .i, idr: true), Picture(frameNum: 1),
        ], expected: [0, 30, 32, 34, 0, 2]),
        Case(name: "type 2: MMCO 5", pocType: 2, pictures: [
            Picture(type: .i, idr: true), Picture(frameNum: 1), Picture(frameNum: 2, mmco5: true), Picture(frameNum: 1),
        ], expected: [0, 2, 0, 2]),
    ]

    @Test(arguments: cases)
    func computesCounts(_ c: Case) throws {
        let stream = SyntheticStream(pocType: c.pocType)
        #expect(try Self.pocs(sps: stream.sps, pps: stream.pps, slices: c.pictures.map(stream.slice)) == c.expected)
    }

    @Test func resetForgetsHistory() throws {
        let stream = SyntheticStream(pocType: 2)
        let sps = try SequenceParameterSet(parsing: stream.sps)
        let pps = try PictureParameterSet(parsing: stream.pps)
        let slice = try SliceHeader(parsing: stream.slice(Picture(frameNum: 3)), sequenceParameterSets: [0: sps], pictureParameterSets: [0: pps])
        let wrapping = try SliceHeader(parsing: stream.slice(Picture(frameNum: 1)), sequenceParameterSets: [0: sps], pictureParameterSets: [0: pps])
        var counter = PictureOrderCounter()
        #expect(counter.compute(slice, sps: sps) == 6)
        #expect(counter.compute(wrapping, sps: sps) == 34)  // 1 < 3: frame_num wrapped
        counter.reset()
        #expect(counter.compute(wrapping, sps: sps) == 2)
    }
}
