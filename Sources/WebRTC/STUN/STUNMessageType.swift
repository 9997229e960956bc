// RFC 5389 §6 (figure 3): the 14-bit message type interleaves a 12-bit method (M11…M0) with a 2-bit class (C1 C0).

/// The class of a STUN message: what it is for, whatever its method.
public enum STUNClass: UInt8, Sendable, Hashable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method (12 bits). ICE uses only Binding.
public struct STUNMethod: Hashable, Sendable, CustomStringConvertible {
    /// The largest method a 12-bit field holds.
    public static let maximumRawValue: UInt16 = 0x0FFF
    /// Binding (RFC 5389 §18.1): connectivity checks and consent.
    public static let binding = STUNMethod(uncheckedRawValue: 0x001)

    public let rawValue: UInt16

    /// A method from its number; nil when it does not fit in 12 bits.
    public init?(rawValue: UInt16) {
        guard rawValue <= Self.maximumRawValue else { return nil }
        self.rawValue = rawValue
    }

    private init(uncheckedRawValue: UInt16) { rawValue = uncheckedRawValue }

    public var description: String { self == .binding ? "Binding" : "method 0x\(String(rawValue, radix: 16))" }
}

/// A STUN message type: a method and a class, as the header's 14-bit field carries them.
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    public var method: STUNMethod
    public var messageClass: STUNClass

    /// A Binding request (an ICE connectivity check or consent check).
    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    /// A Binding indication (an ICE keepalive).
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    /// A Binding success response.
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    /// A Binding error response.
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)

    /// - Parameters:
    ///   - method: the STUN method.
    ///   - messageClass: request, indication, success or error response.
    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// The type read from the header's 14 low bits (the two top bits of `rawValue` are ignored).
    public init(rawValue: UInt16) {
        // Bits 0-3 are M0-M3, bit 4 is C0, bits 5-7 are M4-M6, bit 8 is C1, bits 9-13 are M7-M11.
        let method = (rawValue & 0x000F) | (rawValue & 0x00E0) >> 1 | (rawValue & 0x3E00) >> 2
        let classBits = UInt8(truncatingIfNeeded: (rawValue >> 4) & 0b01 | (rawValue >> 7) & 0b10)
        self.method = STUNMethod(rawValue: method) ?? .binding
        self.messageClass = STUNClass(rawValue: classBits) ?? .request
    }

    /// The 14-bit field as the header carries it.
    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0b01) << 4 | (c & 0b10) << 7
    }

    public var description: String {
        switch messageClass {
        case .request: "\(method) request"
        case .indication: "\(method) indication"
        case .successResponse: "\(method) success response"
        case .errorResponse: "\(method) error response"
        }
    }
}
