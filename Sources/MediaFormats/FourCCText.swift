/// Four-character codes as text, for messages and descriptions: Enhanced RTMP's FourCCs and MP4's box types,
/// brands and handlers are each a UI32 whose bytes are the characters, first character most significant.
enum FourCCText {
    /// The four bytes as characters, non-printable ones as "?" (a code read from garbage).
    static func string(_ value: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
