// RFC 3550 §6.1 (compound RTCP packets: each packet's header gives its type and its length in 32-bit words minus one),
// §6.4.1 SR (200), §6.6 BYE (203).

/// The packet types of a compound RTCP packet, read from the headers alone.
public enum RTCPCompound {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let goodbye: UInt8 = 203

    /// The packet types in `bytes`, in order; reading stops at the first header that is not RTCP version 2 or whose
    /// length runs past the end (what was read before it stands).
    public static func packetTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var offset = 0
        while offset + 4 <= bytes.count, bytes[offset] >> 6 == 2 {
            let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 4 + words * 4
            guard end <= bytes.count else { break }
            types.append(bytes[offset + 1])
            offset = end
        }
        return types
    }

    /// Whether the sender said goodbye (a BYE packet in the compound): its stream ended.
    public static func saysGoodbye(_ bytes: [UInt8]) -> Bool {
        packetTypes(bytes).contains(goodbye)
    }
}
