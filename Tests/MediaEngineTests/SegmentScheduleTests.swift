import MediaJob
import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("SegmentSchedule: recordings cut at the first keyframe at or after each epoch multiple of segment_s")
struct SegmentScheduleTests {
    /// 2026-01-01T00:00:00Z, a multiple of every length used here.
    static let epoch: Double = 1_767_225_600

    /// Places video at 25 fps with a keyframe every `gop` frames from `startWall`, on a wall clock that follows the
    /// media; returns the cuts as (frame, start).
    static func cuts(seconds: Int64, gop: Int, frames: Int, startWall: Double, live: Bool = true) -> [(frame: Int, start: Int64, ranLong: Bool)] {
        var schedule = SegmentSchedule(seconds: seconds, openedAt: startWall, followsWallClock: live)
        var cuts: [(Int, Int64, Bool)] = []
        for frame in 0..<frames {
            let dts = Int64(frame) * 40_000
            if case let .cut(start, ranLong) = schedule.place(dts: dts, isKeyframe: frame % gop == 0, now: startWall + Double(dts) / 1e6) {
                cuts.append((frame, start, ranLong))
            }
        }
        return cuts
    }

    @Test("cuts fall on epoch multiples, whatever the start: two recordings opened apart cut at the same instants")
    func epochAligned() {
        let first = Self.cuts(seconds: 2, gop: 25, frames: 250, startWall: Self.epoch + 0.3)
        let second = Self.cuts(seconds: 2, gop: 25, frames: 200, startWall: Self.epoch + 2.3)
        #expect(first.map(\.start) == [2, 4, 6, 8].map { Int64(Self.epoch) + $0 })
        #expect(second.map(\.start) == [4, 6, 8].map { Int64(Self.epoch) + $0 })
        #expect(first.allSatisfy { !$0.ranLong })
        // The keyframe at or after each boundary: frames at 0.3 s + 1 s steps, so 2.3 s is frame 50.
        #expect(first.map(\.frame) == [50, 100, 150, 200])
        var schedule = SegmentSchedule(seconds: 600, openedAt: Self.epoch + 599.9, followsWallClock: true)
        #expect(schedule.firstStart == Int64(Self.epoch))
        #expect(schedule.place(dts: 0, isKeyframe: true, now: Self.epoch + 599.9) == .keep)
        #expect(schedule.place(dts: 200_000, isKeyframe: true, now: Self.epoch + 600.1) == .cut(start: Int64(Self.epoch) + 600, ranLong: false))
    }

    @Test("no cut on a packet that is not a keyframe: the segment waits for the next one")
    func keyframeRule() {
        var schedule = SegmentSchedule(seconds: 2, openedAt: Self.epoch, followsWallClock: true)
        #expect(schedule.place(dts: 0, isKeyframe: true, now: Self.epoch) == .keep)
        #expect(schedule.place(dts: 2_000_000, isKeyframe: false, now: Self.epoch + 2) == .keep)
        #expect(schedule.place(dts: 2_500_000, isKeyframe: false, now: Self.epoch + 2.5) == .keep)
        #expect(schedule.place(dts: 2_600_000, isKeyframe: true, now: Self.epoch + 2.6) == .cut(start: Int64(Self.epoch) + 2, ranLong: false))
        #expect(schedule.place(dts: 3_900_000, isKeyframe: true, now: Self.epoch + 3.9) == .keep)
    }

    @Test("keyframes further apart than segment_s: segments run long to the next keyframe, and say so when a whole length passed")
    func longGOP() {
        let cuts = Self.cuts(seconds: 2, gop: 125, frames: 500, startWall: Self.epoch)
        // Keyframes every 5 s: cut at 5, 10, 15; each started a whole length after the boundary it was due at (2, 7, 12).
        #expect(cuts.map(\.frame) == [125, 250, 375])
        #expect(cuts.map(\.start) == [4, 10, 14].map { Int64(Self.epoch) + $0 })
        #expect(cuts.map(\.ranLong) == [true, true, true])
    }

    @Test("a timestamp jump is counted and anchors the cut instants again at the wall clock")
    func timestampJump() {
        var schedule = SegmentSchedule(seconds: 10, openedAt: Self.epoch, followsWallClock: false)
        #expect(schedule.place(dts: 0, isKeyframe: true, now: Self.epoch) == .keep)
        #expect(schedule.place(dts: 1_000_000, isKeyframe: true, now: Self.epoch + 1) == .keep)
        // The input's clock leaps an hour ahead; the wall clock moved one second.
        #expect(schedule.place(dts: 3_601_000_000, isKeyframe: true, now: Self.epoch + 2) == .keep)
        #expect(schedule.jumps == 1)
        #expect(schedule.wallTime(dts: 3_601_000_000) == Self.epoch + 2)
        // And back: counted again.
        #expect(schedule.place(dts: 500_000, isKeyframe: true, now: Self.epoch + 3) == .keep)
        #expect(schedule.jumps == 2)
        #expect(schedule.place(dts: 4_500_000, isKeyframe: true, now: Self.epoch + 7) == .keep)
        #expect(schedule.place(dts: 7_500_000, isKeyframe: true, now: Self.epoch + 10) == .cut(start: Int64(Self.epoch) + 10, ranLong: false))
        #expect(schedule.jumps == 0)
    }

