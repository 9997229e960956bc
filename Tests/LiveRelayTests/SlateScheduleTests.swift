import MediaFormats
import MediaJob
import Testing
@testable import LiveRelay

/// The slate's pacing: each kind at its exact rate from the slate's start, looping its frames.
@Suite struct SlateScheduleTests {
    static func loop(videoFrames: Int = 3, rate: (Int64, Int64) = (30, 1), audioFrames: Int = 2, sampleRate: Int64 = 48000) -> SlateLoop {
        SlateLoop(videoHeader: [0x17, 0], audioHeader: [0xAF, 0],
                  videoFrames: (0..<videoFrames).map { [$0 == 0 ? 0x17 : 0x27, 1, UInt8($0)] }, rateNumerator: rate.0, rateDenominator: rate.1,
                  audioFrames: (0..<audioFrames).map { [0xAF, 1, UInt8($0)] }, sampleRate: sampleRate, samplesPerFrame: 1024)
    }

    @Test("at the start: the headers at the base, then the first video and audio frames")
    func start() {
        var schedule = SlateSchedule(loop: Self.loop(), base: 5000)
        #expect(schedule.headers.map(\.timestamp) == [5000, 5000])
        #expect(schedule.headers.map(\.typeID) == [9, 8])
        let due = schedule.due(through: 0)
        #expect(due.map(\.typeID) == [8, 9])
        #expect(due.allSatisfy { $0.timestamp == 5000 })
    }

    @Test("one second: 31 video frames at 33.3 ms looping over three, 47 audio frames at 21.3 ms; nothing twice")
    func oneSecond() {
        var schedule = SlateSchedule(loop: Self.loop(), base: 0)
        var sent: [FLVStreamTag] = []
        for elapsed in stride(from: Int64(0), through: 1000, by: 7) { sent += schedule.due(through: elapsed) }
        sent += schedule.due(through: 1000)
        let video = sent.filter { $0.typeID == 9 }
        let audio = sent.filter { $0.typeID == 8 }
        #expect(video.count == 31)  // 0, 33, 67, …, 1000
        #expect(audio.count == 47)  // 0, 21, …, 981
        // Rounded as encoders stamp 30 fps: 0, 33, 67, 100.
        let videoTimes: [Int64] = (0..<31).map { (index: Int) -> Int64 in (Int64(index) * 1000 + 15) / 30 }
        #expect(video.map(\.timestamp) == videoTimes)
        let audioTimes: [Int64] = (0..<47).map { (index: Int) -> Int64 in Int64(index) * 1024 * 1000 / 48000 }
        #expect(audio.map(\.timestamp) == audioTimes)
        // The loop restarts on its keyframe every third frame.
        let firstBytes: [UInt8] = video.map { $0.data[0] }
        let expected: [UInt8] = (0..<31).map { (index: Int) -> UInt8 in index % 3 == 0 ? 0x17 : 0x27 }
        #expect(firstBytes == expected)
        // Timestamps never go back, across kinds, within one call's batch.
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // The input resumes at the next slot of either kind.
        // The input resumes on the next video slot at or after audio's next slot (1002 ms): 1033.
        #expect(schedule.end == 1033)
        #expect(schedule.sent == schedule.end)
    }

    @Test("29.97 fps keeps its exact pace over an hour: frame 107892 is at 3600 s")
    func fractionalRate() {
        let loop = Self.loop(rate: (30000, 1001))
        #expect(loop.videoTime(107_892) == 3_599_996)  // not 107892 × 33 ms = 3560 s
        #expect(loop.videoTime(107_892 + 30) == 3_600_997)
    }

    @Test("a stream without audio gets video only, and one without video audio only")
    func oneKind() {
        var videoOnly = SlateSchedule(loop: Self.loop(audioFrames: 0), base: 0)
        #expect(videoOnly.due(through: 100).allSatisfy { $0.typeID == 9 })
        var audioOnly = SlateSchedule(loop: Self.loop(videoFrames: 0), base: 0)
        let due = audioOnly.due(through: 100)
        #expect(!due.isEmpty && due.allSatisfy { $0.typeID == 8 })
        let fifthFrame: Int64 = 5 * 1024 * 1000 / 48000
        #expect(audioOnly.end == fifthFrame)
    }
}

@Suite struct SlateScheduleGridTests {
    @Test("the resume point is a video slot even when audio runs past the last video frame sent")
    func resumeOnTheGrid() {
        var schedule = SlateSchedule(loop: SlateScheduleTests.loop(), base: 1000)
        _ = schedule.due(through: 40)  // video 0, 33; audio 0, 21
        // Next video slot 67 ms, next audio 42 ms: resume at 1067.
        #expect(schedule.end == 1067)
        _ = schedule.due(through: 66)  // audio 42, 64 sent: next audio 85 is past video's 67, so the next video slot, 100
        #expect(schedule.end == 1100)
        _ = schedule.due(through: 86)  // video 67; audio 85: next audio 106, next video 100 → 133
        #expect(schedule.end == 1133)
    }
}
