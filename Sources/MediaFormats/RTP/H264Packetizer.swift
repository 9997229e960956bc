// RFC 6184 §5.6 (single NAL unit packet), §5.7.1 (STAP-A), §5.8 (FU-A), §6.3 (non-interleaved mode, packetization-mode=1):
// how a sender splits an access unit into RTP packets.

/// Turns H.264 access units into the RTP packets of one stream in packetization mode 1: NAL units that fit go alone, or
/// several small ones (the parameter sets before a keyframe) together in a STAP-A; one larger than the payload size is
/// cut into FU-As. The last packet of each access unit carries the marker.
public struct H264Packetizer: Sendable {
    /// The largest RTP payload: a 1,200-byte packet (what WebRTC peers keep under to pass any path's MTU with SRTP's tag
    /// and a TURN header) less the 12-byte header and room for a 16-byte header extension.
    public static let defaultMaxPayloadSize = 1_172
    /// STAP-A NAL unit type.
    static let aggregationType: UInt8 = 24
    /// FU-A NAL unit type.
    static let fragmentationType: UInt8 = 28

    public let maxPayloadSize: Int
    public let payloadType: UInt8
    public let ssrc: UInt32
    /// The next packet's sequence number.
    public private(set) var sequenceNumber: UInt16

    /// - Parameters:
    ///   - maxPayloadSize: at least 3 (an FU-A's two header bytes and one of payload).
    ///   - sequenceNumber: the first packet's, random by RFC 3550 §5.1 so a known-plaintext attack has less to go on.
    public init(payloadType: UInt8, ssrc: UInt32, sequenceNumber: UInt16, maxPayloadSize: Int = defaultMaxPayloadSize) {
        precondition(maxPayloadSize >= 3, "an FU-A needs its two header bytes and one byte of payload")
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.maxPayloadSize = maxPayloadSize
    }

    /// The packets of one access unit (NAL units without start codes or length prefixes, in decoding order) at
    /// `timestamp` (90 kHz). Empty NAL units are skipped; an access unit with none gives no packet.
    public mutating func packetize(_ nalUnits: [[UInt8]], timestamp: UInt32) -> [RTPPacket] {
        let payloads = payloads(of: nalUnits)
        return payloads.enumerated().map { index, payload in
            defer { sequenceNumber &+= 1 }
            return RTPPacket(marker: index == payloads.count - 1, payloadType: payloadType, sequenceNumber: sequenceNumber,
                             timestamp: timestamp, ssrc: ssrc, payload: payload[...])
        }
    }

    /// The payloads of one access unit's packets, in order (the last one's packet carries the marker): what
    /// `packetize` numbers, and what a sender to many receivers makes once and numbers for each.
    public func payloads(of nalUnits: [[UInt8]]) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var aggregate: [[UInt8]] = []
        var aggregateSize = 1
        func flushAggregate() {
            if aggregate.count == 1 {
                payloads.append(aggregate[0])
            } else if aggregate.count > 1 {
                // STAP-A header: F as any unit's, NRI the highest of the units', type 24.
                let nri = aggregate.map { $0[0] & 0x60 }.max() ?? 0
                let forbidden = aggregate.contains { $0[0] & 0x80 != 0 } ? UInt8(0x80) : 0
                var payload: [UInt8] = [forbidden | nri | Self.aggregationType]
                payload.reserveCapacity(aggregateSize)
                for unit in aggregate {
                    payload.appendUInt16(UInt16(unit.count))
                    payload += unit
                }
                payloads.append(payload)
            }
            aggregate.removeAll()
            aggregateSize = 1
        }
        for unit in nalUnits where !unit.isEmpty {
            if unit.count > maxPayloadSize {
                flushAggregate()
                fragment(unit, into: &payloads)
            } else if unit.count <= UInt16.max, aggregateSize + 2 + unit.count <= maxPayloadSize {
                aggregate.append(unit)
                aggregateSize += 2 + unit.count
            } else {
                flushAggregate()
                aggregate.append(unit)
                aggregateSize += 2 + unit.count
            }
        }
        flushAggregate()
        return payloads
    }

    /// FU-As of `unit`: the indicator keeps F and NRI, the header S/E and the unit's type; the unit's own header byte is
    /// not sent (the receiver rebuilds it from the two).
    private func fragment(_ unit: [UInt8], into payloads: inout [[UInt8]]) {
        let header = unit[0]
        let indicator = header & 0xE0 | Self.fragmentationType
        let chunk = maxPayloadSize - 2
        var offset = 1
        while offset < unit.count {
            let end = min(offset + chunk, unit.count)
            // FU header: 1 bit S + 1 bit E + 1 bit R (0) + 5 bits the unit's type.
            let start: UInt8 = offset == 1 ? 0x80 : 0
            let last: UInt8 = end == unit.count ? 0x40 : 0
            var payload: [UInt8] = [indicator, start | last | header & 0x1F]
            payload.reserveCapacity(2 + end - offset)
            payload += unit[offset ..< end]
            payloads.append(payload)
            offset = end
        }
    }
}
