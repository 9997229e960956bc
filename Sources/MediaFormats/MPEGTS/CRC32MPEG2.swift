// ISO/IEC 13818-1 (2019) Annex A: the CRC_32 of PSI sections, polynomial 0x04C11DB7, register preset to all ones,
// MSB first, no final inversion (the "CRC-32/MPEG-2" variant), so a section including its CRC sums to 0.

/// The CRC_32 that ends every long-form PSI section.
public enum CRC32MPEG2 {
    /// The generator polynomial x^32 + x^26 + x^23 + … + x + 1 without its x^32 term.
    static let polynomial: UInt32 = 0x04C1_1DB7

    /// One entry per byte value: the register change for shifting that byte in, MSB first.
    private static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte) << 24
        for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ polynomial : crc << 1 }
        return crc
    }

    /// The CRC of `bytes`; over a whole section (CRC_32 included) it is 0.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crc << 8 ^ table[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ byte)] }
        return crc
    }
}
