// RFC 5389 §15.6: ERROR-CODE, a class (3...6) and number (0...99) with a UTF-8 reason phrase.

/// The value of an ERROR-CODE attribute.
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// Codes a STUN error response can carry (class 3...6, number 0...99).
    public static let validCodes = 300...699
    /// A reason phrase's limit in bytes (RFC 5389 §15.6: fewer than 128 characters, at most 763 bytes).
    public static let maximumReasonLength = 763

    /// 400 Bad Request: malformed, or a required attribute missing.
    public static let badRequest = STUNErrorCode(checkedCode: 400, reason: "Bad Request")
    /// 401 Unauthorized: wrong or failing credentials.
    public static let unauthorized = STUNErrorCode(checkedCode: 401, reason: "Unauthorized")
    /// 420 Unknown Attribute: a comprehension-required attribute this agent does not know.
    public static let unknownAttribute = STUNErrorCode(checkedCode: 420, reason: "Unknown Attribute")
    /// 487 Role Conflict (RFC 8445 §16.2).
    public static let roleConflict = STUNErrorCode(checkedCode: 487, reason: "Role Conflict")

    /// 300...699.
    public let code: Int
    public let reason: String

    /// - Parameters:
    ///   - code: 300...699; any other gives nil.
    ///   - reason: the reason phrase; longer than `maximumReasonLength` bytes of UTF-8 gives nil.
    public init?(code: Int, reason: String) {
        guard Self.validCodes.contains(code), reason.utf8.count <= Self.maximumReasonLength else { return nil }
        self.code = code
        self.reason = reason
    }

    private init(checkedCode: Int, reason: String) {
        self.code = checkedCode
        self.reason = reason
    }

    /// Reads the attribute's value: 21 reserved bits, the class (3 bits), the number (8 bits), the reason.
    init(parsing value: ArraySlice<UInt8>) throws {
        guard value.count >= 4 else { throw STUNError.truncated(structure: "ERROR-CODE", needed: 4, available: value.count) }
        let start = value.startIndex
        let errorClass = Int(value[start + 2] & 0x07)
        let number = Int(value[start + 3])
        guard (3...6).contains(errorClass), number <= 99 else {
            throw STUNError.malformed(structure: "ERROR-CODE", reason: "class \(errorClass) number \(number) is not a code in 300...699")
        }
        let reasonBytes = value[(start + 4)...]
        guard reasonBytes.count <= Self.maximumReasonLength else {
            throw STUNError.limitExceeded(what: "ERROR-CODE reason length", value: reasonBytes.count, limit: Self.maximumReasonLength)
        }
        guard let reason = String(validating: reasonBytes, as: UTF8.self) else {
            throw STUNError.malformed(structure: "ERROR-CODE", reason: "the reason phrase is not UTF-8")
        }
        self.code = errorClass * 100 + number
        self.reason = reason
    }

    func write(into out: inout [UInt8]) {
        // 16 reserved bits, 5 more reserved bits and the 3-bit class, then the 8-bit number.
        out += [0, 0, UInt8(code / 100), UInt8(code % 100)]
        out += Array(reason.utf8)
    }

    public var description: String { "\(code) \(reason)" }
}
