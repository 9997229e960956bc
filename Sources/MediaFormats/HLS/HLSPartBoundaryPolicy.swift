// RFC 8216bis §4.4.4.9 (Partial Segments) and §4.4.3.7 (EXT-X-PART-INF): where a Low-Latency HLS output cuts its parts
// and segments, on the leading track's decode timeline. Pure: decode times in, cuts out.

/// Decides the part and segment boundaries of a Low-Latency HLS rendition from the leading track's samples (video,
/// else audio, whose every sample is a sync sample).
///
/// A segment starts at the first sync sample at or after each multiple of the segment duration (as without parts:
/// `FragmentBoundaryPolicy`), and ends the part in progress. Inside a segment a part ends before the first sample
/// that would take it past the part target, so no part is ever longer than PART-TARGET; a part that reaches it
/// exactly ends there. The cut is decided when the next sample arrives, which is also when the last sample's duration
/// is known.
public struct HLSPartBoundaryPolicy: Sendable {
    /// Where a fragment ends: before the leading sample at `before`.
    public struct Cut: Sendable, Equatable {
        /// The decode time of the first sample after the cut (the leading track's timescale).
        public var before: Int64
        /// The part that ends here began with a sync sample (INDEPENDENT=YES).
        public var independent: Bool
        /// The cut also ends the segment.
        public var endsSegment: Bool

        public init(before: Int64, independent: Bool, endsSegment: Bool) {
            self.before = before
            self.independent = independent
            self.endsSegment = endsSegment
        }
    }

    /// The longest part, in the track's timescale: the segment duration divided by the number of parts.
    public let partDuration: Int64
    private var segments: FragmentBoundaryPolicy
    /// The open part: where it starts and whether its first sample is a sync sample; nil before the first sample.
    private var part: (start: Int64, independent: Bool)?
    /// The last leading sample: a part that cannot take the next one ends before it instead.
    private var previous: (decodeTime: Int64, isSync: Bool)?

    /// A policy cutting segments every `segmentDuration` and each into `partsPerSegment` parts (units of the track's
    /// timescale), no part longer than `partDuration` (by default the segment divided by the parts; at least that).
    /// Throws unless both are positive.
    public init(segmentDuration: Int64, partsPerSegment: Int, partDuration: Int64? = nil) throws {
        guard partsPerSegment > 0, segmentDuration >= Int64(partsPerSegment) else {
            throw MediaFormatError.invalid(structure: "HLS parts", reason: "\(partsPerSegment) parts in \(segmentDuration) units")
        }
        segments = try FragmentBoundaryPolicy(fragmentDuration: segmentDuration)
        self.partDuration = max(partDuration ?? 0, segmentDuration / Int64(partsPerSegment))
    }

    /// The part target for `partsPerSegment` parts in a segment of `segmentMilliseconds`: the quotient rounded up to the
    /// millisecond. Live timestamps come in milliseconds (FLV, RTMP), so the frames meant to fill a part last up to a
    /// millisecond more than the exact quotient: at 30 fps ten frames last 333 or 334 ms, over 1/3 s, and a target of
    /// exactly 1/3 s cut a second into parts of 10, 9, 9 and 2 frames instead of three of 10.
    public static func partTargetMilliseconds(segmentMilliseconds: Int64, partsPerSegment: Int) -> Int64 {
        let parts = Int64(max(partsPerSegment, 1))
        return (segmentMilliseconds + parts - 1) / parts
    }

    /// The parts a segment of `segmentSeconds` holds for a requested part length of `partSeconds`: the nearest whole
    /// number, at least one. The part target is then the segment divided by it, so segments hold whole parts.
    public static func partsPerSegment(segmentSeconds: Double, partSeconds: Double) -> Int {
        guard segmentSeconds.isFinite, partSeconds.isFinite, partSeconds > 0 else { return 1 }
        return max(1, Int(min((segmentSeconds / partSeconds).rounded(), Double(Int32.max))))
    }

    /// The cuts the leading sample at `decodeTime` makes, oldest first: none, a part, or a part and the segment. A
    /// segment starts by the sample's presentation time (`FragmentBoundaryPolicy`), `decodeTime` when not given.
    public mutating func cuts(decodeTime: Int64, presentationTime: Int64? = nil, isSync: Bool) -> [Cut] {
        defer { previous = (decodeTime, isSync) }
        let startsSegment = segments.startsFragment(at: presentationTime ?? decodeTime, isSync: isSync)
        guard var open = part else {
            part = (decodeTime, isSync)
            return []
        }
        var cuts: [Cut] = []
        // The part cannot reach this sample: it ends before the previous one, which starts the next part.
        if decodeTime - open.start > partDuration, let previous, previous.decodeTime > open.start {
            cuts.append(Cut(before: previous.decodeTime, independent: open.independent, endsSegment: false))
            open = (previous.decodeTime, previous.isSync)
        }
        // A sample longer than a part on its own still ends its part, which is then over the target (refused later).
        if startsSegment || decodeTime - open.start >= partDuration {
            cuts.append(Cut(before: decodeTime, independent: open.independent, endsSegment: startsSegment))
            open = (decodeTime, isSync)
        }
        part = open
        return cuts
    }

    /// Whether the open part began with a sync sample (for the last part, cut by the end of the stream).
    public var openPartIsIndependent: Bool { part?.independent ?? false }

    /// Forgets the timeline (a new one starts with the next sample).
    public mutating func reset() {
        segments.reset()
        part = nil
        previous = nil
    }
}
