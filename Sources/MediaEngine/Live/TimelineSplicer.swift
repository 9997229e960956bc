import MediaFormats

/// Keeps an input's timestamps continuous and monotonic when its source starts over: after a reconnect,
/// when a publisher restarts behind the same connection, or when a file is two recordings joined
/// (`cat a.ts b.ts`). Each new segment is placed right after the furthest point any stream had reached,
/// in decode and in presentation order, with one offset for all streams so audio and video stay in step.
/// A clock that wraps and that no one unwrapped (MPEG-TS's 33 bits at 90 kHz, RTMP's 32 bits of ms) is
/// unwrapped per stream instead, as each stream reaches the wrap: exact, and A/V stays to the microsecond.
/// A stateful transform (STYLE §4). Times are microseconds; sums saturate, never trap.
struct TimelineSplicer: Sendable, Equatable {
    /// A DTS this far behind its stream's last one is a new clock, not jitter.
    static let backwardJump: Int64 = 500_000
    /// A live DTS this far past its stream's last end is a new clock (or a gap to close).
    static let forwardJump: Int64 = 2_000_000
    /// In a file, a forward jump this large is a discontinuity (FFmpeg's `-dts_delta_threshold` is 10 s too).
    static let fileForwardJump: Int64 = 10_000_000
    /// Clock wraps an input may show raw, in µs as libavutil rescales them: 2^33 ticks of 90 kHz (MPEG-TS),
    /// 2^32 ms (RTMP, FLV) and 2^31 ms (FFmpeg's flvenc clears the top timestamp bit).
    static let clockWraps: [Int64] = [95_443_717_689, 4_294_967_296_000, 2_147_483_648_000]
    /// A jump back within this of a wrap period is that wrap (libavformat allows 60 s too).
    static let wrapTolerance: Int64 = 60_000_000

    /// How far back a stream's DTS may step before it counts as a new clock.
    let backwardThreshold: Int64
    /// How far forward past a stream's end a DTS may land before it counts as a new clock; `nil`: never.
    let forwardThreshold: Int64?

    /// Added to every timestamp of the current segment.
    private(set) var offset: Int64 = 0
    /// Segments joined so far.
    private(set) var splices = 0
    /// Clock wraps undone so far (each stream counts its own).
    private(set) var wraps = 0
    /// Per stream, the wraps undone in the current segment, µs.
    private var unwrapping: [Int: Int64] = [:]
    private var lastDTS: [Int: Int64] = [:]
    /// Per stream, the furthest DTS + duration reached.
    private var lastEnd: [Int: Int64] = [:]
    /// Per stream, the furthest PTS + duration reached (past `lastEnd` by the reorder delay of B-frames).
    private var presentationEnd: [Int: Int64] = [:]
    private var newSegment = false

    /// A splicer for live inputs (forward jumps past `forwardJump` are spliced too) or, with other
    /// thresholds, for files.
    init(backwardThreshold: Int64 = TimelineSplicer.backwardJump, forwardThreshold: Int64? = TimelineSplicer.forwardJump) {
        self.backwardThreshold = backwardThreshold
        self.forwardThreshold = forwardThreshold
    }

    /// The next packet starts a new segment (a fresh connection): it is spliced whatever its time.
    mutating func beginSegment() { newSegment = true }

    /// The offset to add to a packet of `stream` whose DTS and PTS, as delivered, are `dts` and `pts`.
    mutating func offset(stream: Int, dts: Int64?, pts: Int64? = nil, duration: Int64) -> Int64 {
        if newSegment { unwrapping = [:] }
        guard let delivered = dts else { return offset.addingSaturating(unwrapping[stream] ?? 0) }
        if !newSegment, let last = lastDTS[stream],
           let wrap = TimelineSplicer.wrap(from: last, to: delivered.addingSaturating(offset).addingSaturating(unwrapping[stream] ?? 0)) {
            unwrapping[stream] = (unwrapping[stream] ?? 0).addingSaturating(wrap)
            wraps += 1
        }
        let unwrapped = unwrapping[stream] ?? 0
        let dts = delivered.addingSaturating(unwrapped)
        let pts = pts.map { $0.addingSaturating(unwrapped) }
        var mapped = dts.addingSaturating(offset)
        let jumpedBack = lastDTS[stream].map { mapped < $0.subtractingSaturating(backwardThreshold) } ?? false
        let jumpedAhead = forwardThreshold.flatMap { threshold in
            lastEnd[stream].map { mapped > $0.addingSaturating(threshold) }
        } ?? false
        if newSegment || jumpedBack || jumpedAhead, let decodeEnd = lastEnd.values.max() {
            // The new segment's first frame is shown only after everything already shown.
            let delay = pts.map { max($0.subtractingSaturating(dts), 0) } ?? 0
            let shownEnd = presentationEnd.values.max().map { $0.subtractingSaturating(delay) } ?? decodeEnd
            let resume = max(decodeEnd, shownEnd)
            offset = resume.subtractingSaturating(dts)
            mapped = resume
            splices += 1
        }
        newSegment = false
        lastDTS[stream] = mapped
        let step = max(duration, 1)
        // The furthest point reached: a jittered packet never pulls a later splice backwards.
        lastEnd[stream] = max(lastEnd[stream] ?? .min, mapped.addingSaturating(step))
        let shown = (pts ?? dts).addingSaturating(offset).addingSaturating(step)
        presentationEnd[stream] = max(presentationEnd[stream] ?? .min, shown)
        return offset.addingSaturating(unwrapped)
    }

    /// The wrap period that a step back from `last` to `next` (both µs on the output timeline) amounts to.
    static func wrap(from last: Int64, to next: Int64) -> Int64? {
        let back = last.subtractingSaturating(next)
        return clockWraps.first { period in
            back >= period.subtractingSaturating(wrapTolerance) && back <= period.addingSaturating(wrapTolerance)
        }
    }

    mutating func reset() { self = TimelineSplicer(backwardThreshold: backwardThreshold, forwardThreshold: forwardThreshold) }
}
