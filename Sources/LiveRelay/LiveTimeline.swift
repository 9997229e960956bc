import MediaFormats
import MediaJob

/// One continuous millisecond timeline for a live source whose connections each start their own clock: the
/// product's one `TimelineSplicer`, with RTMP's rules (`Rules.rtmp`: 2^32 and 2^31 ms wraps, a new connection
/// or a jump back or far ahead spliced right after the furthest point any kind reached, one offset for audio,
/// video and data). What is RTMP's own lives here: message kinds, durations inferred from the steps between
/// messages (RTMP carries none), and data messages that never anchor a segment. The first message of the first
/// connection is time 0.
struct LiveTimeline: Sendable {
    private var splicer = TimelineSplicer(.rtmp)
    /// The furthest time a message was mapped to, ms.
    private(set) var mediaTime: Int64 = 0
    /// Whether audio or video has been mapped (data is placed only after them).
    private var anchored = false

    var splices: Int { splicer.splices }
    var wraps: Int { splicer.wraps }

    /// The next message starts a new segment (a new connection or publisher).
    mutating func beginSegment() { splicer.beginSegment() }

    /// The next message starts a new segment at `time` (after a slate that filled the timeline up to it), or at the
    /// furthest point reached when that is later.
    mutating func resume(at time: Int64) { splicer.resume(at: time) }

    /// Maps a message's raw timestamp of `typeID` onto the timeline.
    mutating func map(typeID: UInt8, timestamp: UInt32) -> Int64 {
        // Index 0 audio, 1 video, 2 data; the durations a stream is assumed to have until its steps are seen.
        let (kind, typical): (Int, Int64) = typeID == 8 ? (0, 23) : typeID == 9 ? (1, 33) : (2, 1)
        // Data (onMetaData) often carries 0 while the media clock is far along: it never anchors a segment.
        if kind == 2 && (splicer.startsNewSegment || !anchored) { return splicer.furthestEnd ?? 0 }
        let raw = Int64(timestamp)
        let mapped = raw.addingSaturating(splicer.offset(stream: kind, dts: raw, inferringDurationOr: typical))
        if kind != 2 { anchored = true }
        mediaTime = max(mediaTime, mapped)
        return mapped
    }
}
