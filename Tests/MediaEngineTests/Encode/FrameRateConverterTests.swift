import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("FrameRateConverter")
struct FrameRateConverterTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// Output rate as a fraction.
        let rate: (Int64, Int64)
        /// Input presentation times, microseconds, then the end time of the last frame.
        let times: [Int64]
        let end: Int64
        /// How many output slots each input frame fills, in input order.
        let fills: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "same rate passes every frame once", rate: (30, 1), times: [0, 33_333, 66_667, 100_000], end: 133_333, fills: [1, 1, 1, 1]),
        Case(name: "60 → 30 drops every other frame", rate: (30, 1), times: (0..<6).map { $0 * 16_667 }, end: 100_000, fills: [1, 0, 1, 0, 1, 0]),
        Case(name: "15 → 30 shows each frame twice", rate: (30, 1), times: [0, 66_667, 133_333], end: 200_000, fills: [2, 2, 2]),
        Case(name: "30 → 24 drops one frame in five", rate: (24, 1), times: (0..<10).map { $0 * 33_333 }, end: 333_333,
             fills: [1, 1, 0, 1, 1, 1, 1, 0, 1, 1]),
        Case(name: "gap is filled by the frame before it", rate: (10, 1), times: [0, 100_000, 500_000], end: 600_000, fills: [1, 4, 1]),
        Case(name: "timestamp going back drops the earlier frame", rate: (10, 1), times: [0, 200_000, 100_000, 300_000], end: 400_000, fills: [2, 0, 1, 1]),
        Case(name: "last frame shows at least once", rate: (10, 1), times: [0], end: 1, fills: [1]),
        Case(name: "NTSC 30000/1001", rate: (30000, 1001), times: [0, 33_367, 66_733], end: 100_100, fills: [1, 1, 1]),
        Case(name: "a jump past the fill limit shows the frame once", rate: (10, 1), times: [0, 3_600_000_000], end: 3_600_100_000, fills: [1, 1]),
    ]

    @Test(arguments: cases)
    func fills(_ testCase: Case) {
        var converter = FrameRateConverter(rateNumerator: testCase.rate.0, rateDenominator: testCase.rate.1)
        var fills: [Int] = []
        var slots: [Int64] = []
        for time in testCase.times {
            let range = converter.push(presentationTime: time)
            if !fills.isEmpty || !range.isEmpty { fills.append(range.count) }
            slots += range
        }
        // The first push only starts the held frame: it fills nothing yet.
        let last = converter.finish(endTime: testCase.end)
        fills.append(last.count)
        slots += last
        #expect(fills == testCase.fills)
        // Slots never repeat and never go back.
        #expect(zip(slots, slots.dropFirst()).allSatisfy { $0 < $1 })
        converter.reset()
        #expect(converter.nextSlot == nil)
    }

    @Test("slot times round to the nearest slot, negative times included")
    func slotRounding() {
        let converter = FrameRateConverter(rateNumerator: 25, rateDenominator: 1)
        #expect(converter.slot(at: 0) == 0)
        #expect(converter.slot(at: 19_999) == 0)
        #expect(converter.slot(at: 20_000) == 1)
        #expect(converter.slot(at: -20_001) == -1)
        #expect(converter.slot(at: -19_999) == 0)
        #expect(converter.time(ofSlot: 3) == 120_000)
    }

    @Test("Int64 extremes of media time give clamped slots instead of trapping")
    func extremeTimes() {
        var converter = FrameRateConverter(rateNumerator: 30000, rateDenominator: 1001)
        #expect(converter.slot(at: .max) == 276_424_736_369_274)
        #expect(converter.slot(at: .min) == -276_424_736_369_274)
        #expect(converter.time(ofSlot: .max) == .max)
        #expect(converter.time(ofSlot: .min) == .min)
        _ = converter.push(presentationTime: .min)
        #expect(converter.push(presentationTime: .max).count == 1)
        #expect(converter.push(presentationTime: .min).isEmpty)
        #expect(converter.finish(endTime: .max).count <= Int(FrameRateConverter.maxFilledSlots))
        #expect(FrameRateConverter(rateNumerator: 0, rateDenominator: 0).slot(at: .max) == 9_223_372_036_855)
    }
}
