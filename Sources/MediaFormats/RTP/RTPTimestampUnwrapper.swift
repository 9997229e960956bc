// RFC 3550 §5.1 timestamp: 32 bits that wrap (after 13 hours at 90 kHz), extended here to 64.

/// Turns 32-bit RTP timestamps into a 64-bit timeline that does not jump at the wrap. Each timestamp is taken as the
/// one nearest the last (within ±2^31 ticks), so timestamps that step back a little (B-frames in presentation
/// order, a reordered packet) step back on the timeline too instead of jumping forward a whole wrap.
public struct RTPTimestampUnwrapper: Sendable, Equatable {
    /// The last extended timestamp; nil before the first.
    public private(set) var last: Int64?

    public init() {}

    /// `timestamp` on the extended timeline; the first one is taken as is (0...2^32 − 1).
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        // The low 32 bits of `last` are the last RTP timestamp; the signed difference is the nearest step.
        let step = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last)))
        let extended = last + step
        self.last = extended
        return extended
    }

    public mutating func reset() { last = nil }
}
