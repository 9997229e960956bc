// RFC 4648 §4 base 64 (the SDP's sprop-parameter-sets, sprop-vps/sps/pps, RTSP's Basic credentials); MediaFormats
// has no Foundation.

/// The standard base 64 alphabet: decoding with padding optional, encoding with padding.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base 64, padded to a multiple of four characters.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            characters.append(alphabet[Int(group >> 18 & 0x3F)])
            characters.append(alphabet[Int(group >> 12 & 0x3F)])
            characters.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 0x3F)])
            characters.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 0x3F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The octets of `text`; nil for a character outside the alphabet, padding before the end, or a lone final character.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for character in text.utf8 {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Six bits left over are a character that cannot end a whole octet; more than two '=' are not padding.
        guard bits < 6, padding <= 2 else { return nil }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
