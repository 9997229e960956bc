// ISO 3309 / ITU-T V.42 CRC-32 (the one RFC 5389 §15.5 names): reflected polynomial 0xEDB88320, initial and final XOR
// 0xFFFFFFFF, one byte at a time through a 256-entry table.

/// The table, computed once on first use (a global `let` is initialized lazily and exactly once).
private let crc32Table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
}

/// The CRC-32 of bytes, as zlib and Ethernet compute it.
public enum CRC32 {
    /// The CRC-32 of `bytes` ("123456789" gives 0xCBF43926).
    public static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crc32Table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
