// RFC 5389 §6 (header: two zero bits, type, length, magic cookie, transaction ID) and §15 (attributes padded to
// 4 bytes; nothing but FINGERPRINT after MESSAGE-INTEGRITY, FINGERPRINT last), as RFC 8489 keeps them.

import MediaFormats

/// A STUN message: its type, transaction ID and attributes in wire order.
///
/// `init(parsing:)` reads one whole datagram and throws `STUNError` naming what was wrong; `serialized(padding:)`
/// writes the attributes as they are. Computing MESSAGE-INTEGRITY and FINGERPRINT on the way out is
/// `serialized(integrityKey:fingerprint:padding:)` and `STUNFingerprint.append(to:)`; checking them on the way in is
/// `STUNMessageIntegrity.verify(_:key:)` and `STUNFingerprint.verify(_:)`, on the datagram's own bytes.
public struct STUNMessage: Hashable, Sendable {
    /// Bytes of the fixed header.
    public static let headerSize = 20
    /// The fixed value in bytes 4...7 that tells STUN from other traffic on the port.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The largest message accepted: one Ethernet-sized datagram (a WebRTC check is about 100 bytes).
    public static let maximumSize = 1500

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// In wire order. Attributes that follow MESSAGE-INTEGRITY (other than FINGERPRINT) are not here: RFC 5389 §15.4
    /// says to ignore them, since the integrity does not cover them.
    public var attributes: [STUNAttribute]

    /// - Parameters:
    ///   - type: method and class.
    ///   - transactionID: the request's ID, or the ID of the request a response answers.
    ///   - attributes: in the order they are to be written.
    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// Reads one STUN message that fills `bytes` exactly (one UDP datagram).
    public init(parsing bytes: [UInt8]) throws {
        let header = try Self.readHeader(bytes)
        type = header.type
        transactionID = header.transactionID
        attributes = []
        var offset = Self.headerSize
        var afterIntegrity = false
        var afterFingerprint = false
        while offset < bytes.count {
            guard !afterFingerprint else { throw STUNError.malformed(structure: "FINGERPRINT", reason: "is not the last attribute") }
            guard bytes.count - offset >= 4 else {
                throw STUNError.truncated(structure: "STUN attribute header", needed: 4, available: bytes.count - offset)
            }
            let attributeType = STUNAttributeType(rawValue: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let valueStart = offset + 4
            guard Self.padded(length) <= bytes.count - valueStart else {
                throw STUNError.malformed(structure: attributeType.description,
                                          reason: "value of \(length) bytes (padded to \(Self.padded(length))) runs past the end of the message, \(bytes.count - valueStart) bytes left")
            }
            offset = valueStart + Self.padded(length)
            if afterIntegrity && attributeType != .fingerprint { continue }
            attributes.append(try STUNAttribute(type: attributeType, value: bytes[valueStart..<(valueStart + length)], transactionID: transactionID))
            if attributeType == .messageIntegrity { afterIntegrity = true }
            if attributeType == .fingerprint { afterFingerprint = true }
        }
    }

    /// The message on the wire. Padding bytes are `padding` (RFC 5389 lets them be anything; RFC 5769's vectors use
    /// spaces). MESSAGE-INTEGRITY and FINGERPRINT attributes are written with the values they hold.
    public func serialized(padding: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerSize + 64)
        out.appendUInt16(type.rawValue)
        // The length is patched once the attributes are written.
        out.appendUInt16(0)
        out.appendUInt32(Self.magicCookie)
        out += transactionID.bytes
        for attribute in attributes {
            out.appendUInt16(attribute.type.rawValue)
            let lengthAt = out.count
            out.appendUInt16(0)
            attribute.writeValue(into: &out, transactionID: transactionID)
            let length = out.count - lengthAt - 2
            out[lengthAt] = UInt8(truncatingIfNeeded: length >> 8)
            out[lengthAt + 1] = UInt8(truncatingIfNeeded: length)
            out += repeatElement(padding, count: Self.padded(length) - length)
        }
        Self.setLength(out.count - Self.headerSize, in: &out)
        return out
    }

    // MARK: Attributes ICE reads

