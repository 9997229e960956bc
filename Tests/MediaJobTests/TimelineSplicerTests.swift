import Testing
@testable import MediaJob

@Suite("TimelineSplicer")
struct TimelineSplicerTests {
    /// Feeds (stream, dts µs, duration µs) and returns the spliced DTS of each.
    static func splice(_ splicer: inout TimelineSplicer, _ packets: [(Int, Int64, Int64)]) -> [Int64] {
        packets.map { stream, dts, duration in dts + splicer.offset(stream: stream, dts: dts, duration: duration) }
    }

    @Test("a steady stream passes unchanged")
    func steady() {
        var splicer = TimelineSplicer(.live)
        #expect(Self.splice(&splicer, [(0, 0, 33_333), (1, 10_000, 21_333), (0, 33_333, 33_333)]) == [0, 10_000, 33_333])
        #expect(splicer.splices == 0)
    }

    @Test("a new connection restarting at zero continues after the furthest stream")
    func reconnectAtZero() {
        var splicer = TimelineSplicer(.live)
        _ = Self.splice(&splicer, [(0, 1_000_000, 33_333), (1, 1_010_000, 21_333)])
        splicer.beginSegment()
        #expect(Self.splice(&splicer, [(0, 0, 33_333), (1, 10_000, 21_333)]) == [1_033_333, 1_043_333])
        #expect(splicer.splices == 1)
    }

    @Test("a clock that jumps back or far ahead on the same connection is spliced; jitter is not")
    func jumps() {
        var splicer = TimelineSplicer(.live)
        _ = Self.splice(&splicer, [(0, 5_000_000, 33_333)])
        #expect(Self.splice(&splicer, [(0, 4_900_000, 33_333)]) == [4_900_000])
        #expect(Self.splice(&splicer, [(0, 0, 33_333)]) == [5_033_333])
        #expect(Self.splice(&splicer, [(0, 60_000_000, 33_333)]) == [5_066_666])
        #expect(splicer.splices == 2)
    }
}

/// Clocks that wrap or start far from zero, injected as an initial offset instead of waited for.
@Suite("TimelineSplicer: wraps and extreme clocks")
struct TimelineSplicerWrapTests {
    /// 90 kHz ticks to microseconds, as libavformat's rescale would give them.
    static func ticks(_ value: Int64) -> Int64 { value * 100 / 9 }

    /// A 30 fps video and 48 kHz AAC stream from `start` µs, `count` frames each, with `wrap` µs subtracted
    /// from every time at or past `wrapAt` µs (the raw clock wrapping).
    static func feed(_ splicer: inout TimelineSplicer, start: Int64, count: Int, wrapAt: Int64, wrap: Int64) -> (video: [Int64], audio: [Int64]) {
        var video: [Int64] = []
        var audio: [Int64] = []
        for frame in 0..<Int64(count) {
            var v = start + frame * 33_333
            if v >= wrapAt { v -= wrap }
            video.append(v + splicer.offset(stream: 0, dts: v, duration: 33_333))
            var a = start + 10_000 + frame * 21_333
            if a >= wrapAt { a -= wrap }
            audio.append(a + splicer.offset(stream: 1, dts: a, duration: 21_333))
        }
        return (video, audio)
    }

    static func isContinuous(_ times: [Int64], step: Int64) -> Bool {
        zip(times, times.dropFirst()).allSatisfy { pair in pair.1 > pair.0 && pair.1 - pair.0 <= step + 1 }
    }

