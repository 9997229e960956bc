// RFC 5389 §18.2 and RFC 8445 §16.1: the attribute type numbers ICE uses. Types below 0x8000 are
// comprehension-required (RFC 5389 §15): a request carrying one this agent does not know gets a 420.

/// A STUN attribute's 16-bit type.
public struct STUNAttributeType: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    public static let username = STUNAttributeType(rawValue: 0x0006)
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// RFC 8445 §16.1.
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    /// RFC 8445 §16.1.
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    public static let software = STUNAttributeType(rawValue: 0x8022)
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    /// RFC 8445 §16.1.
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    /// RFC 8445 §16.1.
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    /// Whether an agent that does not know this type must refuse the message (types 0x0000-0x7FFF).
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    public var description: String {
        switch self {
        case .mappedAddress: "MAPPED-ADDRESS"
        case .username: "USERNAME"
        case .messageIntegrity: "MESSAGE-INTEGRITY"
        case .errorCode: "ERROR-CODE"
        case .unknownAttributes: "UNKNOWN-ATTRIBUTES"
        case .xorMappedAddress: "XOR-MAPPED-ADDRESS"
        case .priority: "PRIORITY"
        case .useCandidate: "USE-CANDIDATE"
        case .software: "SOFTWARE"
        case .fingerprint: "FINGERPRINT"
        case .iceControlled: "ICE-CONTROLLED"
        case .iceControlling: "ICE-CONTROLLING"
        default: "attribute 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}
