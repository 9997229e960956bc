import MediaFormats
import MediaJob

/// Which slate frames are due (docs/ARCHITECTURE.md §4): the loop's frames repeated from the slate's start, video
/// frame k at k frame durations and audio frame k at k AAC frame durations, so both kinds keep their exact pace at
/// wall-clock speed however long the slate runs. Pure: the relay asks it what is due and sends that.
struct SlateSchedule: Sendable {
    let loop: SlateLoop
    /// Where the slate starts on the job's timeline, milliseconds.
    let base: Int64
    private(set) var videoIndex: Int64 = 0
    private(set) var audioIndex: Int64 = 0

    init(loop: SlateLoop, base: Int64) {
        self.loop = loop
        self.base = base
    }

    /// The sequence headers that precede the slate's first frame, at its start.
    var headers: [FLVStreamTag] {
        [loop.videoHeader.map { FLVStreamTag(type: .video, timestamp: base, data: $0) },
         loop.audioHeader.map { FLVStreamTag(type: .audio, timestamp: base, data: $0) }].compactMap { $0 }
    }

    /// The frames due once `elapsed` milliseconds of slate have passed, in time order (audio first on a tie, as
    /// publishers interleave it).
    mutating func due(through elapsed: Int64) -> [FLVStreamTag] {
        var due: [FLVStreamTag] = []
        if !loop.audioFrames.isEmpty {
            while loop.audioTime(audioIndex) <= elapsed {
                let body = loop.audioFrames[Int(audioIndex % Int64(loop.audioFrames.count))]
                due.append(FLVStreamTag(type: .audio, timestamp: base + loop.audioTime(audioIndex), data: body))
                audioIndex += 1
            }
        }
        if !loop.videoFrames.isEmpty {
            while loop.videoTime(videoIndex) <= elapsed {
                let body = loop.videoFrames[Int(videoIndex % Int64(loop.videoFrames.count))]
                due.append(FLVStreamTag(type: .video, timestamp: base + loop.videoTime(videoIndex), data: body))
                videoIndex += 1
            }
        }
        // A stable sort keeps audio before video at equal times.
        return due.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }

    /// Where the input resumes on the job's timeline: after the next slot of either kind, so nothing it sends goes back in
    /// time, and on the video frame grid, so the input's frames keep the phase they had before the slate.
    var end: Int64 {
        let audioNext = loop.audioFrames.isEmpty ? base : base + loop.audioTime(audioIndex)
        guard !loop.videoFrames.isEmpty else { return audioNext }
        var slot = videoIndex
        while base + loop.videoTime(slot) < audioNext { slot += 1 }
        return base + loop.videoTime(slot)
    }

    /// Milliseconds of slate sent.
    var sent: Int64 { end - base }
}
