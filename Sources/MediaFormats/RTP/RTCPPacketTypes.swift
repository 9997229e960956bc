// RFC 3550 §6.1 (compound RTCP packets: each packet's header gives its type and its length in 32-bit words minus one),
// §6.4.1 SR (200), §6.6 BYE (203).

/// The packet types of a compound RTCP packet, read from the headers alone.
public enum RTCPCompound {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let goodbye: UInt8 = 203

    /// One packet of a compound: its type, the 5-bit count (or FMT) field of its first byte, and where it lies.
    struct Packet {
        let type: UInt8
        let count: UInt8
        /// The whole packet, header included.
        let range: Range<Int>

        /// The 32-bit word at `offset` from the packet's start; the caller checks the packet is long enough.
        func word(_ offset: Int, in bytes: [UInt8]) -> UInt32 {
            bytes[range.lowerBound + offset ..< range.lowerBound + offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    /// The packets of `bytes`, in order; reading stops at the first header that is not RTCP version 2 or whose length
    /// runs past the end (what was read before it stands). Every reader of a compound walks it here.
    static func packets(_ bytes: [UInt8]) -> [Packet] {
        var packets: [Packet] = []
        var offset = 0
        // 2 bits version + 1 bit padding + 5 bits count, 8 bits type, 16 bits length in words minus one.
        while offset + 4 <= bytes.count, bytes[offset] >> 6 == 2 {
            let end = offset + 4 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) * 4
            guard end <= bytes.count else { break }
            packets.append(Packet(type: bytes[offset + 1], count: bytes[offset] & 0x1F, range: offset ..< end))
            offset = end
        }
        return packets
    }

    /// The packet types in `bytes`, in order (`packets`' rule for where reading stops).
    public static func packetTypes(_ bytes: [UInt8]) -> [UInt8] {
        packets(bytes).map(\.type)
    }

    /// Whether the sender said goodbye (a BYE packet in the compound): its stream ended.
    public static func saysGoodbye(_ bytes: [UInt8]) -> Bool {
        packetTypes(bytes).contains(goodbye)
    }
}
