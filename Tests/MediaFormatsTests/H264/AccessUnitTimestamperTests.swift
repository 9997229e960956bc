import SluiceTestSupport
import Testing
import MediaFormats

@Suite("Access unit timestamper")
struct AccessUnitTimestamperTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// (POC, starts a new period) in decoding order.
        let units: [(poc: Int, newPeriod: Bool)]
        var vuiReorder: Int?
        /// PTS in frames, in decoding order (DTS is always the decode index).
        let pts: [Int64]
        let reorderDelay: Int
        var testDescription: String { name }
    }

    static func period(_ pocs: [Int]) -> [(poc: Int, newPeriod: Bool)] {
        pocs.enumerated().map { ($0.element, $0.offset == 0) }
    }

    static let cases: [Case] = [
        Case(name: "IPPP", units: period([0, 2, 4, 6]), pts: [0, 1, 2, 3], reorderDelay: 0),
        Case(name: "IBBP", units: period([0, 6, 2, 4, 12, 8, 10]), pts: [1, 4, 2, 3, 7, 5, 6], reorderDelay: 1),
        Case(name: "B-pyramid I0 P8 B4 B2 B1 B3 B6 B5 B7", units: period([0, 8, 4, 2, 1, 3, 6, 5, 7]),
             pts: [3, 11, 7, 5, 4, 6, 9, 8, 10], reorderDelay: 3),
        Case(name: "two periods", units: period([0, 4, 2]) + period([0, 4, 2]), pts: [1, 3, 2, 4, 6, 5], reorderDelay: 1),
        Case(name: "a later period needs more delay: R grows, one PTS slot is skipped",
             units: period([0, 2, 4]) + period([0, 6, 2, 4]), pts: [0, 1, 2, 4, 7, 5, 6], reorderDelay: 1),
        Case(name: "a later period needs less: R stays", units: period([0, 6, 2, 4]) + period([0, 2]),
             pts: [1, 4, 2, 3, 5, 6], reorderDelay: 1),
        Case(name: "VUI max_num_reorder_frames fixes R up front", units: period([0, 2, 4]), vuiReorder: 2,
             pts: [2, 3, 4], reorderDelay: 2),
        Case(name: "VUI too small: R grows", units: period([0, 8, 4, 2, 6]), vuiReorder: 1, pts: [2, 6, 4, 3, 5], reorderDelay: 2),
        Case(name: "MMCO 5 period with negative POCs", units: period([0, 4, 2]) + period([0, -2, 4]),
             pts: [1, 3, 2, 5, 4, 6], reorderDelay: 1),
        Case(name: "single access unit", units: period([0]), pts: [0], reorderDelay: 0),
    ]

    @Test(arguments: cases)
    func timestamps(_ c: Case) {
        var timestamper = AccessUnitTimestamper<Int>(frameDuration: 3000, maxNumReorderFrames: c.vuiReorder)
        var timed: [AccessUnitTimestamper<Int>.Timed] = []
        for (index, unit) in c.units.enumerated() {
            timed += timestamper.push(index, pictureOrderCount: unit.poc, startsNewPeriod: unit.newPeriod)
        }
        timed += timestamper.flush()
        #expect(timed.map(\.payload) == Array(c.units.indices))
        #expect(timed.map(\.decodeIndex) == c.units.indices.map(Int64.init))
        #expect(timed.map(\.pictureOrderCount) == c.units.map(\.poc))
        #expect(timed.map(\.dts) == c.units.indices.map { Int64($0) * 3000 })
        #expect(timed.map(\.pts) == c.pts.map { $0 * 3000 })
        #expect(timestamper.reorderDelay == c.reorderDelay)
        #expect(timestamper.flush().isEmpty)
    }

    @Test("a frame duration from an extreme VUI (0, or 2^32 − 1 units per tick) neither traps nor stalls")
    func extremeFrameDurations() {
        var zero = AccessUnitTimestamper<Int>(frameDuration: 0, maxNumReorderFrames: .max, maximumPeriodLength: 0)
        #expect(zero.frameDuration == 1)
        #expect(zero.maximumPeriodLength == 1)
        _ = zero.push(0, pictureOrderCount: 0, startsNewPeriod: true)
        #expect(zero.push(1, pictureOrderCount: 2, startsNewPeriod: false).map(\.pts) == [.max])
        var huge = AccessUnitTimestamper<Int>(frameDuration: Int64(UInt32.max) * 1_000_000_000)
        for index in 0..<5 { _ = huge.push(index, pictureOrderCount: index * 2, startsNewPeriod: index % 2 == 0) }
        let timed = huge.flush()
        #expect(timed.map(\.dts) == [.max])
        #expect(timed.map(\.pts) == [.max])
    }

    @Test func releasesAPeriodWhenTheNextStarts() {
        var timestamper = AccessUnitTimestamper<String>(frameDuration: 1)
        #expect(timestamper.push("I", pictureOrderCount: 0, startsNewPeriod: true).isEmpty)
        #expect(timestamper.push("P", pictureOrderCount: 4, startsNewPeriod: false).isEmpty)
        #expect(timestamper.push("B", pictureOrderCount: 2, startsNewPeriod: false).isEmpty)
        let released = timestamper.push("I2", pictureOrderCount: 0, startsNewPeriod: true)
        #expect(released.map(\.payload) == ["I", "P", "B"])
        #expect(released.map(\.pts) == [1, 3, 2])
        #expect(timestamper.flush().map(\.payload) == ["I2"])
    }

    @Test func resetStartsOver() {
        var timestamper = AccessUnitTimestamper<Int>(frameDuration: 10)
        _ = timestamper.push(0, pictureOrderCount: 0, startsNewPeriod: true)
        _ = timestamper.push(1, pictureOrderCount: 4, startsNewPeriod: false)
        timestamper.reset()
        #expect(timestamper.reorderDelay == nil)
        _ = timestamper.push(2, pictureOrderCount: 0, startsNewPeriod: true)
        #expect(timestamper.flush().map(\.dts) == [0])
    }

    /// Long periods (open GOP with a single IDR) are cut at an anchor once they reach the limit.
    @Test func periodLengthIsBounded() {
        var timestamper = AccessUnitTimestamper<Int>(frameDuration: 1, maximumPeriodLength: 4)
        var releasedCounts: [Int] = []
        // IBBP forever after one IDR: P anchors every 3 pictures.
        var pocs = [0]
        for group in 0..<10 { pocs += [6 * group + 6, 6 * group + 2, 6 * group + 4] }
        var timed: [AccessUnitTimestamper<Int>.Timed] = []
        for (index, poc) in pocs.enumerated() {
            let released = timestamper.push(index, pictureOrderCount: poc, startsNewPeriod: index == 0)
            if !released.isEmpty { releasedCounts.append(released.count) }
            timed += released
        }
        timed += timestamper.flush()
        #expect(releasedCounts.allSatisfy { $0 <= 8 })
        #expect(!releasedCounts.isEmpty)
        // Cutting at anchors keeps display order intact: PTS order equals POC order.
        #expect(timed.sorted { $0.pts < $1.pts }.map(\.pictureOrderCount) == pocs.sorted())
        Self.checkGuarantees(timed)
    }

    /// A stream whose POC never rises past its maximum is still cut at twice the limit.
    @Test func periodIsCutAtTwiceTheLimitRegardless() {
        var timestamper = AccessUnitTimestamper<Int>(frameDuration: 1, maximumPeriodLength: 3)
        var timed: [AccessUnitTimestamper<Int>.Timed] = []
        for index in 0..<20 {
            let released = timestamper.push(index, pictureOrderCount: 100 - index, startsNewPeriod: index == 0)
            #expect(released.count <= 6)
            timed += released
        }
        timed += timestamper.flush()
        #expect(timed.count == 20)
        Self.checkGuarantees(timed)
    }

    /// DTS strictly increasing, PTS ≥ DTS, PTS unique, whatever the POCs.
    static func checkGuarantees<P>(_ timed: [AccessUnitTimestamper<P>.Timed], sourceLocation: SourceLocation = #_sourceLocation) {
        for (previous, next) in zip(timed, timed.dropFirst()) {
            #expect(next.dts > previous.dts, sourceLocation: sourceLocation)
        }
        #expect(timed.allSatisfy { $0.pts >= $0.dts }, sourceLocation: sourceLocation)
        #expect(Set(timed.map(\.pts)).count == timed.count, sourceLocation: sourceLocation)
    }

    @Test func randomPOCsKeepTheGuarantees() {
        var generator = SeededGenerator(seed: 90000)
        for _ in 0..<300 {
            var timestamper = AccessUnitTimestamper<Int>(
                frameDuration: Int64.random(in: 1...3003, using: &generator),
                maxNumReorderFrames: Bool.random(using: &generator) ? Int.random(in: 0...4, using: &generator) : nil,
                maximumPeriodLength: Int.random(in: 1...40, using: &generator))
            var timed: [AccessUnitTimestamper<Int>.Timed] = []
            var periodPOCs: [[Int]] = []
            for index in 0..<Int.random(in: 1...80, using: &generator) {
                let newPeriod = index == 0 || Int.random(in: 0..<12, using: &generator) == 0
                let poc = Int.random(in: -50...50, using: &generator)
                if newPeriod { periodPOCs.append([]) }
                periodPOCs[periodPOCs.count - 1].append(poc)
                timed += timestamper.push(index, pictureOrderCount: poc, startsNewPeriod: newPeriod)
            }
            timed += timestamper.flush()
            #expect(timed.map(\.payload) == Array(timed.indices))
            Self.checkGuarantees(timed)
        }
    }

    // MARK: - Whole Annex B access units

    /// ffprobe on the MP4 x264 wrote (1/30 s units): PTS in decoding order; its DTS start at −2.
    static let closedGOPPTS: [Int64] = [0, 3, 1, 2, 7, 5, 4, 6, 10, 8, 9, 11, 12, 16, 14, 13, 15, 20, 18, 17, 19, 23, 21, 22,
                                        24, 28, 26, 25, 27, 29]
    static let openGOPPTS: [Int64] = [0, 3, 1, 2, 7, 5, 4, 6, 10, 8, 9, 12, 11, 16, 14, 13, 15, 20, 18, 17, 19, 24, 22, 21,
                                      23, 28, 26, 25, 27, 29]

    /// Access units as the raw .h264 demuxer hands them over: SPS and PPS before each IDR slice.
    static func accessUnits(sps: [UInt8], pps: [UInt8], slices: [[UInt8]]) -> [[UInt8]] {
        slices.map { slice in
            NALUnitHeader(slice[0]).isIDR ? annexB([[0x09, 0xF0], sps, pps, [0x06, 0x05, 0x01, 0x80], slice]) : annexB([slice], short: true)
        }
    }

    @Test(arguments: [
        ("closed GOP", H264Fixtures.closedGOPSPS, H264Fixtures.closedGOPPPS, H264Fixtures.closedGOPSlices, closedGOPPTS),
        ("open GOP", H264Fixtures.openGOPSPS, H264Fixtures.openGOPPPS, H264Fixtures.openGOPSlices, openGOPPTS),
    ])
    func matchesFFprobeOnX264Streams(_ name: String, _ sps: [UInt8], _ pps: [UInt8], _ slices: [[UInt8]], _ ffprobePTS: [Int64]) throws {
        // 1/15360 time base at 30 fps, as MP4 and FLV writers see it.
        var timestamper = AnnexBAccessUnitTimestamper(frameDuration: 512)
        let units = Self.accessUnits(sps: sps, pps: pps, slices: slices)
        var timed: [AnnexBAccessUnitTimestamper.Timed] = []
        for unit in units { timed += try timestamper.push(unit) }
        timed += timestamper.flush()
        #expect(timed.map(\.payload) == units)
        // Same reorder delay as x264's (DTS starting at −2 frames), so ours are ffprobe's shifted by 2 frames.
        #expect(timestamper.reorderDelay == 2)
        #expect(timed.map(\.pts) == ffprobePTS.map { ($0 + 2) * 512 })
        #expect(timed.map(\.dts) == timed.indices.map { Int64($0) * 512 })
        Self.checkGuarantees(timed)
    }

    @Test func mmco5StartsANewPeriod() throws {
        let stream = SyntheticStream(pocType: 0)
        typealias Picture = SyntheticStream.Picture
        let pictures = [
            Picture(type: .i, idr: true), Picture(frameNum: 1, lsb: 4), Picture(type: .b, reference: false, frameNum: 2, lsb: 2),
            Picture(frameNum: 2, lsb: 8, mmco5: true), Picture(frameNum: 1, lsb: 6),
            Picture(type: .b, reference: false, frameNum: 2, lsb: 2),
        ]
        var timestamper = AnnexBAccessUnitTimestamper(frameDuration: 1)
        var timed = try timestamper.push(annexB([stream.sps, stream.pps, stream.slice(pictures[0])]))
        for picture in pictures.dropFirst() { timed += try timestamper.push(annexB([stream.slice(picture)])) }
        timed += timestamper.flush()
        // Periods: [0 4 2] and, after MMCO 5, [0 6 2] (the MMCO 5 picture counts as 0).
        #expect(timed.map(\.pictureOrderCount) == [0, 4, 2, 0, 6, 2])
        #expect(timed.map(\.pts) == [1, 3, 2, 4, 6, 5])
    }

    @Test func refusesAccessUnitsItCannotTime() throws {
        var timestamper = AnnexBAccessUnitTimestamper(frameDuration: 1)
        #expect(throws: MediaFormatError.invalid(structure: "slice header", reason: "unknown pic_parameter_set_id 0")) {
            try timestamper.push(annexB([H264Fixtures.closedGOPSlices[0]]))
        }
        #expect(throws: MediaFormatError.invalid(structure: "access unit", reason: "no coded slice (nal_unit_type 1 or 5)")) {
            try timestamper.push(annexB([H264Fixtures.high.sps, H264Fixtures.high.pps]))
        }
        // Parameter sets from an access unit without slices are kept for the next one...
        #expect(try timestamper.push(annexB([H264Fixtures.high.idrSlice])).isEmpty)
        #expect(timestamper.flush().count == 1)
        // ...until a reset.
        timestamper.reset()
        #expect(throws: MediaFormatError.invalid(structure: "slice header", reason: "unknown pic_parameter_set_id 0")) {
            try timestamper.push(annexB([H264Fixtures.high.idrSlice]))
        }
    }

    @Test func randomlyDamagedAccessUnitsNeverCrash() {
        var generator = SeededGenerator(seed: 0x7153)
        let units = Self.accessUnits(sps: H264Fixtures.closedGOPSPS, pps: H264Fixtures.closedGOPPPS, slices: H264Fixtures.closedGOPSlices)
        var timestamper = AnnexBAccessUnitTimestamper(frameDuration: 1)
        var timed: [AnnexBAccessUnitTimestamper.Timed] = []
        var failures = 0
        for index in 0..<2000 {
            var unit = units[index % units.count]
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                unit[Int.random(in: 0..<unit.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                timed += try timestamper.push(unit)
            } catch let error as MediaFormatError {
                failures += 1
                #expect(!error.description.isEmpty)
            } catch {
                Issue.record("unexpected error type \(error)")
            }
        }
        timed += timestamper.flush()
        #expect(timed.count + failures == 2000)
        Self.checkGuarantees(timed)
    }
}
