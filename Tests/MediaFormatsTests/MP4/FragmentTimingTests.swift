import Testing
@testable import MediaFormats

@Suite struct FragmentTimingTests {
    @Test func durationBufferGivesEachSampleTheGapToTheNextAndTheLastOneThePreviousDuration() throws {
        var buffer = MP4SampleDurationBuffer()
        #expect(try buffer.append(MP4Fixtures.sample(at: 0, duration: 0)) == nil)
        #expect(try buffer.append(MP4Fixtures.sample(at: 3600, duration: 0))?.duration == 3600)
        #expect(try buffer.append(MP4Fixtures.sample(at: 7300, duration: 0))?.duration == 3700)
        let last = buffer.flush()
        #expect(last?.decodeTime == 7300 && last?.duration == 3700)
        #expect(buffer.flush() == nil)
        // A track of one sample takes the initial duration.
        var single = MP4SampleDurationBuffer(initialDuration: 1024)
        _ = try single.append(MP4Fixtures.sample(at: 5, duration: 0))
        #expect(single.flush()?.duration == 1024)
    }

    @Test func durationBufferRejectsTimeGoingBackAndKeepsItsSample() throws {
        var buffer = MP4SampleDurationBuffer()
        _ = try buffer.append(MP4Fixtures.sample(at: 100, duration: 0))
        #expect(throws: MediaFormatError.invalid(structure: "trun", reason: "decode time goes back from 100 to 99")) {
            try buffer.append(MP4Fixtures.sample(at: 99, duration: 0))
        }
        #expect(throws: MediaFormatError.limitExceeded(what: "trun sample_duration", value: 1 << 32, limit: Int(UInt32.max))) {
            try buffer.append(MP4Fixtures.sample(at: 100 + (1 << 32), duration: 0))
        }
        #expect(buffer.heldSample?.decodeTime == 100)
        // Equal decode times are a zero duration, not an error.
        #expect(try buffer.append(MP4Fixtures.sample(at: 100, duration: 0))?.duration == 0)
    }

    struct BoundaryCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// (decode time in ms on a 1 kHz track, sync).
        let samples: [(Int64, Bool)]
        /// Whether each sample starts a fragment, with a 1 s fragment duration.
        let starts: [Bool]
        var testDescription: String { name }
    }

    static let boundaryCases: [BoundaryCase] = [
        BoundaryCase(name: "first sample, even non-sync", samples: [(500, false)], starts: [true]),
        BoundaryCase(name: "keyframes every 0.5 s: every other one",
                     samples: [(0, true), (500, true), (1000, true), (1500, true), (2000, true)],
                     starts: [true, false, true, false, true]),
        BoundaryCase(name: "keyframe late: the first one at or after the boundary",
                     samples: [(0, true), (960, false), (1040, false), (1200, true), (2000, true)],
                     starts: [true, false, false, true, true]),
        BoundaryCase(name: "keyframes every 2.5 s: each one, grid kept",
                     samples: [(0, true), (2500, true), (5000, true)], starts: [true, true, true]),
        BoundaryCase(name: "negative times floor to the grid",
                     samples: [(-1500, true), (-1000, true), (-400, true), (0, true)], starts: [true, true, false, true]),
    ]

    @Test(arguments: boundaryCases)
    func boundaryPolicyCutsAtTheFirstSyncSamplePastEachMultiple(_ row: BoundaryCase) throws {
        var policy = try FragmentBoundaryPolicy(milliseconds: 1000, timescale: 1000)
        #expect(row.samples.map { policy.startsFragment(at: $0.0, isSync: $0.1) } == row.starts)
    }

    @Test func boundaryPolicyNeedsAPositiveDuration() {
        #expect(throws: MediaFormatError.invalid(structure: "fragment duration", reason: "0 is not positive")) {
            try FragmentBoundaryPolicy(milliseconds: 0, timescale: 90_000)
        }
        var policy = try? FragmentBoundaryPolicy(fragmentDuration: 1)
        #expect(policy?.startsFragment(at: .max, isSync: true) == true)
        #expect(policy?.nextBoundary == .max)
    }

    @Test func timestampConverterKeepsAACFramesBackToBack() {
        // FFmpeg's FLV muxer rounds 1024-sample frames at 44.1 kHz to 0, 23, 46, 70, 93 ms.
        var converter = MP4TimestampConverter(timescale: 44_100, frameDuration: 1024)
        #expect([0, 23, 46, 70, 93].map { converter.decodeTime(milliseconds: $0) } == [0, 1024, 2048, 3072, 4096])
        // A jump (a gap in the input) resynchronises to the rounded time.
        #expect(converter.decodeTime(milliseconds: 1000) == 44_100)
        var video = MP4TimestampConverter(timescale: 90_000)
        #expect([0, 40, 80].map { video.decodeTime(milliseconds: $0) } == [0, 3600, 7200])
        #expect(video.ticks(milliseconds: -40) == -3600)
        #expect(MP4TimestampConverter(timescale: 44_100).ticks(milliseconds: 23) == 1014)
    }

    @Test("overlapping audio frames (a looping publisher) keep decode times increasing, counted, and the track snaps back to the input's times")
    func timestampConverterRepairsOverlaps() {
        var converter = MP4TimestampConverter(timescale: 48_000, frameDuration: 1024)
        // 21.33 ms frames rounded to 0, 21, 43 ms; the next one restarts 1 ms before the last (the loop point).
        #expect([0, 21, 43, 42].map { converter.decodeTime(milliseconds: $0) } == [0, 1024, 2048, 2049])
        #expect(converter.overlapsRepaired == 1)
        // The one after follows on from the repaired frame (within a millisecond of it ending), and the input's own
        // later times are kept: no lasting shift.
        #expect(converter.decodeTime(milliseconds: 64) == 3073)
        #expect(converter.decodeTime(milliseconds: 1000) == 48_000)
        // Within the rounding, a frame moved later by the back-to-back rule never lets the next one start before it.
        var snapped = MP4TimestampConverter(timescale: 48_000, frameDuration: 1024)
        let times = [0, 22, 43, 44].map { snapped.decodeTime(milliseconds: $0) }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        converter.reset()
        #expect(converter.decodeTime(milliseconds: 5) == 240 && converter.overlapsRepaired == 1)
    }

    @Test func fragmenterCutsAtVideoKeyframesAndSplitsAudioAtTheCut() throws {
        var fragmenter = try MP4Fragmenter(tracks: [MP4Fixtures.avc, MP4Fixtures.opus()])
        var fragments: [[UInt8]] = []
        // 2 s of 25 fps video with a keyframe each second, and 20 ms Opus packets, interleaved by time.
        var events: [(ms: Int64, video: Bool)] = (0..<50).map { (Int64($0) * 40, true) }
        events += (0..<100).map { (Int64($0) * 20, false) }
        events.sort { $0.ms < $1.ms || ($0.ms == $1.ms && $0.video) }
        for event in events {
            let sample = event.video
                ? MP4Fixtures.sample(at: event.ms * 90, duration: 0, sync: event.ms % 1000 == 0)
                : MP4Fixtures.sample(at: event.ms * 48, duration: 0)
            if let fragment = try fragmenter.append(sample, track: event.video ? 0 : 1) { fragments.append(fragment) }
        }
        if let last = try fragmenter.finish() { fragments.append(last) }
        #expect(fragments.count == 2)
        let runs = try fragments.map { fragment in
            try #require(MP4BoxReader.boxes(in: fragment).first).children("traf").map { traf in
                (try TrackFragmentBaseMediaDecodeTimeBox(parsing: #require(traf.child("tfdt")).payload).baseMediaDecodeTime,
                 try TrackRunBox(parsing: #require(traf.child("trun")).payload).entries)
            }
        }
        // First fragment: video 0–960 ms (25 frames); audio 0–960 ms (49 packets): the one at 980 ms is still waiting
        // for its duration when the keyframe at 1000 ms cuts, so it opens the next fragment.
        #expect(runs[0].map(\.0) == [0, 0] && runs[0].map(\.1.count) == [25, 49])
        #expect(runs[0][0].1.map(\.duration) == Array(repeating: 3600, count: 25))
        #expect(runs[0][0].1.first?.flags == .sync && runs[0][0].1.dropFirst().allSatisfy { $0.flags == .nonSync })
        // Second: the rest, the last samples taking the duration before them.
        #expect(runs[1].map(\.0) == [90_000, 47_040] && runs[1].map(\.1.count) == [25, 51])
        #expect(runs[1][0].1.last?.duration == 3600 && runs[1][1].1.last?.duration == 960)
        #expect(try fragmenter.finish() == nil)
    }

    @Test func audioOnlyFragmenterCutsOnAudioAndCanPrefixStyp() throws {
        var fragmenter = try MP4Fragmenter(tracks: [MP4Fixtures.aac(id: 1)], fragmentMilliseconds: 500, writesSegmentType: true)
        var fragments: [[UInt8]] = []
        for index in 0..<50 {
            if let fragment = try fragmenter.append(MP4Fixtures.sample(at: Int64(index) * 1024, duration: 0), track: 0) {
                fragments.append(fragment)
            }
        }
        #expect(fragments.count == 2)
        #expect(try fragments.map { try MP4BoxReader.boxes(in: $0).map(\.type) } == Array(repeating: ["styp", "moof", "mdat"], count: 2))
        #expect(throws: MediaFormatError.invalid(structure: "moof", reason: "no track at index 1")) {
            try fragmenter.append(MP4Fixtures.sample(at: 0, duration: 0), track: 1)
        }
    }
}
