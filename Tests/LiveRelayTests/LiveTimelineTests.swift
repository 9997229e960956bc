import Testing
@testable import LiveRelay

@Suite struct LiveTimelineTests {
    @Test func startsAtZeroAndKeepsSteps() {
        var timeline = LiveTimeline()
        #expect(timeline.map(typeID: 9, timestamp: 5000) == 0)
        #expect(timeline.map(typeID: 8, timestamp: 5010) == 10)
        #expect(timeline.map(typeID: 9, timestamp: 5033) == 33)
    }

    @Test("a second stream starting before the first is clamped at the origin, never mapped below 0")
    func earlierSecondStreamClampedAtOrigin() {
        var timeline = LiveTimeline()
        #expect(timeline.map(typeID: 9, timestamp: 1000) == 0)
        #expect(timeline.map(typeID: 8, timestamp: 990) == 0)
        #expect(timeline.map(typeID: 8, timestamp: 1013) == 13)
        #expect(timeline.map(typeID: 9, timestamp: 1033) == 33)
    }

    @Test func metadataBeforeMediaDoesNotAnchorTheClock() {
        var timeline = LiveTimeline()
        #expect(timeline.map(typeID: 18, timestamp: 0) == 0)
        #expect(timeline.map(typeID: 9, timestamp: 700) == 0)
        #expect(timeline.map(typeID: 9, timestamp: 733) == 33)
    }

    @Test("FFmpeg's sequence headers at 0 beside a clock near 2^31 ms, the audio's after the first video frames (a player that came before the publisher): one splice, and every frame keeps its step")
    func configurationAtZeroBesideAFarClock() {
        var timeline = LiveTimeline()
        let clock: UInt32 = 2_147_469_933
        #expect(timeline.map(typeID: 9, timestamp: 0, isFrame: false) == 0)
        #expect(timeline.map(typeID: 9, timestamp: clock) == 33)
        #expect(timeline.map(typeID: 9, timestamp: clock + 34) == 67)
        // The audio's header at 0, 2^31 ms minus 13.7 s from the clock: no time of its own, the last frame's.
        #expect(timeline.map(typeID: 8, timestamp: 0, isFrame: false) == 67)
        #expect(timeline.map(typeID: 8, timestamp: clock + 46) == 79)
        var times: [Int64] = []
        for frame in 2..<60 { times.append(timeline.map(typeID: 9, timestamp: clock + UInt32(frame * 33))) }
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 - $1 == 33 }, "\(times)")
        #expect(timeline.splices == 1 && timeline.wraps == 0)
        // A header near the clock (a codec change mid-stream) is placed as any message.
        #expect(timeline.map(typeID: 9, timestamp: clock + 60 * 33, isFrame: false) == times[times.count - 1] + 33)
    }

    @Test func splicesANewConnectionAfterTheFurthestPoint() {
        var timeline = LiveTimeline()
        for frame in 0..<30 { _ = timeline.map(typeID: 9, timestamp: UInt32(frame * 33)) }
        timeline.beginSegment()
        let resumed = timeline.map(typeID: 9, timestamp: 0)
        #expect(resumed == 29 * 33 + 33)
        #expect(timeline.map(typeID: 9, timestamp: 33) == resumed + 33)
    }

    @Test func unwrapsThe32And31BitClocks() {
        for period: Int64 in [1 << 32, 1 << 31] {
            var timeline = LiveTimeline()
            let start = UInt32(truncatingIfNeeded: period - 66)
            #expect(timeline.map(typeID: 9, timestamp: start) == 0)
            #expect(timeline.map(typeID: 9, timestamp: start &+ 33) == 33)
            // The raw clock wrapped to 0: the timeline goes on.
            #expect(timeline.map(typeID: 9, timestamp: 0) == 66)
            #expect(timeline.wraps == 1 && timeline.splices == 0)
        }
    }

    @Test func parsesEndpoints() throws {
        let plain = try #require(RTMPEndpoint(parsing: "rtmp://example.com/live/abc?x=1"))
        #expect(plain.port == 1935 && plain.app == "live" && plain.streamKey == "abc?x=1" && !plain.secure)
        #expect(plain.tcURL == "rtmp://example.com:1935/live")
        let secure = try #require(RTMPEndpoint(parsing: "rtmps://[::1]:8443/app/k"))
        #expect(secure.port == 8443 && secure.host == "::1" && secure.secure)
        #expect(RTMPEndpoint(parsing: "rtmps://h/app/k")?.port == 443)
        #expect(RTMPEndpoint(parsing: "rtmp://h/app") == nil)
        #expect(RTMPEndpoint(parsing: "rtmp://h:99999/app/k") == nil)
        #expect(constantTimeEquals("abc", "abc") && !constantTimeEquals("abc", "abd") && !constantTimeEquals("abc", "abcd"))
    }
}

@Suite struct LiveTimelineResumeTests {
    @Test("after a slate: the next message starts at the slate's end, whatever the input's clock says")
    func resumeAfterSlate() {
        var timeline = LiveTimeline()
        #expect(timeline.map(typeID: 9, timestamp: 1000) == 0)
        #expect(timeline.map(typeID: 9, timestamp: 1033) == 33)
        timeline.resume(at: 10_000)
        // The same connection going on (a stall) or a new one starting at 0: both land at the slate's end.
        #expect(timeline.map(typeID: 9, timestamp: 1066) == 10_000)
        #expect(timeline.map(typeID: 8, timestamp: 1070) == 10_004)
        #expect(timeline.map(typeID: 9, timestamp: 1099) == 10_033)
        timeline.resume(at: 20_000)
        #expect(timeline.map(typeID: 9, timestamp: 0) == 20_000)
    }
}

@Suite("LiveTimeline.strictlyAfter: frames leave in strictly increasing decode order per stream")
struct LiveTimelineDecodeOrderTests {
    @Test("a publisher looping its file steps audio back 30 ms: the frames move just past the last one, counted")
    func audioSteppingBack() {
        var timeline = LiveTimeline()
        let raw: [Int64] = [755_700, 755_730, 755_760, 755_730, 755_753, 755_776, 755_799]
        let ordered = raw.map { timeline.strictlyAfter($0, typeID: 8, track: 0) }
        #expect(ordered == [755_700, 755_730, 755_760, 755_761, 755_762, 755_776, 755_799])
        #expect(timeline.repairs == 2)
    }

    @Test("two frames on one instant: the second moves a millisecond on; streams and tracks keep their own order")
    func streamsApart() {
        var timeline = LiveTimeline()
        #expect(timeline.strictlyAfter(100, typeID: 9, track: 0) == 100)
        #expect(timeline.strictlyAfter(100, typeID: 9, track: 0) == 101)
        // Audio at the video's instant, and a second audio track at the first's: neither is a repair.
        #expect(timeline.strictlyAfter(100, typeID: 8, track: 0) == 100)
        #expect(timeline.strictlyAfter(100, typeID: 8, track: 1) == 100)
        #expect(timeline.strictlyAfter(133, typeID: 9, track: 0) == 133)
        #expect(timeline.repairs == 1)
    }
}
