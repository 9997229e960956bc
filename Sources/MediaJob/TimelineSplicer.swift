import MediaFormats

/// Keeps an input's timestamps continuous and monotonic when its source starts over: after a reconnect,
/// when a publisher restarts behind the same connection, or when a file is two recordings joined
/// (`cat a.ts b.ts`). Each new segment is placed right after the furthest point any stream had reached,
/// in decode and in presentation order, with one offset for all streams so audio and video stay in step.
/// A clock that wraps and that no one unwrapped (MPEG-TS's 33 bits at 90 kHz, RTMP's 32 bits of ms) is
/// unwrapped per stream instead, as each stream reaches the wrap: exact, and A/V stays to the tick.
///
/// The one splicer of the product: the codec engine uses it in microseconds (`Rules.file`), the live relay
/// in RTMP's milliseconds (`Rules.rtmp`, through `LiveTimeline`). A stateful transform (a struct with mutating
/// methods and `reset()`): no I/O, no clock of its own. Times are in the rules' unit; sums saturate, never trap.
public struct TimelineSplicer: Sendable, Equatable {
    /// What counts as a new clock, in one unit of time.
    public struct Rules: Sendable, Equatable {
        /// A DTS this far behind its stream's last one is a new clock, not jitter.
        public var backwardJump: Int64
        /// A DTS this far past the furthest point reached is a new clock (or a gap to close); `nil`: never.
        public var forwardJump: Int64?
        /// Clock wraps an input may show raw.
        public var wraps: [Int64]
        /// A jump back within this of a wrap period is that wrap (libavformat allows 60 s too).
        public var wrapTolerance: Int64
        /// The first packet is time 0 (a live timeline), rather than passing through as it is (a file).
        public var startsAtZero: Bool
        /// A step inferred between two packets of a stream is believed below this (a larger one is a gap).
        public var inferredStepLimit: Int64

        public init(backwardJump: Int64, forwardJump: Int64?, wraps: [Int64], wrapTolerance: Int64,
                    startsAtZero: Bool, inferredStepLimit: Int64) {
            self.backwardJump = backwardJump
            self.forwardJump = forwardJump
            self.wraps = wraps
            self.wrapTolerance = wrapTolerance
            self.startsAtZero = startsAtZero
            self.inferredStepLimit = inferredStepLimit
        }

        /// Clock wraps in µs as libavutil rescales them: 2^33 ticks of 90 kHz (MPEG-TS), 2^32 ms (RTMP, FLV) and
        /// 2^31 ms (FFmpeg's flvenc clears the top timestamp bit).
        public static let microsecondWraps: [Int64] = [95_443_717_689, 4_294_967_296_000, 2_147_483_648_000]

        /// A live input demuxed by libavformat, µs: jumps of 0.5 s back or 2 s ahead are new clocks.
        public static let live = Rules(backwardJump: 500_000, forwardJump: 2_000_000, wraps: microsecondWraps,
                                       wrapTolerance: 60_000_000, startsAtZero: false, inferredStepLimit: 1_000_000)
        /// A file, µs: jumps back are spliced in any format, jumps ahead of 10 s (FFmpeg's `-dts_delta_threshold`
        /// too) only where the format allows discontinuities.
        public static func file(mayJump: Bool) -> Rules {
            Rules(backwardJump: 500_000, forwardJump: mayJump ? 10_000_000 : nil, wraps: microsecondWraps,
                  wrapTolerance: 60_000_000, startsAtZero: false, inferredStepLimit: 1_000_000)
        }
        /// RTMP messages, ms: the first message is time 0; 2^32 and 2^31 ms wraps.
        public static let rtmp = Rules(backwardJump: 500, forwardJump: 2_000, wraps: [1 << 32, 1 << 31],
                                       wrapTolerance: 60_000, startsAtZero: true, inferredStepLimit: 1_000)
    }

    public let rules: Rules

    /// Added to every timestamp of the current segment.
    public private(set) var offset: Int64 = 0
    /// Segments joined so far.
    public private(set) var splices = 0
    /// Clock wraps undone so far (each stream counts its own).
    public private(set) var wraps = 0
    /// Per stream, the wraps undone in the current segment.
    private var unwrapping: [Int: Int64] = [:]
    /// Per stream, the last DTS as delivered plus its unwrapping (wraps are seen on this, whatever the offset).
    private var lastUnwrapped: [Int: Int64] = [:]
    /// Per stream, the last DTS on the output timeline.
    private var lastDTS: [Int: Int64] = [:]
    /// Per stream, the last step inferred between two of its packets (packets whose duration is not known).
    private var inferredStep: [Int: Int64] = [:]
    /// The furthest DTS + duration any stream reached (or the point a `resume(at:)` asked for).
    private var decodeEnd: Int64?
    /// The furthest PTS + duration reached (past `decodeEnd` by the reorder delay of B-frames).
    private var presentationEnd: Int64?
    private var newSegment: Bool

    public init(_ rules: Rules) {
        self.rules = rules
        newSegment = rules.startsAtZero
    }

    /// The next packet starts a new segment (a fresh connection): it is spliced whatever its time.
    public mutating func beginSegment() { newSegment = true }

    /// The next packet starts a new segment at `time` (after a slate that filled the timeline up to it), or at the
    /// furthest point reached when that is later.
    public mutating func resume(at time: Int64) {
        decodeEnd = max(decodeEnd ?? time, time)
        newSegment = true
    }

