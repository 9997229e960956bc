// RFC 5389 §6: the 96-bit transaction ID that pairs a response with its request.

/// The 12 bytes that follow the magic cookie in every STUN header.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes in a transaction ID.
    public static let size = 12

    /// Exactly `size` bytes.
    public let bytes: [UInt8]

    /// A transaction ID from its bytes; nil unless there are exactly 12.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = bytes
    }

    /// A transaction ID from `generator` (a cryptographically random one by default, as RFC 5389 §6 asks).
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> STUNTransactionID {
        STUNTransactionID(checked: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A transaction ID from the system's random source.
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// For callers that have read exactly 12 bytes.
    init(checked bytes: [UInt8]) { self.bytes = bytes }

    public var description: String { bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined() }
}