    @Test("live clocks wrapping at 2^33 ticks (MPEG-TS), 2^32 ms (RTMP) and 2^31 ms (FFmpeg's flvenc) stay continuous",
          arguments: [Self.ticks(1 << 33), (Int64(1) << 32) * 1000, (Int64(1) << 31) * 1000])
    func liveWrap(_ wrap: Int64) throws {
        var splicer = TimelineSplicer(.live)
        // Video reaches the wrap a third of a second before audio does, as the feed interleaves them.
        let times = Self.feed(&splicer, start: wrap - 1_000_000, count: 90, wrapAt: wrap, wrap: wrap)
        #expect(Self.isContinuous(times.video, step: 33_333))
        #expect(Self.isContinuous(times.audio, step: 21_333))
        #expect(splicer.splices == 0)
        #expect(splicer.wraps == 2)
        // Each stream unwrapped by the same period: A/V kept to the microsecond.
        #expect(times.audio[60] - times.video[60] == 10_000 + 60 * (21_333 - 33_333))
        let period = try #require(TimelineSplicer.Rules.microsecondWraps.first { abs($0 - wrap) < 10 })
        #expect(times.video[89] - times.video[0] == 89 * 33_333 + period - wrap)
    }

    @Test("one stream's first packet across a 2^31 ms wrap the other already crossed (a pull joining at the wrap): both stay on one timeline",
          arguments: [true, false])
    func firstPacketAcrossWrap(videoWrappedFirst: Bool) throws {
        var splicer = TimelineSplicer(.rtmp)
        let wrap: Int64 = 1 << 31
        // Video joins at raw 5 ms, past the wrap, while audio still sends its last 10 ms before it (or the other way
        // round): as nginx-rtmp hands a player joining at the wrap the two streams interleaved.
        let before = wrap - 10, after: Int64 = 5
        var video = videoWrappedFirst ? after : before
        var audio = videoWrappedFirst ? before : after
        var mapped: [(kind: Int, time: Int64)] = []
        for _ in 0..<30 {
            mapped.append((1, video + splicer.offset(stream: 1, dts: video, inferringDurationOr: 33)))
            mapped.append((0, audio + splicer.offset(stream: 0, dts: audio, inferringDurationOr: 21)))
            video = (video + 33) % wrap
            audio = (audio + 21) % wrap
        }
        #expect(splicer.splices == 0, "no splice: the streams are one clock")
        for kind in [0, 1] {
            let times = mapped.filter { $0.kind == kind }.map(\.time)
            let steps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(steps.allSatisfy { $0 > 0 && $0 < 100 }, "stream \(kind) steps \(steps)")
        }
        // Audio and video keep the 15 ms the publisher had between them.
        let firstVideo = mapped.first { $0.kind == 1 }?.time ?? 0
        let firstAudio = mapped.first { $0.kind == 0 }?.time ?? 0
        #expect(firstAudio - firstVideo == (videoWrappedFirst ? -15 : 15), "audio starts at \(firstAudio), video at \(firstVideo)")
    }

    @Test("a publisher restarting its clock mid-wrap-window is a splice, and the next connection forgets the unwrapping")
    func restartAfterWrap() {
        var splicer = TimelineSplicer(.live)
        let wrap = TimelineSplicer.Rules.microsecondWraps[1]
        _ = Self.feed(&splicer, start: wrap - 500_000, count: 30, wrapAt: wrap, wrap: wrap)
        splicer.beginSegment()
        let next = Self.feed(&splicer, start: 0, count: 30, wrapAt: .max, wrap: 0)
        #expect(splicer.splices == 1)
        #expect(next.video[0] >= wrap - 500_000 + 29 * 33_333)
        #expect(Self.isContinuous(next.video, step: 33_333))
    }

    @Test("a file splicer splices jumps back in any file and jumps ahead only where the format allows them")
    func fileThresholds() {
        var strict = TimelineSplicer(.file(mayJump: false))
        #expect(strict.offset(stream: 0, dts: 0, duration: 40_000) == 0)
        #expect(strict.offset(stream: 0, dts: 60_000_000, duration: 40_000) == 0)
        #expect(strict.offset(stream: 0, dts: 1_000_000, duration: 40_000) == 59_040_000)
        var discontinuous = TimelineSplicer(.file(mayJump: true))
        #expect(discontinuous.offset(stream: 0, dts: 0, duration: 40_000) == 0)
        #expect(discontinuous.offset(stream: 0, dts: 9_000_000, duration: 40_000) == 0)
        #expect(discontinuous.offset(stream: 0, dts: 20_000_000, duration: 40_000) == -10_960_000)
    }