    /// The offset to add to a packet of `stream` whose DTS and PTS, as delivered, are `dts` and `pts`, and
    /// which lasts `duration`.
    public mutating func offset(stream: Int, dts: Int64?, pts: Int64? = nil, duration: Int64) -> Int64 {
        place(stream: stream, dts: dts, pts: pts, step: .known(duration))
    }

    /// The offset for a packet whose duration is not known: it lasts as long as the last step between two
    /// packets of its stream (below `inferredStepLimit`), or `typicalDuration` until there is one.
    public mutating func offset(stream: Int, dts: Int64, inferringDurationOr typicalDuration: Int64) -> Int64 {
        place(stream: stream, dts: dts, pts: nil, step: .inferred(typical: typicalDuration))
    }

    /// The furthest point any stream reached (DTS + duration), or where `resume(at:)` asked the next segment to start.
    public var furthestEnd: Int64? { decodeEnd }

    /// Whether the next packet starts a new segment.
    public var startsNewSegment: Bool { newSegment }

    private enum Step { case known(Int64), inferred(typical: Int64) }

    private mutating func place(stream: Int, dts: Int64?, pts: Int64?, step: Step) -> Int64 {
        if newSegment {
            unwrapping = [:]
            lastUnwrapped = [:]
        }
        guard let delivered = dts else { return offset.addingSaturating(unwrapping[stream] ?? 0) }
        if lastUnwrapped[stream] == nil, !newSegment, let reference = decodeEnd,
           let period = crossing(from: reference, to: delivered.addingSaturating(offset)) {
            // This stream's first packet lies across a clock wrap from where the others are (they wrapped already, or
            // not yet: interleaving puts one stream a moment behind the other): it starts unwrapped by that period,
            // and unwraps again when it reaches the wrap itself.
            unwrapping[stream] = period
            wraps += 1
        }
        if let last = lastUnwrapped[stream], let wrap = wrap(from: last, to: delivered.addingSaturating(unwrapping[stream] ?? 0)) {
            unwrapping[stream] = (unwrapping[stream] ?? 0).addingSaturating(wrap)
            wraps += 1
        }
        let unwrapped = unwrapping[stream] ?? 0
        let dts = delivered.addingSaturating(unwrapped)
        let pts = pts.map { $0.addingSaturating(unwrapped) }
        lastUnwrapped[stream] = dts
        var mapped = dts.addingSaturating(offset)
        let jumpedBack = lastDTS[stream].map { mapped < $0.subtractingSaturating(rules.backwardJump) } ?? false
        let jumpedAhead = rules.forwardJump.flatMap { threshold in decodeEnd.map { mapped > $0.addingSaturating(threshold) } } ?? false
        if newSegment || jumpedBack || jumpedAhead {
            if let decodeEnd {
                // The new segment's first frame is shown only after everything already shown.
                let delay = pts.map { max($0.subtractingSaturating(dts), 0) } ?? 0
                let shownEnd = presentationEnd.map { $0.subtractingSaturating(delay) } ?? decodeEnd
                let resume = max(decodeEnd, shownEnd)
                offset = resume.subtractingSaturating(dts)
                mapped = resume
                splices += 1
            } else if rules.startsAtZero {
                offset = Int64(0).subtractingSaturating(dts)
                mapped = 0
            }
        }
        newSegment = false
        let duration: Int64
        switch step {
        case let .known(known): duration = known
        case let .inferred(typical):
            if let last = lastDTS[stream], mapped > last, mapped.subtractingSaturating(last) < rules.inferredStepLimit {
                inferredStep[stream] = mapped - last
            }
            duration = inferredStep[stream] ?? typical
        }
        let step = max(duration, 1)
        lastDTS[stream] = mapped
        // The furthest point reached: a jittered packet never pulls a later splice backwards.
        decodeEnd = max(decodeEnd ?? .min, mapped.addingSaturating(step))
        let shown = (pts ?? dts).addingSaturating(offset).addingSaturating(step)
        presentationEnd = max(presentationEnd ?? .min, shown)
        return offset.addingSaturating(unwrapped)
    }

    /// The wrap period that a step back from `last` to `next` (one stream's unwrapped clock) amounts to.
    func wrap(from last: Int64, to next: Int64) -> Int64? {
        let back = last.subtractingSaturating(next)
        return rules.wraps.first { period in
            back >= period.subtractingSaturating(rules.wrapTolerance) && back <= period.addingSaturating(rules.wrapTolerance)
        }
    }

    /// The signed period that brings `time` next to `reference` when they lie a wrap period apart: negative when
    /// `time` is a period ahead (its stream has not wrapped yet), positive when it is a period behind.
    func crossing(from reference: Int64, to time: Int64) -> Int64? {
        let ahead = time.subtractingSaturating(reference)
        return rules.wraps.lazy.compactMap { period -> Int64? in
            let low = period.subtractingSaturating(self.rules.wrapTolerance), high = period.addingSaturating(self.rules.wrapTolerance)
            if ahead >= low && ahead <= high { return -period }
            if ahead <= -low && ahead >= -high { return period }
            return nil
        }.first
    }

    public mutating func reset() { self = TimelineSplicer(rules) }
}
