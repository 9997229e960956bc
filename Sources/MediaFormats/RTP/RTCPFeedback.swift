// RFC 4585 §6.1 (the common format of feedback messages), §6.2.1 Generic NACK (RTPFB, FMT 1), §6.3.1 Picture Loss
// Indication (PSFB, FMT 1); RFC 5104 §4.3.1 Full Intra Request (PSFB, FMT 4).

/// One transport-layer or payload-specific feedback message: what a receiver asks of a media sender.
public enum RTCPFeedback: Sendable, Equatable {
    /// Retransmit these packets of `mediaSSRC`, as PID/BLP pairs (`RTCPNackItem`).
    case nack(senderSSRC: UInt32, mediaSSRC: UInt32, items: [RTCPNackItem])
    /// The decoder lost a picture: send a keyframe.
    case pictureLoss(senderSSRC: UInt32, mediaSSRC: UInt32)
    /// Send a keyframe now (`sequenceNumber` tells a repeated request from a new one).
    case fullIntraRequest(senderSSRC: UInt32, mediaSSRC: UInt32, sequenceNumber: UInt8)

    /// RTPFB: transport-layer feedback.
    public static let transportLayerType: UInt8 = 205
    /// PSFB: payload-specific feedback.
    public static let payloadSpecificType: UInt8 = 206
    /// FMT of a Generic NACK under RTPFB.
    static let genericNack: UInt8 = 1
    /// FMT of a PLI under PSFB.
    static let pictureLossIndication: UInt8 = 1
    /// FMT of a FIR under PSFB.
    static let fullIntraRequestFormat: UInt8 = 4
    /// The most NACK items one message carries here: 16 lost packets each, 1,024 packets in all, far more than a
    /// jitter buffer holds.
    public static let maxNackItems = 64

    /// The message as one RTCP packet (to be sent inside a compound, or alone under RFC 5506's reduced size).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        switch self {
        case let .nack(sender, media, items):
            let items = items.prefix(Self.maxNackItems)
            header(into: &out, format: Self.genericNack, type: Self.transportLayerType, words: 2 + items.count, sender: sender, media: media)
            for item in items {
                out.appendUInt16(item.packetID)
                out.appendUInt16(item.bitmask)
            }
        case let .pictureLoss(sender, media):
            header(into: &out, format: Self.pictureLossIndication, type: Self.payloadSpecificType, words: 2, sender: sender, media: media)
        case let .fullIntraRequest(sender, media, sequenceNumber):
            // The media source field is 0 in a FIR (RFC 5104 §4.3.1.2): the target is in the FCI entry.
            header(into: &out, format: Self.fullIntraRequestFormat, type: Self.payloadSpecificType, words: 4, sender: sender, media: 0)
            out.appendUInt32(media)
            out += [sequenceNumber, 0, 0, 0]
        }
        return out
    }

    /// V=2, P=0, FMT (5 bits), PT, length in words minus one, then the sender's and the media source's SSRCs.
    private func header(into out: inout [UInt8], format: UInt8, type: UInt8, words: Int, sender: UInt32, media: UInt32) {
        out += [0x80 | format, type]
        out.appendUInt16(UInt16(words))
        out.appendUInt32(sender)
        out.appendUInt32(media)
    }

    /// The feedback messages of a compound RTCP packet this worker acts on (NACK, PLI, FIR), in order; other packets
    /// and feedback types are skipped. Reading stops at the first header that is not version 2 or runs past the
    /// end; a feedback packet too short for what its FMT needs is skipped (a peer's bug must not end the session).
    public static func messages(in bytes: [UInt8]) -> [RTCPFeedback] {
        var found: [RTCPFeedback] = []
        for packet in RTCPCompound.packets(bytes) where packet.range.count >= 12 {
            let sender = packet.word(4, in: bytes)
            let media = packet.word(8, in: bytes)
            switch (packet.type, packet.count) {
            case (transportLayerType, genericNack):
                var items: [RTCPNackItem] = []
                var at = packet.range.lowerBound + 12
                while at + 4 <= packet.range.upperBound, items.count < maxNackItems {
                    items.append(RTCPNackItem(packetID: UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]),
                                              bitmask: UInt16(bytes[at + 2]) << 8 | UInt16(bytes[at + 3])))
                    at += 4
                }
                if !items.isEmpty { found.append(.nack(senderSSRC: sender, mediaSSRC: media, items: items)) }
            case (payloadSpecificType, pictureLossIndication):
                found.append(.pictureLoss(senderSSRC: sender, mediaSSRC: media))
            case (payloadSpecificType, fullIntraRequestFormat):
                // One FCI entry of 8 bytes per requested source.
                var offset = 12
                while offset + 8 <= packet.range.count {
                    found.append(.fullIntraRequest(senderSSRC: sender, mediaSSRC: packet.word(offset, in: bytes),
                                                   sequenceNumber: bytes[packet.range.lowerBound + offset + 4]))
                    offset += 8
                }
            default:
                break
            }
        }
        return found
    }
}

/// One Generic NACK entry (RFC 4585 §6.2.1): the lost packet `packetID` and, bit i of `bitmask` set, packet
/// `packetID + i + 1` lost too.
public struct RTCPNackItem: Sendable, Equatable {
    public var packetID: UInt16
    public var bitmask: UInt16

    /// The sequence numbers this entry names, in order.
    public var sequenceNumbers: [RTPSequenceNumber] {
        let first = RTPSequenceNumber(packetID)
        return [first] + (0 ..< 16).compactMap { bit in bitmask >> bit & 1 == 1 ? first.advanced(by: bit + 1) : nil }
    }

    /// The fewest entries naming `lost` (in sequence order across the wrap; duplicates named once).
    public static func items(naming lost: [RTPSequenceNumber]) -> [RTCPNackItem] {
        var items: [RTCPNackItem] = []
        for number in Set(lost).sorted() {
            if let last = items.last {
                let distance = RTPSequenceNumber(last.packetID).distance(to: number)
                if (1 ... 16).contains(distance) {
                    items[items.count - 1].bitmask |= 1 << (distance - 1)
                    continue
                }
            }
            items.append(RTCPNackItem(packetID: number.rawValue, bitmask: 0))
        }
        return items
    }
}