    @Test("a live input's media clock drifting from the wall clock is anchored again; a file's is not")
    func drift() {
        var live = SegmentSchedule(seconds: 10, openedAt: Self.epoch, followsWallClock: true)
        var file = SegmentSchedule(seconds: 10, openedAt: Self.epoch, followsWallClock: false)
        for step in 0...4 {
            let dts = Int64(step) * 1_000_000
            _ = live.place(dts: dts, isKeyframe: false, now: Self.epoch + Double(step) * 2)
            _ = file.place(dts: dts, isKeyframe: false, now: Self.epoch + Double(step) * 2)
        }
        #expect(live.wallTime(dts: 4_000_000) > Self.epoch + 6)
        #expect(file.wallTime(dts: 4_000_000) == Self.epoch + 4)
        #expect(live.jumps == 0 && file.jumps == 0)
    }

    /// Two recordings of one job, whose output threads see each packet a few milliseconds apart. With a keyframe 10 ms
    /// before a grid instant, anchoring each on its own reading put the instant between their keyframes: CI once saw an
    /// `.mp4` cut at 30, 32, 34 beside a `.ts` cut at 28, 30, 32.
    @Test("the job's recordings share one clock: opened and fed a few ms apart across a grid instant, they cut at the same packets")
    func sharedClock() {
        func run(shared: Bool) -> (first: [Int64], second: [Int64], names: (Int64, Int64)) {
            let clock = RecordingClock()
            // The keyframes fall at 27.99, 28.99, … on the first recording's reading; the second reads 20 ms later.
            let start = Self.epoch + 27.99
            var first = SegmentSchedule(seconds: 2, openedAt: start - 0.05, followsWallClock: true, clock: shared ? clock : RecordingClock())
            var second = SegmentSchedule(seconds: 2, openedAt: start + 0.02, followsWallClock: true, clock: shared ? clock : RecordingClock())
            var cuts: ([Int64], [Int64]) = ([], [])
            for frame in 0..<200 {
                let dts = Int64(frame) * 40_000
                let now = start + Double(dts) / 1e6
                if case let .cut(at, _) = first.place(dts: dts, isKeyframe: frame % 25 == 0, now: now) { cuts.0.append(at - Int64(Self.epoch)) }
                if case let .cut(at, _) = second.place(dts: dts, isKeyframe: frame % 25 == 0, now: now + 0.02) { cuts.1.append(at - Int64(Self.epoch)) }
            }
            return (cuts.0, cuts.1, (first.firstStart - Int64(Self.epoch), second.firstStart - Int64(Self.epoch)))
        }
        let alone = run(shared: false)
        #expect(alone.first != alone.second, "the failure this guards against: \(alone)")
        let together = run(shared: true)
        #expect(together.first == [28, 30, 32, 34] && together.second == together.first, "\(together)")
        // Both first segments are named after the first recording's opening.
        #expect(together.names.0 == 26 && together.names.1 == 26)
    }

    @Test("a live recording's drift anchor is taken by the job's other recordings; a jump starts a stretch anchored once")
    func sharedReanchor() {
        let clock = RecordingClock()
        var first = SegmentSchedule(seconds: 10, openedAt: Self.epoch, followsWallClock: true, clock: clock)
        var second = SegmentSchedule(seconds: 10, openedAt: Self.epoch, followsWallClock: true, clock: clock)
        _ = first.place(dts: 0, isKeyframe: true, now: Self.epoch)
        _ = second.place(dts: 0, isKeyframe: true, now: Self.epoch + 0.01)
        #expect(second.wallTime(dts: 0) == Self.epoch)
        // The media clock fell 3 s behind: the first recording anchors again; the second, 10 ms later, takes that anchor.
        _ = first.place(dts: 1_000_000, isKeyframe: false, now: Self.epoch + 4)
        _ = second.place(dts: 1_000_000, isKeyframe: false, now: Self.epoch + 4.01)
        #expect(first.wallTime(dts: 1_000_000) == Self.epoch + 4 && second.wallTime(dts: 1_000_000) == Self.epoch + 4)
        // A jump ahead by an hour: the first to see it anchors the new stretch, for both.
        _ = first.place(dts: 3_601_000_000, isKeyframe: true, now: Self.epoch + 5)
        _ = second.place(dts: 3_601_000_000, isKeyframe: true, now: Self.epoch + 5.2)
        #expect(first.jumps == 1 && second.jumps == 1)
        #expect(second.wallTime(dts: 3_601_000_000) == Self.epoch + 5)
    }
}
