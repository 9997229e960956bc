import Testing
import MediaFormats

@Suite("FLVTimestamp: 32-bit milliseconds that wrap, compared as serial numbers")
struct FLVTimestampTests {
    static let reductions: [(milliseconds: Int64, bits: UInt32)] = [
        (0, 0), ((1 << 31) - 1, 0x7FFF_FFFF), (1 << 31, 0x8000_0000), ((1 << 32) - 1, 0xFFFF_FFFF),
        (1 << 32, 0), ((1 << 32) + 40, 40), (Int64.max, 0xFFFF_FFFF), (-1, 0xFFFF_FFFF), (Int64.min, 0),
    ]

    @Test("milliseconds reduce modulo 2^32")
    func reduction() {
        for row in Self.reductions {
            #expect(FLVTimestamp(milliseconds: row.milliseconds).rawValue == row.bits, "\(row.milliseconds) ms")
        }
    }

    @Test("RFC 1982 distance and order across 2^31 and 2^32")
    func serialArithmetic() {
        let beforeWrap = FLVTimestamp(rawValue: 0xFFFF_FFF0)
        let afterWrap = FLVTimestamp(rawValue: 0x10)
        #expect(beforeWrap.distance(to: afterWrap) == 32)
        #expect(afterWrap.distance(to: beforeWrap) == -32)
        #expect(beforeWrap.precedes(afterWrap))
        #expect(!afterWrap.precedes(beforeWrap))
        let belowHalf = FLVTimestamp(rawValue: 0x7FFF_FFF0)
        let aboveHalf = FLVTimestamp(rawValue: 0x8000_0010)
        #expect(belowHalf.distance(to: aboveHalf) == 32)
        #expect(belowHalf.precedes(aboveHalf))
        #expect(!beforeWrap.precedes(beforeWrap))
        // Exactly half the circle apart is the one pair RFC 1982 leaves undefined: neither precedes.
        #expect(FLVTimestamp(rawValue: 0).distance(to: FLVTimestamp(rawValue: 0x8000_0000)) == Int32.min)
        #expect(!FLVTimestamp(rawValue: 0).precedes(FLVTimestamp(rawValue: 0x8000_0000)))
    }

    @Test("the unwrapper rebuilds an unbounded timeline from wrapped tags, jitter backwards included")
    func unwrapping() {
        var unwrapper = FLVTimestampUnwrapper()
        // Two wraps, steps under 2^31 ms, one step backwards (B-frame DTS jitter never exceeds that).
        let times: [Int64] = [(1 << 32) - 100, (1 << 32) - 60, (1 << 32) - 80, (1 << 32) + 20, (1 << 32) + (1 << 31) - 1,
                              (2 << 32) - 5, (2 << 32) + 5]
        #expect(unwrapper.unwrap(FLVTimestamp(milliseconds: times[0]).rawValue) == times[0])
        for time in times.dropFirst() {
            #expect(unwrapper.unwrap(FLVTimestamp(milliseconds: time).rawValue) == time)
        }
        unwrapper.reset()
        #expect(unwrapper.last == nil)
        #expect(unwrapper.unwrap(7) == 7)
    }
}
