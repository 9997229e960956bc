/// Restream latency samples (a packet's arrival at the input to its write at an output) in fixed
/// memory: log-linear buckets, 16 per power of two of microseconds, so a percentile is within ~6 %.
/// Hours of samples cost the same few kilobytes as one.
public struct LatencyHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two: the relative precision of a percentile (1/16 ≈ 6 %).
    static let subBuckets = 16
    /// Powers of two of microseconds covered (2^40 µs ≈ 12 days: every possible delay).
    static let octaves = 40

    private var counts = [UInt64](repeating: 0, count: LatencyHistogram.octaves * LatencyHistogram.subBuckets)
    public private(set) var count: UInt64 = 0
    public private(set) var maxMicroseconds: UInt64 = 0

    public init() {}

    /// Adds one sample, microseconds.
    public mutating func record(microseconds: UInt64) {
        counts[LatencyHistogram.bucket(of: microseconds)] += 1
        count += 1
        maxMicroseconds = max(maxMicroseconds, microseconds)
    }

    /// The value at quantile `q` (0…1) in microseconds: the upper edge of the bucket holding it.
    public func percentile(_ q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = UInt64((Double(count) * min(max(q, 0), 1)).rounded(.up))
        var seen: UInt64 = 0
        for (index, n) in counts.enumerated() where n > 0 {
            seen += n
            if seen >= max(rank, 1) { return min(LatencyHistogram.upperEdge(of: index), maxMicroseconds) }
        }
        return maxMicroseconds
    }

    /// Values below 16 µs get a bucket each; above, the octave picks the row and the next 4 bits the column.
    static func bucket(of value: UInt64) -> Int {
        guard value >= UInt64(subBuckets) else { return Int(value) }
        let octave = 63 - value.leadingZeroBitCount  // ≥ 4
        let column = Int((value >> UInt64(octave - 4)) & 0xF)
        return min((octave - 3) * subBuckets + column, octaves * subBuckets - 1)
    }

    static func upperEdge(of bucket: Int) -> UInt64 {
        guard bucket >= subBuckets else { return UInt64(bucket) }
        let octave = bucket / subBuckets + 3
        let column = UInt64(bucket % subBuckets)
        return ((16 + column + 1) << UInt64(octave - 4)) - 1
    }
}
