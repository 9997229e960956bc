// RFC 5389 §15.4: MESSAGE-INTEGRITY, HMAC-SHA1 over the message up to it, the header's length counting the attribute
// as if it were last (so a FINGERPRINT after it is left out). ICE keys it with the receiver's ice-pwd (RFC 8445 §7.2.2).
// The only STUN file that imports Crypto: scripts/fuzz builds the others without swift-crypto.

import Crypto
import MediaFormats

/// Computing and checking MESSAGE-INTEGRITY on a message's bytes.
public enum STUNMessageIntegrity {
    /// Bytes of a MESSAGE-INTEGRITY attribute: 4 of header, 20 of HMAC-SHA1.
    public static let attributeSize = 24

    /// Appends MESSAGE-INTEGRITY to a serialized message (which must have neither it nor FINGERPRINT yet) and updates
    /// its length field.
    /// - Parameters:
    ///   - message: a message as `STUNMessage.serialized(padding:)` writes it.
    ///   - key: for short-term credentials, the password's UTF-8 bytes.
    public static func append(to message: inout [UInt8], key: [UInt8]) {
        guard message.count >= STUNMessage.headerSize else { return }
        STUNMessage.setLength(message.count - STUNMessage.headerSize + attributeSize, in: &message)
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key))
        message.appendUInt16(STUNAttributeType.messageIntegrity.rawValue)
        message.appendUInt16(UInt16(STUNAttribute.messageIntegritySize))
        message += Array(code)
    }

    /// Checks the MESSAGE-INTEGRITY of a received datagram.
    /// - Parameters:
    ///   - datagram: the whole STUN message, as received.
    ///   - key: for short-term credentials, the password's UTF-8 bytes.
    /// - Returns: `.absent` without one, `.invalid` when the HMAC does not match.
    public static func verify(_ datagram: [UInt8], key: [UInt8]) -> STUNVerification {
        guard let offset = STUNMessage.offsetOfAttribute(.messageIntegrity, in: datagram) else { return .absent }
        guard offset + attributeSize <= datagram.count, datagram[offset + 2] == 0, Int(datagram[offset + 3]) == STUNAttribute.messageIntegritySize else {
            return .invalid
        }
        var covered = Array(datagram[..<offset])
        STUNMessage.setLength(offset + attributeSize - STUNMessage.headerSize, in: &covered)
        let carried = datagram[(offset + 4)..<(offset + attributeSize)]
        // The comparison takes the same time whatever bytes differ.
        return HMAC<Insecure.SHA1>.isValidAuthenticationCode(Array(carried), authenticating: covered, using: SymmetricKey(data: key)) ? .valid : .invalid
    }
}

extension STUNMessage {
    /// The message on the wire with MESSAGE-INTEGRITY computed with `integrityKey` and, when asked, FINGERPRINT after
    /// it; any MESSAGE-INTEGRITY or FINGERPRINT already among the attributes is left out.
    /// - Parameters:
    ///   - integrityKey: for short-term credentials (ICE), the password's UTF-8 bytes.
    ///   - fingerprint: whether to end with FINGERPRINT (ICE's checks and responses always do).
    ///   - padding: the padding byte, as in `serialized(padding:)`.
    public func serialized(integrityKey: [UInt8], fingerprint: Bool = true, padding: UInt8 = 0) -> [UInt8] {
        var unsigned = self
        unsigned.attributes.removeAll { $0.type == .messageIntegrity || $0.type == .fingerprint }
        var bytes = unsigned.serialized(padding: padding)
        STUNMessageIntegrity.append(to: &bytes, key: integrityKey)
        if fingerprint { STUNFingerprint.append(to: &bytes) }
        return bytes
    }
}