    @Test("a new segment starts after everything already shown, not only after the last DTS (B-frames)")
    func presentationOrder() {
        var splicer = TimelineSplicer(.live)
        // Last frame decoded at 1.0 s but shown at 1.1 s; the new segment's keyframe shows 66 ms after its DTS.
        _ = splicer.offset(stream: 0, dts: 1_000_000, pts: 1_100_000, duration: 33_333)
        splicer.beginSegment()
        let offset = splicer.offset(stream: 0, dts: 0, pts: 66_666, duration: 33_333)
        #expect(66_666 + offset >= 1_133_333)
        #expect(offset == 1_133_333 - 66_666)
    }

    @Test("extreme clocks saturate instead of trapping")
    func extremes() {
        var splicer = TimelineSplicer(.live)
        _ = splicer.offset(stream: 0, dts: .max, pts: .max, duration: .max)
        let back = splicer.offset(stream: 0, dts: .min, pts: .max, duration: .max)
        #expect(back == .max)
        _ = splicer.offset(stream: 1, dts: .min, pts: .min, duration: .min)
        splicer.beginSegment()
        _ = splicer.offset(stream: 1, dts: 0, pts: .min, duration: 0)
        #expect(splicer.splices == 2)
    }
}

@Suite("TimelineSplicer: the rules the live relay and the codec engine share")
struct TimelineSplicerRulesTests {
    @Test("a stream that falls silent while another goes on is not a jump ahead when it comes back")
    func silentStreamComesBack() {
        var splicer = TimelineSplicer(.live)
        for frame in 0..<Int64(150) { _ = splicer.offset(stream: 0, dts: frame * 33_333, duration: 33_333) }
        // Audio: a packet at 0, then nothing for 4.9 s (past the 2 s forward threshold of its own last end).
        #expect(splicer.offset(stream: 1, dts: 0, duration: 21_333) == 0)
        #expect(splicer.offset(stream: 1, dts: 4_900_000, duration: 21_333) == 0)
        #expect(splicer.splices == 0)
        // Past everything any stream reached by more than 2 s: that is a new clock.
        #expect(splicer.offset(stream: 1, dts: 8_000_000, duration: 21_333) == 150 * 33_333 - 8_000_000)
        #expect(splicer.splices == 1)
    }

    @Test("RTMP's rules: the first message is 0, and a duration RTMP does not carry is the stream's last step")
    func rtmpInfersSteps() {
        var splicer = TimelineSplicer(.rtmp)
        #expect(splicer.offset(stream: 1, dts: 7_000, inferringDurationOr: 33) == -7_000)
        #expect(splicer.furthestEnd == 33)
        #expect(splicer.offset(stream: 1, dts: 7_040, inferringDurationOr: 33) == -7_000)
        #expect(splicer.furthestEnd == 80)
        // A gap of more than a second is not a step: the last one stands.
        #expect(splicer.offset(stream: 1, dts: 8_540, inferringDurationOr: 33) == -7_000)
        #expect(splicer.furthestEnd == 1_580)
        splicer.beginSegment()
        #expect(splicer.offset(stream: 1, dts: 0, inferringDurationOr: 33) == 1_580)
        #expect(splicer.splices == 1)
    }

    @Test("a file's rules pass its first time through; a live timeline's start at 0")
    func origins() {
        var file = TimelineSplicer(.file(mayJump: false))
        #expect(file.offset(stream: 0, dts: 1_400_000, duration: 40_000) == 0)
        var rtmp = TimelineSplicer(.rtmp)
        rtmp.resume(at: 250)
        #expect(rtmp.offset(stream: 0, dts: 90_000, duration: 23) == 250 - 90_000)
    }
}
