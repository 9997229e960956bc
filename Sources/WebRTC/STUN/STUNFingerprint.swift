// RFC 5389 §15.5: FINGERPRINT, the CRC-32 of the message up to it (its length field already counting FINGERPRINT)
// XOR 0x5354554E; always the last attribute. It tells STUN from the other protocols sharing the port.

import MediaFormats

/// Computing and checking FINGERPRINT on a message's bytes.
public enum STUNFingerprint {
    /// XORed into the CRC so a CRC-32 some other protocol carries is not taken for a fingerprint.
    public static let xorValue: UInt32 = 0x5354_554E
    /// Bytes of a FINGERPRINT attribute: 4 of header, 4 of value.
    public static let attributeSize = 8

    /// Appends FINGERPRINT to a serialized message (which must not have one yet) and updates its length field.
    /// - Parameter message: a message as `STUNMessage.serialized(padding:)` writes it.
    public static func append(to message: inout [UInt8]) {
        guard message.count >= STUNMessage.headerSize else { return }
        STUNMessage.setLength(message.count - STUNMessage.headerSize + attributeSize, in: &message)
        let value = CRC32.checksum(message) ^ xorValue
        message.appendUInt16(STUNAttributeType.fingerprint.rawValue)
        message.appendUInt16(4)
        message.appendUInt32(value)
    }

    /// Checks the FINGERPRINT of a received datagram.
    /// - Parameter datagram: the whole STUN message, as received.
    /// - Returns: `.absent` without one, `.invalid` when it does not match or is not last.
    public static func verify(_ datagram: [UInt8]) -> STUNVerification {
        guard let offset = STUNMessage.offsetOfAttribute(.fingerprint, in: datagram) else { return .absent }
        guard offset + attributeSize == datagram.count, datagram[offset + 2] == 0, datagram[offset + 3] == 4 else { return .invalid }
        let carried = UInt32(datagram[offset + 4]) << 24 | UInt32(datagram[offset + 5]) << 16 | UInt32(datagram[offset + 6]) << 8 | UInt32(datagram[offset + 7])
        return carried == CRC32.checksum(datagram[..<offset]) ^ xorValue ? .valid : .invalid
    }
}
