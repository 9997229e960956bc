// ISO/IEC 14496-12 (2022) §4.2 Object structure: a box type, a brand (§4.3) and a handler type (§8.4.3) are each
// four bytes, usually printable ASCII, compared as a 32-bit big-endian value.

/// A four-character code: a box type, a brand, a handler or a sample entry name.
public struct MP4FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The four bytes as a big-endian integer ('ftyp' is 0x66747970).
    public let rawValue: UInt32

    /// A code from its big-endian value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A code from four bytes.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// A code written in the source as a four-character ASCII literal ("moov"); anything else is a programming error.
    public init(stringLiteral text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count == 4, "a four-character code has four ASCII characters, not \"\(text)\"")
        self.init(bytes[0], bytes[1], bytes[2], bytes[3])
    }

    /// The four bytes in file order.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    /// The code as text; a byte outside printable ASCII shows as "?" (a type read from garbage).
    public var description: String { FourCCText.string(rawValue) }
}

extension Array where Element == UInt8 {
    /// Appends the four bytes of `code`.
    @inlinable
    public mutating func appendFourCC(_ code: MP4FourCC) {
        appendUInt32(code.rawValue)
    }
}
