/// Keeps a live input's timestamps continuous and monotonic when its source starts over: after a
/// reconnect, or when a publisher restarts behind the same connection and its clock jumps. Each new
/// segment is placed right after the furthest point any stream had reached, with one offset for all
/// streams so audio and video stay in step (a stateful transform, STYLE §4). Times are microseconds.
struct TimelineSplicer: Sendable, Equatable {
    /// A DTS this far behind its stream's last one is a new clock, not jitter.
    static let backwardJump: Int64 = 500_000
    /// A DTS this far past its stream's last end is a new clock (or a gap to close).
    static let forwardJump: Int64 = 2_000_000

    /// Added to every timestamp of the current segment.
    private(set) var offset: Int64 = 0
    /// Segments joined so far.
    private(set) var splices = 0
    private var lastDTS: [Int: Int64] = [:]
    private var lastEnd: [Int: Int64] = [:]
    private var newSegment = false

    /// The next packet starts a new segment (a fresh connection): it is spliced whatever its time.
    mutating func beginSegment() { newSegment = true }

    /// The offset to add to a packet of `stream` whose DTS, as delivered, is `dts`.
    mutating func offset(stream: Int, dts: Int64?, duration: Int64) -> Int64 {
        guard let dts else { return offset }
        var mapped = dts + offset
        let jumped = lastDTS[stream].map { mapped < $0 - TimelineSplicer.backwardJump } ?? false
            || lastEnd[stream].map { mapped > $0 + TimelineSplicer.forwardJump } ?? false
        if (newSegment || jumped), let resume = lastEnd.values.max() {
            offset = resume - dts
            mapped = resume
            splices += 1
        }
        newSegment = false
        lastDTS[stream] = mapped
        // The furthest point reached: a jittered packet never pulls a later splice backwards.
        lastEnd[stream] = max(lastEnd[stream] ?? .min, mapped + max(duration, 1))
        return offset
    }

    mutating func reset() { self = TimelineSplicer() }
}
