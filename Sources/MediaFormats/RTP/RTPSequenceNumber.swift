// RFC 3550 §5.1 sequence number, §A.1 (its comparison across the 16-bit wrap).

/// A 16-bit RTP sequence number compared across its wrap: of two numbers, the later is the one reached by going
/// forward less than half the space (32,768) from the other.
public struct RTPSequenceNumber: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// Steps forward from `self` to `other`, in −32,768...32,767: 1 for the next packet, negative for an earlier one.
    public func distance(to other: RTPSequenceNumber) -> Int {
        Int(Int16(bitPattern: other.rawValue &- rawValue))
    }

    /// The number `steps` packets later, wrapping.
    public func advanced(by steps: Int) -> RTPSequenceNumber {
        RTPSequenceNumber(rawValue: rawValue &+ UInt16(truncatingIfNeeded: steps))
    }

    /// Earlier across the wrap: 65,535 < 0. Exactly half the space apart counts as earlier-by-number, so the order is total
    /// for any pair but, like the spec's, not transitive across more than half the space.
    public static func < (lhs: RTPSequenceNumber, rhs: RTPSequenceNumber) -> Bool {
        lhs.distance(to: rhs) > 0
    }

    public var description: String { String(rawValue) }
}
