// Adobe Flash Video File Format Specification v10.1, §E.4.1 (Timestamp UI24 + TimestampExtended UI8: 32 bits of
// milliseconds); Adobe RTMP Specification 1.0, §5.3.1.1 (timestamps are 32 bits, wrap after 2^32 ms, and are
// compared with serial-number arithmetic); RFC 1982 (serial-number arithmetic).

/// A tag timestamp as the 32 bits of an FLV tag header or an RTMP message carry it: milliseconds modulo
/// 2^32, so a timeline longer than 49.7 days wraps instead of ending.
///
/// FLV files: Sluice wraps at 2^32 ms like RTMP. FFmpeg's flvenc clears the top bit and so wraps at 2^31 ms
/// (24.8 days); its flvdec reads all 32 bits, which is what this type writes.
public struct FLVTimestamp: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The 32 bits: the low 24 go to Timestamp, the high 8 to TimestampExtended.
    public let rawValue: UInt32

    /// A timestamp from its 32 bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The timestamp of `milliseconds` on an unbounded timeline: its value modulo 2^32.
    public init(milliseconds: Int64) {
        // Two's complement truncation is reduction modulo 2^32, negative values included.
        rawValue = UInt32(truncatingIfNeeded: milliseconds)
    }

    /// Milliseconds from `self` forward to `other` (negative: `other` is earlier), the RFC 1982 difference:
    /// the shorter way round the 2^32 circle, so it is exact while the two are less than 2^31 ms apart.
    public func distance(to other: FLVTimestamp) -> Int32 {
        Int32(bitPattern: other.rawValue &- rawValue)
    }

    /// RFC 1982 order: `other` lies less than 2^31 ms ahead of `self`.
    public func precedes(_ other: FLVTimestamp) -> Bool { distance(to: other) > 0 }

    public var description: String { "\(rawValue) ms (mod 2^32)" }
}

/// A reader's side of the wrap: turns the 32-bit timestamps of consecutive tags back into an unbounded
/// millisecond timeline, assuming neighbouring tags are less than 2^31 ms apart (a stateful transform).
public struct FLVTimestampUnwrapper: Sendable, Equatable {
    /// The unbounded time of the last tag seen.
    public private(set) var last: Int64?

    /// An unwrapper that takes the first timestamp as it is (0 ..< 2^32).
    public init() {}

    /// The unbounded milliseconds of the next tag's timestamp.
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let previous = last else {
            last = Int64(timestamp)
            return Int64(timestamp)
        }
        let step = FLVTimestamp(milliseconds: previous).distance(to: FLVTimestamp(rawValue: timestamp))
        let next = previous.addingSaturating(Int64(step))
        last = next
        return next
    }

    /// Forgets the timeline: the next timestamp is taken as it is.
    public mutating func reset() { last = nil }
}
