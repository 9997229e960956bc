// ISO/IEC 13818-1 (2019) §2.4.3.7 (33-bit PTS/DTS at 90 kHz) and §2.4.3.5 (discontinuity_indicator: the time base
// may restart): one program's clock as FLV milliseconds. The clock is cut into segments where it restarts; each
// segment is placed at 0 and announced, and the relay's timeline splicer joins the segments (nothing is spliced here).

/// Maps a program's 90 kHz timestamps to milliseconds from the first DTS of the current clock segment.
///
/// One unwrapper serves every stream of the program (they share one clock, so one wrap point), making the 33-bit wrap
/// invisible. A DTS that does not continue the current segment (a step back of a stream, or a step past the furthest
/// point reached, larger than the threshold) starts a new segment; access units still on the previous clock, which
/// the demuxer completes late (a video PES ends only when the next one starts), are dropped rather than misplaced.
struct TSToFLVTimeline: Sendable, Equatable {
    /// One run of continuous clock.
    private struct Segment: Sendable, Equatable {
        /// The unwrapped DTS that maps to 0 ms.
        var origin: Int64
        /// The furthest unwrapped DTS placed in it.
        var furthest: Int64
        /// Each stream's last unwrapped DTS, by PID.
        var lastDTS: [UInt16: Int64] = [:]

        /// `dts` of stream `pid` is within `threshold` of where this segment has got to.
        func continues(_ dts: Int64, pid: UInt16, threshold: Int64) -> Bool {
            dts <= furthest.addingSaturating(threshold) && dts >= (lastDTS[pid] ?? origin).subtractingSaturating(threshold)
        }
    }

    /// Where an access unit goes.
    enum Placement: Sendable, Equatable {
        /// On the timeline: DTS and PTS in ms; `startsSegment` when the clock restarted here.
        case placed(dts: Int64, pts: Int64, clampedToOrigin: Bool, startsSegment: TSToFLVDiscontinuity?)
        /// On the clock of the segment before the current one: dropped.
        case previousClock
    }

    /// A jump larger than this (90 kHz) restarts the clock.
    let jumpThreshold: Int64
    /// After a discontinuity_indicator on the PCR PID, a jump larger than this restarts the clock.
    let indicatedJumpThreshold: Int64
    private var unwrapper = TSTimestampUnwrapper()
    private var current: Segment?
    private var previous: Segment?
    /// The furthest DTS when a discontinuity_indicator came; the lower threshold holds for one threshold after it.
    private var indicatedAt: Int64?

    init(jumpThreshold: Int64, indicatedJumpThreshold: Int64) {
        self.jumpThreshold = jumpThreshold
        self.indicatedJumpThreshold = min(indicatedJumpThreshold, jumpThreshold)
    }

    /// Starts the first segment at the earliest of `rawDTSs` (the first access units of each stream, which the demuxer
    /// completes out of DTS order), so no stream starts before 0.
    mutating func start(rawDTSs: [Int64]) {
        guard current == nil else { return }
        var preview = unwrapper
        guard let origin = rawDTSs.map({ preview.unwrap($0) }).min() else { return }
        current = Segment(origin: origin, furthest: origin)
    }

    /// The program's time base may restart (a discontinuity_indicator on its PCR PID).
    mutating func noteIndicator() { indicatedAt = current?.furthest ?? indicatedAt }

    /// Places an access unit of stream `pid` whose raw (33-bit) timestamps are `pts` and `dts`.
    mutating func place(pid: UInt16, pts rawPTS: Int64, dts rawDTS: Int64) -> Placement {
        let dts = unwrapper.unwrap(rawDTS)
        // The PTS is unwrapped next to its own DTS so a B-frame's earlier PTS never moves the shared unwrapper back.
        var ptsUnwrapper = unwrapper
        let pts = ptsUnwrapper.unwrap(rawPTS)
        if let indicated = indicatedAt, let current, current.furthest > indicated.addingSaturating(jumpThreshold) {
            indicatedAt = nil
        }
        let threshold = indicatedAt == nil ? jumpThreshold : indicatedJumpThreshold
        var discontinuity: TSToFLVDiscontinuity?
        if var segment = current, segment.continues(dts, pid: pid, threshold: threshold) {
            segment.furthest = max(segment.furthest, dts)
            segment.lastDTS[pid] = dts
            current = segment
        } else if let previous, previous.continues(dts, pid: pid, threshold: jumpThreshold) {
            return .previousClock
        } else {
            if let current {
                discontinuity = TSToFLVDiscontinuity(
                    jump: dts.subtractingSaturating(current.furthest).rescaledSaturating(from: 90000, to: 1000),
                    indicated: indicatedAt != nil)
                previous = current
                indicatedAt = nil
            }
            current = Segment(origin: dts, furthest: dts, lastDTS: [pid: dts])
        }
        let origin = current?.origin ?? dts
        let dtsMilliseconds = dts.subtractingSaturating(origin).rescaledSaturating(from: 90000, to: 1000)
        let ptsMilliseconds = pts.subtractingSaturating(origin).rescaledSaturating(from: 90000, to: 1000)
        return .placed(dts: max(0, dtsMilliseconds), pts: max(0, ptsMilliseconds), clampedToOrigin: dtsMilliseconds < 0,
                       startsSegment: discontinuity)
    }

    /// Forgets every clock.
    mutating func reset() { self = TSToFLVTimeline(jumpThreshold: jumpThreshold, indicatedJumpThreshold: indicatedJumpThreshold) }
}
