import Testing
import MediaFormats

/// Where Low-Latency HLS parts and segments are cut (HLSPartBoundaryPolicy): no part over the target, segments at the
/// first keyframe at or after each multiple of the segment duration, INDEPENDENT on parts that start at a keyframe.
@Suite("HLS part boundaries")
struct HLSPartBoundaryPolicyTests {
    /// Runs `frames` (decode time, sync) through a policy and returns every cut.
    static func cuts(_ policy: HLSPartBoundaryPolicy, _ frames: [(Int64, Bool)]) -> [HLSPartBoundaryPolicy.Cut] {
        var policy = policy
        return frames.flatMap { policy.cuts(decodeTime: $0.0, isSync: $0.1) }
    }

    /// `count` frames `step` apart, a keyframe every `gop`.
    static func frames(_ count: Int, step: Int64, gop: Int) -> [(Int64, Bool)] {
        (0..<count).map { (index: Int) -> (Int64, Bool) in (Int64(index) * step, index % gop == 0) }
    }

    @Test("30 fps, 1 s segments in 3 parts (part_s 0.33): parts of exactly 10 frames, the first of each segment independent")
    func wholeParts() throws {
        // 90 kHz: a frame is 3000 ticks, a part 30000.
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3)
        #expect(policy.partDuration == 30_000)
        let cuts = Self.cuts(policy, Self.frames(61, step: 3000, gop: 30))
        #expect(cuts.map(\.before) == [30_000, 60_000, 90_000, 120_000, 150_000, 180_000])
        #expect(cuts.map(\.endsSegment) == [false, false, true, false, false, true])
        #expect(cuts.map(\.independent) == [true, false, false, true, false, false])
    }

    @Test("30 fps stamped in milliseconds (RTMP): the part target rounded up to the millisecond holds ten frames, so a second is three parts")
    func millisecondFrames() throws {
        #expect(HLSPartBoundaryPolicy.partTargetMilliseconds(segmentMilliseconds: 1000, partsPerSegment: 3) == 334)
        #expect(HLSPartBoundaryPolicy.partTargetMilliseconds(segmentMilliseconds: 2000, partsPerSegment: 4) == 500)
        #expect(HLSPartBoundaryPolicy.partTargetMilliseconds(segmentMilliseconds: 1000, partsPerSegment: 7) == 143)
        // Frame n at round(n × 33.333) ms, in 90 kHz ticks: ten frames last 333 or 334 ms.
        let frames = (0..<91).map { (index: Int) -> (Int64, Bool) in ((Int64(index) * 1000 + 15) / 30 * 90, index % 30 == 0) }
        let exact = Self.cuts(try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3), frames)
        #expect(exact.count > 9, "the exact third cuts more parts than three a second: \(exact.map(\.before))")
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3, partDuration: 334 * 90)
        let cuts = Self.cuts(policy, frames)
        #expect(cuts.map(\.before) == [10, 20, 30, 40, 50, 60, 70, 80, 90].map { frames[$0].0 })
        #expect(cuts.map(\.endsSegment) == [false, false, true, false, false, true, false, false, true])
        // A part duration under the segment's share is raised to it.
        #expect(try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3, partDuration: 10).partDuration == 30_000)
    }

    @Test("25 fps does not divide a third of a second: parts end before the frame that would take them past the target")
    func neverOverTarget() throws {
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3)
        // 3600 ticks a frame: 8 frames (28800) fit, 9 (32400) would not.
        let cuts = Self.cuts(policy, Self.frames(51, step: 3600, gop: 25))
        var start: Int64 = 0
        for cut in cuts {
            #expect(cut.before - start <= policy.partDuration, "part \(start)..<\(cut.before)")
            #expect(cut.before > start)
            start = cut.before
        }
        #expect(cuts.prefix(3).map(\.before) == [28_800, 57_600, 86_400])
        // The segment still ends at the keyframe at 1 s, after a short last part.
        #expect(cuts.filter(\.endsSegment).map(\.before) == [90_000, 180_000])
    }

    @Test("a late keyframe: parts go on at the target until it comes, then the segment ends before it")
    func lateKeyframe() throws {
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3)
        // Keyframes at 0 and 1.5 s only.
        let frames: [(Int64, Bool)] = (0..<60).map { (index: Int) -> (Int64, Bool) in (Int64(index) * 3000, index == 0 || index == 45) }
        let cuts = Self.cuts(policy, frames)
        #expect(cuts.map(\.before) == [30_000, 60_000, 90_000, 120_000, 135_000, 165_000])
        #expect(cuts.map(\.endsSegment) == [false, false, false, false, true, false])
        #expect(cuts.map(\.independent) == [true, false, false, false, false, true])
    }

    @Test("audio only: every sample is a sync sample, so every part is independent")
    func audioOnly() throws {
        // AAC at 48 kHz: 1024 samples a frame; 2 s segments in 6 parts of 16000.
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 96_000, partsPerSegment: 6)
        let cuts = Self.cuts(policy, (0..<200).map { (index: Int) -> (Int64, Bool) in (Int64(index) * 1024, true) })
        #expect(!cuts.isEmpty && cuts.allSatisfy(\.independent))
        var start: Int64 = 0
        for cut in cuts {
            #expect(cut.before - start <= 16_000)
            start = cut.before
        }
        #expect(cuts.filter(\.endsSegment).map(\.before) == [96_256, 192_512])
    }

    @Test("a frame longer than a part (a gap in the timestamps) still ends its part rather than stall")
    func gap() throws {
        let policy = try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 3)
        let cuts = Self.cuts(policy, [(0, true), (3000, false), (6000, false), (90_000, false), (93_000, false)])
        #expect(cuts.map(\.before) == [6000, 90_000])
    }

    @Test("parts per segment: the nearest whole number of the requested length")
    func partsPerSegment() throws {
        #expect(HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: 1, partSeconds: 0.33) == 3)
        #expect(HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: 2, partSeconds: 0.33) == 6)
        #expect(HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: 4, partSeconds: 1) == 4)
        #expect(HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: 1, partSeconds: .nan) == 1)
        #expect(throws: MediaFormatError.self) { try HLSPartBoundaryPolicy(segmentDuration: 90_000, partsPerSegment: 0) }
    }
}
