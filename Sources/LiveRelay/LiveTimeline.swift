/// One continuous millisecond timeline for a live source whose connections each start their own clock:
/// RTMP timestamps are unwrapped (2^32 ms, and 2^31 ms where FFmpeg's flvenc clears the top bit) per kind,
/// and every new connection (or a jump back or far ahead) is spliced right after the furthest point any
/// kind reached, with one offset for audio, video and data so they stay in step (as `TimelineSplicer`
/// does for the demuxed pipeline). The first message of the first connection is time 0.
struct LiveTimeline: Sendable {
    static let backwardJump: Int64 = 500
    static let forwardJump: Int64 = 2_000
    static let wrapPeriods: [Int64] = [1 << 32, 1 << 31]
    static let wrapTolerance: Int64 = 60_000

    /// Index 0 audio, 1 video, 2 data.
    private var lastRaw: [Int64?] = [nil, nil, nil]
    private var unwrap: [Int64] = [0, 0, 0]
    private var lastMapped: [Int64?] = [nil, nil, nil]
    private var step: [Int64] = [23, 33, 1]
    private var offset: Int64 = 0
    private var furthestEnd: Int64?
    private var newSegment = true
    private(set) var splices = 0
    private(set) var wraps = 0

    /// The next message starts a new segment (a new connection or publisher).
    mutating func beginSegment() { newSegment = true }

    /// The next message starts a new segment at `time` (after a slate that filled the timeline up to it), or at the
    /// furthest point reached when that is later.
    mutating func resume(at time: Int64) {
        furthestEnd = max(furthestEnd ?? time, time)
        newSegment = true
    }

    /// The furthest time reached, ms.
    var mediaTime: Int64 { lastMapped.compactMap { $0 }.max() ?? 0 }

    /// Maps a message's raw timestamp of `typeID` onto the timeline.
    mutating func map(typeID: UInt8, timestamp: UInt32) -> Int64 {
        let kind = typeID == 8 ? 0 : typeID == 9 ? 1 : 2
        // Data (onMetaData) often carries 0 while the media clock is far along: it never anchors a segment.
        if kind == 2 && (newSegment || lastMapped[0] == nil && lastMapped[1] == nil) { return furthestEnd ?? 0 }
        let raw = Int64(timestamp)
        if newSegment {
            unwrap = [0, 0, 0]
            lastRaw = [nil, nil, nil]
        } else if let last = lastRaw[kind] {
            let back = last - raw
            if let period = LiveTimeline.wrapPeriods.first(where: { back >= $0 - LiveTimeline.wrapTolerance && back <= $0 + LiveTimeline.wrapTolerance }) {
                unwrap[kind] += period
                wraps += 1
            }
        }
        lastRaw[kind] = raw
        let unwrapped = raw + unwrap[kind]
        var mapped = unwrapped + offset
        let jumpedBack = lastMapped[kind].map { mapped < $0 - LiveTimeline.backwardJump } ?? false
        let jumpedAhead = furthestEnd.map { mapped > $0 + LiveTimeline.forwardJump } ?? false
        if newSegment || jumpedBack || jumpedAhead {
            let resume = furthestEnd ?? 0
            offset = resume - unwrapped
            mapped = resume
            if furthestEnd != nil { splices += 1 }
        }
        newSegment = false
        if let previous = lastMapped[kind], mapped > previous, mapped - previous < 1_000 { step[kind] = mapped - previous }
        lastMapped[kind] = max(lastMapped[kind] ?? .min, mapped)
        furthestEnd = max(furthestEnd ?? .min, mapped + max(step[kind], 1))
        return mapped
    }
}
