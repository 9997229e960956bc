// docs/ARCHITECTURE.md §7 (segmented recordings): where a recording is cut, decided from packet times and one wall
// clock reading per packet, without files or threads, so that it is tested with an injected clock.

import MediaFormats
import MediaJob

/// Cuts a recording at the first keyframe at or after each multiple of `seconds` of wall-clock time, counted from the
/// Unix epoch: two workers, or two renditions of one job, cut at the same instants.
///
/// A packet's wall time is the clock at an anchor plus the media time since the anchor, so cuts follow the media's
/// own clock (no jitter from the output thread's batching). The anchor is the first packet, and is taken again at a
/// timestamp jump (a step of more than `jumpLimit` between packets, or back) and, for a live input, when the media
/// clock drifted more than `driftLimit` from the wall clock. The job's recordings share their anchors and their
/// opening instant (`RecordingClock`), so each packet stands for one wall time in all of them.
package struct SegmentSchedule {
    /// What to do with a packet of the leading track (video when there is video, else audio).
    package enum Decision: Equatable {
        /// Goes into the open segment.
        case keep
        /// Closes the open segment; this packet starts the next, whose start is `start` (the grid instant at or
        /// before the packet's wall time, Unix seconds). `ranLong`: a whole segment length passed without a keyframe.
        case cut(start: Int64, ranLong: Bool)
    }

    package let seconds: Int64
    /// Re-anchor on drift (a live input, whose media time is the wall clock's); a file input runs at its own pace.
    package let followsWallClock: Bool
    /// Microseconds between two packets of the leading track beyond which the timeline jumped.
    package static let jumpLimit: Int64 = 5_000_000
    /// Seconds the media clock may drift from the wall clock before a live recording re-anchors.
    package static let driftLimit = 2.0

    /// The first segment's start (Unix seconds, on the grid): where the output opened.
    package private(set) var firstStart: Int64
    /// Where the open segment must end: the next grid instant after its start.
    package private(set) var nextBoundary: Int64
    /// Timeline jumps seen since the last cut.
    package private(set) var jumps = 0
    private let clock: RecordingClock
    private var anchor: RecordingClock.Anchor?
    /// Timestamp jumps since the first packet: which stretch of the timeline `anchor` belongs to.
    private var stretch = 0
    private var lastDTS: Int64?

    /// - Parameters:
    ///   - seconds: the segment length (≥ 1).
    ///   - openedAt: the wall clock when the output opened, Unix seconds: names the first segment (the job's first
    ///     recording's, when `clock` has one).
    ///   - clock: the anchors shared with the job's other recordings.
    package init(seconds: Int64, openedAt: Double, followsWallClock: Bool, clock: RecordingClock = RecordingClock()) {
        self.seconds = max(1, seconds)
        self.followsWallClock = followsWallClock
        self.clock = clock
        firstStart = SegmentSchedule.gridStart(clock.openedAt(openedAt), seconds: max(1, seconds))
        nextBoundary = firstStart + max(1, seconds)
    }

    /// The grid instant at or before `wall`.
    package static func gridStart(_ wall: Double, seconds: Int64) -> Int64 {
        // Times from a damaged input can be anything: outside ±2^53 s there is no grid worth naming.
        let whole = wall.isFinite && abs(wall) < 9e15 ? Int64(wall.rounded(.down)) : 0
        let (quotient, remainder) = whole.quotientAndRemainder(dividingBy: seconds)
        return (remainder < 0 ? quotient - 1 : quotient) * seconds
    }

    /// The wall time a packet stands for, Unix seconds (after `place` anchored it).
    package func wallTime(dts: Int64) -> Double {
        anchor?.wallTime(dts: dts) ?? 0
    }

    /// Places one packet of the leading track.
    /// - Parameters:
    ///   - dts: its decode time, microseconds on the job's timeline.
    ///   - isKeyframe: a decoder can start there (every audio frame can).
    ///   - now: the wall clock, Unix seconds.
    package mutating func place(dts: Int64, isKeyframe: Bool, now: Double) -> Decision {
        let here = RecordingClock.Anchor(wall: now, dts: dts)
        if let last = lastDTS, dts.subtractingSaturating(last) > SegmentSchedule.jumpLimit || dts < last {
            jumps += 1
            stretch += 1
            anchor = clock.anchor(stretch: stretch, proposed: here)
        } else if let seen = clock.current(stretch: stretch) ?? anchor {
            // Another recording may have anchored this stretch again: its anchor is this one's too.
            anchor = seen
            if followsWallClock, abs(seen.wallTime(dts: dts) - now) > SegmentSchedule.driftLimit {
                anchor = clock.reanchor(stretch: stretch, seen: seen, replacement: here)
            }
        } else {
            anchor = clock.anchor(stretch: stretch, proposed: here)
        }
        lastDTS = dts
        let wall = wallTime(dts: dts)
        guard isKeyframe, wall >= Double(nextBoundary) else { return .keep }
        let start = SegmentSchedule.gridStart(wall, seconds: seconds)
        let ranLong = start >= nextBoundary + seconds
        nextBoundary = start + seconds
        jumps = 0
        return .cut(start: start, ranLong: ranLong)
    }
}
