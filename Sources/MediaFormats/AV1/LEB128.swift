// AV1 Bitstream & Decoding Process Specification (2019, with errata) §4.10.5 leb128(): little-endian base-128 sizes,
// at most 8 bytes, whose value must fit 32 bits.

/// Reading and writing of AV1's leb128() values.
public enum LEB128 {
    /// leb128() reads at most 8 bytes.
    public static let maxBytes = 8
    /// "the value returned from the leb128 parsing process is less than or equal to (1 << 32) − 1".
    public static let maxValue = UInt64(UInt32.max)

    /// Reads one value; more than 8 bytes or a value over 2^32 − 1 throws `.invalid`.
    public static func read(from reader: inout ByteReader) throws -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<maxBytes {
            let byte = try reader.readUInt8()
            value |= UInt64(byte & 0x7F) << (7 * UInt64(i))
            guard byte & 0x80 != 0 else {
                guard value <= maxValue else {
                    throw MediaFormatError.invalid(structure: "leb128", reason: "value \(value) over 2^32 − 1")
                }
                return value
            }
        }
        throw MediaFormatError.invalid(structure: "leb128", reason: "more than 8 bytes")
    }

    /// Appends `value` in the fewest bytes; values over 2^32 − 1 throw `.limitExceeded`.
    public static func write(_ value: UInt64, into out: inout [UInt8]) throws {
        guard value <= maxValue else {
            throw MediaFormatError.limitExceeded(what: "leb128 value", value: Int(clamping: value), limit: Int(maxValue))
        }
        var rest = value
        repeat {
            // 7 bits of the value, low first; bit 7 set when more bytes follow.
            let byte = UInt8(rest & 0x7F)
            rest >>= 7
            out.append(rest == 0 ? byte : byte | 0x80)
        } while rest != 0
    }
}
