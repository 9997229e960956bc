// ISO/IEC 13818-1 (2019) §2.4.3.7: PTS, DTS and the PCR base are 33-bit counters of a 90 kHz clock that wrap
// about every 26.5 hours; a receiver rebuilds one monotonic timeline from them.

/// Turns raw 33-bit timestamps into an unbounded Int64 timeline: each value is placed in the 2^33 period that
/// puts it nearest to the previous one, so forward wraps add 2^33 and small steps back (B-frame PTS, jitter) stay small.
public struct TSTimestampUnwrapper: Sendable, Equatable {
    /// The counters' period.
    public static let modulus: Int64 = PESPacketHeader.timestampModulus
    /// The last unwrapped value; nil before the first.
    public private(set) var last: Int64?

    /// An unwrapper whose first value is taken as it is (0 ..< 2^33).
    public init() {}

    /// The unwrapped value of `raw` (taken modulo 2^33).
    public mutating func unwrap(_ raw: Int64) -> Int64 {
        let value = raw & (Self.modulus - 1)
        guard let last else {
            self.last = value
            return value
        }
        // The period of `last`, then the candidate nearest to it.
        let period = last - (last & (Self.modulus - 1))
        var candidate = period.addingSaturating(value)
        let half = Self.modulus / 2
        if candidate - last > half { candidate = candidate.subtractingSaturating(Self.modulus) }
        else if last - candidate > half { candidate = candidate.addingSaturating(Self.modulus) }
        self.last = candidate
        return candidate
    }

    /// Forgets the timeline (a discontinuity the caller splices by other means).
    public mutating func reset() { last = nil }
}
