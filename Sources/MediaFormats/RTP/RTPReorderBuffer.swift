// RFC 3550 §5.1: sequence numbers let a receiver put packets back in order; UDP may deliver them out of it. A short
// hold (a few tens of ms) turns reordering into order, and a gap that outlasts it into a loss the depacketizer sees.

/// Puts the RTP packets of one stream, as they arrive over UDP, back in sequence order. A packet ahead of the next one
/// expected is held until the missing ones come, until it has waited `maxWait`, or until `capacity` packets are held;
/// then the gap is given up on (the depacketizer sees it as loss) and what follows it is released in order. A packet
/// behind the next one expected (a duplicate, or one that came after its gap was given up on) is dropped and counted.
public struct RTPReorderBuffer<Packet>: Sendable where Packet: Sendable {
    public let capacity: Int
    /// Milliseconds a held packet waits for the ones before it.
    public let maxWait: Int64
    /// Packets dropped as duplicates or as too late.
    public private(set) var late = 0
    /// Packets the stream reached past a gap that was given up on.
    public private(set) var gapsGivenUp = 0

    private var next: UInt16?
    private var held: [UInt16: (packet: Packet, arrival: Int64)] = [:]

    public init(capacity: Int = 64, maxWait: Int64 = 50) {
        self.capacity = max(1, capacity)
        self.maxWait = max(0, maxWait)
    }

    /// Packets held now.
    public var heldCount: Int { held.count }

    /// Takes a packet that arrived at `arrival` (ms); returns the packets now in order, this one among them or not.
    public mutating func push(_ packet: Packet, sequenceNumber: UInt16, arrival: Int64) -> [Packet] {
        guard let expected = next else {
            next = sequenceNumber &+ 1
            return [packet]
        }
        let distance = Int16(bitPattern: sequenceNumber &- expected)
        if distance < 0 || held[sequenceNumber] != nil {
            late += 1
            return []
        }
        if distance == 0 {
            next = expected &+ 1
            var released = [packet]
            drain(into: &released)
            return released
        }
        held[sequenceNumber] = (packet, arrival)
        var released: [Packet] = []
        if held.count > capacity { giveUpGap(into: &released) }
        return released
    }

    /// The packets released because the oldest held one has waited `maxWait` by `now` (ms): call it as time passes.
    public mutating func release(now: Int64) -> [Packet] {
        var released: [Packet] = []
        while let oldest = held.values.map(\.arrival).min(), now - oldest >= maxWait {
            giveUpGap(into: &released)
        }
        return released
    }

    /// Skips to the nearest held packet and releases it and those right after it.
    private mutating func giveUpGap(into released: inout [Packet]) {
        guard let expected = next, let nearest = held.keys.min(by: { ($0 &- expected) < ($1 &- expected) }) else { return }
        gapsGivenUp += 1
        next = nearest
        drain(into: &released)
    }

    /// Releases the held packets that follow `next` without a gap.
    private mutating func drain(into released: inout [Packet]) {
        guard var expected = next else { return }
        while let entry = held.removeValue(forKey: expected) {
            released.append(entry.packet)
            expected &+= 1
        }
        next = expected
    }
}
