// RFC 4585 §6.2.1 (what a Generic NACK asks for) and RFC 4588 §4 (a sender keeps what it sent, for a short time, to
// send it again): the sent packets of one stream by sequence number.

/// The last `capacity` packets a sender sent on one stream, serialized, so a NACK is answered with the same bytes.
/// A ring: the oldest goes when a new one comes; a number asked for that has gone (or was never sent) is nil.
public struct RTPPacketHistory: Sendable {
    /// 1,024 packets: about 1 s of 8 Mb/s video in 1,200-byte packets, longer than a NACK is worth waiting for.
    public static let defaultCapacity = 1_024

    private var slots: [(sequenceNumber: UInt16, bytes: [UInt8])?]

    public init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0, "a history holds at least one packet")
        slots = Array(repeating: nil, count: capacity)
    }

    /// Keeps `bytes` as packet `sequenceNumber`, over whatever held its slot.
    public mutating func record(_ sequenceNumber: UInt16, _ bytes: [UInt8]) {
        slots[Int(sequenceNumber) % slots.count] = (sequenceNumber, bytes)
    }

    /// The bytes sent as `sequenceNumber`, if still held.
    public func packet(_ sequenceNumber: UInt16) -> [UInt8]? {
        guard let slot = slots[Int(sequenceNumber) % slots.count], slot.sequenceNumber == sequenceNumber else { return nil }
        return slot.bytes
    }
}
