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
    /// Each kind's last frame time, and the last frame time of any kind (where a configuration without a time goes).
    private var lastFrame: [Int: Int64] = [:]
    private var lastFrameTime: Int64?
    /// 2 s, RTMP's forward jump: a configuration this far from the clock carries no time of its own.
    static let configurationSlack: Int64 = 2000

    /// Each stream's last frame time, so frames leave in strictly increasing decode order (`strictlyAfter`).
    private var frameOrder: [UInt16: TimestampNormalizer] = [:]
    /// Frames moved to just after their stream's previous one.
    private(set) var repairs = 0

    var splices: Int { splicer.splices }
    var wraps: Int { splicer.wraps }

    /// The next message starts a new segment (a new connection or publisher).
    mutating func beginSegment() { splicer.beginSegment() }

    /// The next message starts a new segment at `time` (after a slate that filled the timeline up to it), or at the
    /// furthest point reached when that is later.
    mutating func resume(at time: Int64) { splicer.resume(at: time) }

    /// Maps a message's raw timestamp of `typeID` onto the timeline; `isFrame` false for an audio or video message
    /// that is no frame (a sequence header, an end of sequence).
    mutating func map(typeID: UInt8, timestamp: UInt32, isFrame: Bool = true) -> Int64 {
        // Index 0 audio, 1 video, 2 data; the durations a stream is assumed to have until its steps are seen.
        let (kind, typical): (Int, Int64) = typeID == 8 ? (0, 23) : typeID == 9 ? (1, 33) : (2, 1)
        // Data (onMetaData) often carries 0 while the media clock is far along: it never anchors a segment.
        if kind == 2 && (splicer.startsNewSegment || !anchored) { return splicer.furthestEnd ?? 0 }
        let raw = Int64(timestamp)
        // So may a configuration: FFmpeg's flvenc writes its sequence headers at 0 whatever the media clock
        // (`-output_ts_offset`, an encoder whose clock is days along), and nginx-rtmp hands a player that came before
        // the publisher the audio's after the first video frames. Placed, 0 read as a 2^31 ms wrap or a jump and
        // spliced the clock of every stream, again at each frame (a pull that started first kept 8 frames of 120). It
        // takes its stream's last frame time instead, or the last frame's of any stream, and moves no clock.
        if kind != 2, !isFrame, !splicer.startsNewSegment, let recent = lastFrameTime,
           abs(raw.addingSaturating(splicer.offset).subtractingSaturating(splicer.furthestEnd ?? recent)) > Self.configurationSlack {
            return lastFrame[kind] ?? recent
        }
        // A stream whose first message is earlier than the one that started the timeline (audio a few milliseconds
        // before the first video) would map before 0, which RTMP's unsigned 32-bit time reads as 49 days on: it
        // starts at the origin instead.
        let mapped = max(raw.addingSaturating(splicer.offset(stream: kind, dts: raw, inferringDurationOr: typical)), 0)
        if kind != 2 { anchored = true }
        if kind != 2, isFrame {
            lastFrame[kind] = mapped
            lastFrameTime = mapped
        }
        mediaTime = max(mediaTime, mapped)
        return mapped
    }

    /// A frame's mapped time, moved just after its stream's previous frame when it is not later (a publisher looping
    /// its file steps audio back by a few milliseconds at the loop; a splice can leave two frames on one instant):
    /// the product's one rule for decode order (`TimestampNormalizer`, as the codec engine applies it), so every
    /// output of a live job, RTMP, SRT, FLV, MP4, TS and HLS alike, gets strictly increasing DTS per stream.
    /// - Parameters:
    ///   - typeID: audio (8) or video (9).
    ///   - track: the Enhanced RTMP track the frame belongs to (0 for legacy messages): tracks keep their own order.
    mutating func strictlyAfter(_ time: Int64, typeID: UInt8, track: UInt8) -> Int64 {
        let stream = UInt16(typeID) << 8 | UInt16(track)
        var order = frameOrder[stream] ?? TimestampNormalizer()
        let before = order.repairs
        let ordered = order.normalize(pts: nil, dts: time, duration: 0).dts
        repairs += order.repairs - before
        frameOrder[stream] = order
        return ordered
    }
}