    /// The first USERNAME.
    public var username: String? { attributes.lazy.compactMap { if case let .username(value) = $0 { value } else { nil } }.first }
    /// The first PRIORITY.
    public var priority: UInt32? { attributes.lazy.compactMap { if case let .priority(value) = $0 { value } else { nil } }.first }
    /// Whether USE-CANDIDATE is present.
    public var useCandidate: Bool { attributes.contains(.useCandidate) }
    /// ICE-CONTROLLED's tie-breaker.
    public var iceControlled: UInt64? { attributes.lazy.compactMap { if case let .iceControlled(value) = $0 { value } else { nil } }.first }
    /// ICE-CONTROLLING's tie-breaker.
    public var iceControlling: UInt64? { attributes.lazy.compactMap { if case let .iceControlling(value) = $0 { value } else { nil } }.first }
    /// The first XOR-MAPPED-ADDRESS.
    public var xorMappedAddress: TransportAddress? {
        attributes.lazy.compactMap { if case let .xorMappedAddress(value) = $0 { value } else { nil } }.first
    }
    /// The first ERROR-CODE.
    public var errorCode: STUNErrorCode? { attributes.lazy.compactMap { if case let .errorCode(value) = $0 { value } else { nil } }.first }
    /// Whether MESSAGE-INTEGRITY is present.
    public var hasMessageIntegrity: Bool { attributes.contains { $0.type == .messageIntegrity } }
    /// The comprehension-required attribute types (below 0x8000) this implementation does not know, in wire order.
    public var unknownComprehensionRequired: [UInt16] {
        attributes.compactMap { if case let .other(type, _) = $0, type < 0x8000 { type } else { nil } }
    }

    // MARK: Wire helpers shared with the checksums

    /// A value's length rounded up to the 4-byte boundary the next attribute starts on.
    static func padded(_ length: Int) -> Int { (length + 3) & ~3 }

    /// Writes the header's 16-bit length field.
    static func setLength(_ length: Int, in bytes: inout [UInt8]) {
        bytes[2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: length)
    }

    /// Checks the 20-byte header against the datagram and reads its type and transaction ID.
    static func readHeader(_ bytes: [UInt8]) throws -> (type: STUNMessageType, transactionID: STUNTransactionID) {
        guard bytes.count >= headerSize else { throw STUNError.truncated(structure: "STUN header", needed: headerSize, available: bytes.count) }
        guard bytes.count <= maximumSize else { throw STUNError.limitExceeded(what: "STUN message size", value: bytes.count, limit: maximumSize) }
        guard bytes[0] & 0xC0 == 0 else { throw STUNError.malformed(structure: "STUN header", reason: "the first two bits are not zero") }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length % 4 == 0 else { throw STUNError.malformed(structure: "STUN header", reason: "message length \(length) is not a multiple of 4") }
        let cookie = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        guard cookie == magicCookie else {
            throw STUNError.malformed(structure: "STUN header", reason: "magic cookie 0x\(String(cookie, radix: 16, uppercase: true)) is not 0x2112A442")
        }
        guard headerSize + length <= bytes.count else {
            throw STUNError.truncated(structure: "STUN message", needed: headerSize + length, available: bytes.count)
        }
        guard headerSize + length == bytes.count else {
            throw STUNError.malformed(structure: "STUN message", reason: "\(bytes.count - headerSize - length) bytes follow the message length \(length)")
        }
        let type = STUNMessageType(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        return (type, STUNTransactionID(checked: Array(bytes[8..<headerSize])))
    }

    /// Where the first attribute of `type` starts (its 4-byte header) in a datagram whose header is valid, without
    /// reading any value; nil when it is absent or the datagram is not a well-formed message.
    static func offsetOfAttribute(_ type: STUNAttributeType, in bytes: [UInt8]) -> Int? {
        guard (try? readHeader(bytes)) != nil else { return nil }
        var offset = headerSize
        while bytes.count - offset >= 4 {
            let found = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard padded(length) <= bytes.count - offset - 4 else { return nil }
            if found == type.rawValue { return offset }
            offset += 4 + padded(length)
        }
        return nil
    }
}
