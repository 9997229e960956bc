import Testing
@testable import MediaEngine

@Suite("TimelineSplicer")
struct TimelineSplicerTests {
    /// Feeds (stream, dts µs, duration µs) and returns the spliced DTS of each.
    static func splice(_ splicer: inout TimelineSplicer, _ packets: [(Int, Int64, Int64)]) -> [Int64] {
        packets.map { stream, dts, duration in dts + splicer.offset(stream: stream, dts: dts, duration: duration) }
    }

    @Test("a steady stream passes unchanged")
    func steady() {
        var splicer = TimelineSplicer()
        #expect(Self.splice(&splicer, [(0, 0, 33_333), (1, 10_000, 21_333), (0, 33_333, 33_333)]) == [0, 10_000, 33_333])
        #expect(splicer.splices == 0)
    }

    @Test("a new connection restarting at zero continues after the furthest stream")
    func reconnectAtZero() {
        var splicer = TimelineSplicer()
        _ = Self.splice(&splicer, [(0, 1_000_000, 33_333), (1, 1_010_000, 21_333)])
        splicer.beginSegment()
        #expect(Self.splice(&splicer, [(0, 0, 33_333), (1, 10_000, 21_333)]) == [1_033_333, 1_043_333])
        #expect(splicer.splices == 1)
    }

    @Test("a clock that jumps back or far ahead on the same connection is spliced; jitter is not")
    func jumps() {
        var splicer = TimelineSplicer()
        _ = Self.splice(&splicer, [(0, 5_000_000, 33_333)])
        #expect(Self.splice(&splicer, [(0, 4_900_000, 33_333)]) == [4_900_000])
        #expect(Self.splice(&splicer, [(0, 0, 33_333)]) == [5_033_333])
        #expect(Self.splice(&splicer, [(0, 60_000_000, 33_333)]) == [5_066_666])
        #expect(splicer.splices == 2)
    }
}
