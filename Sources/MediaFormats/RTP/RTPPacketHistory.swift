// RFC 4585 §6.2.1 (what a Generic NACK asks for) and RFC 4588 §4 (a sender keeps what it sent, for a short time, to
// send it again): the sent packets of one stream by sequence number.

/// The last `capacity` packets a sender sent on one stream (as bytes, or as `RTPPacket`s whose payloads share storage
/// with every other receiver's), so a NACK is answered with the same packet. A ring: the oldest goes when a new one
/// comes; a number asked for that has gone (or was never sent) is nil.
public struct RTPPacketHistory<Packet: Sendable>: Sendable {
    /// 1,024 packets: about 1 s of 8 Mb/s video in 1,200-byte packets, longer than a NACK is worth waiting for.
    public static var defaultCapacity: Int { 1_024 }

    private var slots: [(sequenceNumber: UInt16, packet: Packet)?]

    public init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0, "a history holds at least one packet")
        slots = Array(repeating: nil, count: capacity)
    }

    /// Keeps `packet` as packet `sequenceNumber`, over whatever held its slot.
    public mutating func record(_ sequenceNumber: UInt16, _ packet: Packet) {
        slots[Int(sequenceNumber) % slots.count] = (sequenceNumber, packet)
    }

    /// The packet sent as `sequenceNumber`, if still held.
    public func packet(_ sequenceNumber: UInt16) -> Packet? {
        guard let slot = slots[Int(sequenceNumber) % slots.count], slot.sequenceNumber == sequenceNumber else { return nil }
        return slot.packet
    }
}
