import Testing
import MediaFormats

/// BANDWIDTH as RFC 8216bis §4.4.6.2 defines it: the highest bit rate of a contiguous set of segments lasting 0.5 to
/// 1.5 target durations; AVERAGE-BANDWIDTH over everything.
@Suite("HLSBitrateMeter: peak and average segment bit rate")
struct HLSBitrateMeterTests {
    typealias Case = HLSCaseRow<(target: Int, segments: [(bytes: Int, duration: Double)]), (peak: UInt64?, average: UInt64?)>

    static let cases: [Case] = [
        .init("no segment: nothing to list", (2, []), (nil, nil)),
        .init("steady 2 s segments of 250 kB: 1 Mb/s both", (2, [(250_000, 2), (250_000, 2), (250_000, 2)]), (1_000_000, 1_000_000)),
        .init("one heavy segment is the peak", (2, [(250_000, 2), (500_000, 2), (250_000, 2)]), (2_000_000, 1_333_334)),
        // A 0.4 s last segment is under half the target alone (2 Mb/s): it counts only with the one before (2.4 s).
        .init("a short last segment counts with its neighbour, not alone",
              (2, [(250_000, 2), (100_000, 0.4)]), (1_166_667, 1_166_667)),
        // Two 0.5 s segments of 1 s target: each alone is half the target, so each counts.
        .init("segments of half the target count alone", (1, [(50_000, 0.5), (100_000, 0.5)]), (1_600_000, 1_200_000)),
        .init("a stream shorter than half the target lists its average", (4, [(10_000, 1)]), (80_000, 80_000)),
        // A 5 s segment raises a 2 s target to 5: it counts alone, as its playlist's EXT-X-TARGETDURATION says.
        .init("a long segment raises the target", (2, [(100_000, 2), (1_000_000, 5)]), (1_600_000, 1_257_143)),
        .init("a zero-length segment measures nothing", (2, [(1_000, 0)]), (nil, nil)),
    ]

    @Test(arguments: cases)
    func measures(_ c: Case) {
        var meter = HLSBitrateMeter(targetDuration: c.input.target)
        for segment in c.input.segments { meter.add(.init(bytes: segment.bytes, duration: segment.duration)) }
        #expect(meter.bandwidth == c.expected.peak, "peak")
        #expect(meter.averageBandwidth == c.expected.average, "average")
    }

    @Test("add reports only a rise of the peak; a long run keeps only what a set can reach")
    func rises() {
        var meter = HLSBitrateMeter(targetDuration: 2)
        var rose = [meter.add(.init(bytes: 250_000, duration: 2)), meter.add(.init(bytes: 200_000, duration: 2))]
        for _ in 0..<10_000 { meter.add(.init(bytes: 250_000, duration: 2)) }
        rose += [meter.add(.init(bytes: 250_000, duration: 2)), meter.add(.init(bytes: 251_000, duration: 2))]
        #expect(rose == [true, false, false, true])
        #expect(meter.peak == 1_004_000 && meter.segmentCount == 10_004)
    }
}
