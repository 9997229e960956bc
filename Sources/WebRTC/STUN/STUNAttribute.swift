// RFC 5389 §15 (attributes as type-length-value, padded to 4 bytes) and RFC 8445 §16.1 (ICE's PRIORITY,
// USE-CANDIDATE, ICE-CONTROLLED, ICE-CONTROLLING): the attributes ICE needs, typed, and every other one kept raw.

import MediaFormats

/// One attribute of a STUN message.
public enum STUNAttribute: Hashable, Sendable {
    /// The reflexive address, in the clear (RFC 3489's form; RFC 5389 keeps it for old clients).
    case mappedAddress(TransportAddress)
    /// The reflexive address, masked with the cookie and transaction ID.
    case xorMappedAddress(TransportAddress)
    /// The credentials' user name; for ICE "<receiver's ufrag>:<sender's ufrag>". At most `maximumUsernameLength` bytes.
    case username(String)
    /// HMAC-SHA1 of the message before it (20 bytes); see `STUNMessageIntegrity`.
    case messageIntegrity([UInt8])
    /// CRC-32 of the message before it XOR 0x5354554E; see `STUNFingerprint`.
    case fingerprint(UInt32)
    case errorCode(STUNErrorCode)
    /// The attribute types a 420 response names.
    case unknownAttributes([UInt16])
    /// The priority a peer-reflexive candidate of the sender would have.
    case priority(UInt32)
    /// The controlling agent nominates the pair this check is sent on.
    case useCandidate
    /// The sender thinks it is controlled; its tie-breaker.
    case iceControlled(tieBreaker: UInt64)
    /// The sender thinks it is controlling; its tie-breaker.
    case iceControlling(tieBreaker: UInt64)
    /// The sender's software, for diagnostics. At most `maximumTextLength` bytes.
    case software(String)
    /// Any other attribute, kept as it came so nothing is lost.
    case other(type: UInt16, value: [UInt8])

    /// USERNAME's limit in bytes (RFC 5389 §15.3).
    public static let maximumUsernameLength = 513
    /// SOFTWARE's limit in bytes (RFC 5389 §15.10: fewer than 128 characters, at most 763 bytes).
    public static let maximumTextLength = 763
    /// MESSAGE-INTEGRITY's value: an HMAC-SHA1.
    public static let messageIntegritySize = 20

    /// The attribute's type number.
    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .messageIntegrity: .messageIntegrity
        case .fingerprint: .fingerprint
        case .errorCode: .errorCode
        case .unknownAttributes: .unknownAttributes
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlled: .iceControlled
        case .iceControlling: .iceControlling
        case .software: .software
        case let .other(type, _): STUNAttributeType(rawValue: type)
        }
    }

    /// Reads one attribute's value (padding excluded); the message's transaction ID unmasks XOR-MAPPED-ADDRESS.
    init(type: STUNAttributeType, value: ArraySlice<UInt8>, transactionID: STUNTransactionID) throws {
        func requireLength(_ length: Int) throws {
            guard value.count == length else {
                throw STUNError.malformed(structure: type.description, reason: "value of \(value.count) bytes, expected \(length)")
            }
        }
        func text(limit: Int) throws -> String {
            guard value.count <= limit else { throw STUNError.limitExceeded(what: "\(type) length", value: value.count, limit: limit) }
            guard let text = String(validating: value, as: UTF8.self) else {
                throw STUNError.malformed(structure: type.description, reason: "the value is not UTF-8")
            }
            return text
        }
        func integer(_ size: Int) throws -> UInt64 {
            try requireLength(size)
            return value.reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch type {
        case .mappedAddress: self = .mappedAddress(try STUNAddressAttribute.parse(value, xorWith: nil))
        case .xorMappedAddress: self = .xorMappedAddress(try STUNAddressAttribute.parse(value, xorWith: transactionID))
        case .username: self = .username(try text(limit: Self.maximumUsernameLength))
        case .messageIntegrity:
            try requireLength(Self.messageIntegritySize)
            self = .messageIntegrity(Array(value))
        case .fingerprint: self = .fingerprint(UInt32(try integer(4)))
        case .errorCode: self = .errorCode(try STUNErrorCode(parsing: value))
        case .unknownAttributes:
            guard value.count % 2 == 0 else {
                throw STUNError.malformed(structure: type.description, reason: "value of \(value.count) bytes is not a list of 16-bit types")
            }
            self = .unknownAttributes(stride(from: value.startIndex, to: value.endIndex, by: 2).map { UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]) })
        case .priority: self = .priority(UInt32(try integer(4)))
        case .useCandidate:
            try requireLength(0)
            self = .useCandidate
        case .iceControlled: self = .iceControlled(tieBreaker: try integer(8))
        case .iceControlling: self = .iceControlling(tieBreaker: try integer(8))
        case .software: self = .software(try text(limit: Self.maximumTextLength))
        default: self = .other(type: type.rawValue, value: Array(value))
        }
    }

    /// Appends the value (no header, no padding).
    func writeValue(into out: inout [UInt8], transactionID: STUNTransactionID) {
        switch self {
        case let .mappedAddress(address): STUNAddressAttribute.write(address, xorWith: nil, into: &out)
        case let .xorMappedAddress(address): STUNAddressAttribute.write(address, xorWith: transactionID, into: &out)
        case let .username(text), let .software(text): out += Array(text.utf8)
        case let .messageIntegrity(bytes): out += bytes
        case let .fingerprint(value), let .priority(value): out.appendUInt32(value)
        case let .errorCode(code): code.write(into: &out)
        case let .unknownAttributes(types): for type in types { out.appendUInt16(type) }
        case .useCandidate: break
        case let .iceControlled(tieBreaker), let .iceControlling(tieBreaker): out.appendUInt64(tieBreaker)
        case let .other(_, value): out += value
        }
    }
}
