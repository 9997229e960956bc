// RFC 8216bis §4.4.6.2 EXT-X-STREAM-INF BANDWIDTH and AVERAGE-BANDWIDTH, measured from the segments as written:
// BANDWIDTH is "the largest bit rate of any contiguous set of Media Segments whose total duration is between 0.5
// and 1.5 times the target duration"; AVERAGE-BANDWIDTH the bit rate of all of them together.

/// The peak and average bit rate of one variant's segments, fed one segment at a time.
public struct HLSBitrateMeter: Sendable, Equatable {
    /// One segment as the meter counts it.
    public struct Segment: Sendable, Equatable {
        public var bytes: Int
        /// Seconds.
        public var duration: Double

        public init(bytes: Int, duration: Double) {
            self.bytes = bytes
            self.duration = duration
        }
    }

    /// EXT-X-TARGETDURATION of the variant's media playlist, seconds.
    public private(set) var targetDuration: Int
    /// The highest bit rate of a set of segments the spec's rule counts (bits per second, rounded up); 0 before one is.
    public private(set) var peak: UInt64 = 0
    /// Every byte and second measured so far.
    public private(set) var totalBytes: Int64 = 0
    public private(set) var totalDuration: Double = 0
    public private(set) var segmentCount = 0
    /// The newest segments, as many as a set can reach back over (at most 1.5 target durations, plus the newest).
    private var recent: [Segment] = []

    /// A meter for a playlist of `targetDuration` seconds (at least 1).
    public init(targetDuration: Int) {
        self.targetDuration = max(1, targetDuration)
    }

    /// Counts a segment; returns true when the peak rose.
    @discardableResult
    public mutating func add(_ segment: Segment) -> Bool {
        guard segment.bytes >= 0, segment.duration.isFinite, segment.duration >= 0 else { return false }
        segmentCount += 1
        totalBytes = totalBytes.addingReportingOverflow(Int64(segment.bytes)).partialValue
        totalDuration += segment.duration
        // A segment longer than the target (a late keyframe) raises the target, as its playlist's does.
        targetDuration = max(targetDuration, HLSNumber.roundedSeconds(segment.duration))
        recent.append(segment)
        let (low, high) = (0.5 * Double(targetDuration), 1.5 * Double(targetDuration))
        var previous = peak
        var bytes = 0
        var duration = 0.0
        // Every contiguous set that ends with the new segment: the earlier ones were measured when they ended.
        for earlier in recent.reversed() {
            bytes += earlier.bytes
            duration += earlier.duration
            if duration > high { break }
            if duration >= low { previous = max(previous, Self.bitsPerSecond(bytes: bytes, duration: duration)) }
        }
        // Drop what no later set can reach: anything past 1.5 target durations before the newest segment.
        var kept = 0.0
        var first = recent.count
        while first > 0, kept <= high {
            first -= 1
            kept += recent[first].duration
        }
        if first > 0 { recent.removeFirst(first) }
        let rose = previous > peak
        peak = previous
        return rose
    }

    /// BANDWIDTH: the peak, or, while no set of segments is long enough to count (a stream shorter than half the
    /// target), the bit rate of everything so far; nil before any segment.
    public var bandwidth: UInt64? {
        guard segmentCount > 0 else { return nil }
        return peak > 0 ? peak : averageBandwidth
    }

    /// AVERAGE-BANDWIDTH: all bytes over all seconds; nil before any segment or with no duration.
    public var averageBandwidth: UInt64? {
        guard segmentCount > 0, totalDuration > 0 else { return nil }
        return Self.bitsPerSecond(bytes: Int(clamping: totalBytes), duration: totalDuration)
    }

    static func bitsPerSecond(bytes: Int, duration: Double) -> UInt64 {
        guard duration > 0 else { return 0 }
        let rate = (Double(bytes) * 8 / duration).rounded(.up)
        return rate >= Double(UInt64.max) ? UInt64.max : UInt64(rate)
    }
}
