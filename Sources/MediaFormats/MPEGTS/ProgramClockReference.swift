// ISO/IEC 13818-1 (2019) §2.4.3.5 (program_clock_reference_base, 33 bits at 90 kHz; reserved, 6 bits;
// program_clock_reference_extension, 9 bits counting 27 MHz cycles 0...299) and §2.4.2.2 (PCR = base × 300 + ext).

/// A PCR or OPCR: the 27 MHz system clock sample carried in an adaptation field.
public struct ProgramClockReference: Sendable, Equatable, Hashable {
    /// The encoded field's length: 33 + 6 + 9 bits.
    public static let encodedSize = 6
    /// 27 MHz ticks per 90 kHz tick.
    public static let ticksPerBaseTick: Int64 = 300
    /// The base wraps at 2^33.
    public static let baseModulus: Int64 = 1 << 33

    /// program_clock_reference_base: 90 kHz units, 0 ..< 2^33.
    public let base: Int64
    /// program_clock_reference_extension: 0...299 (the field holds up to 511; values past 299 are kept as read).
    public let extensionValue: Int

    /// A PCR from its fields; `base` is taken modulo 2^33, `extensionValue` must fit 9 bits.
    public init(base: Int64, extensionValue: Int = 0) {
        precondition((0..<512).contains(extensionValue), "program_clock_reference_extension is 9 bits")
        self.base = base & (Self.baseModulus - 1)
        self.extensionValue = extensionValue
    }

    /// The clock in 27 MHz ticks (base × 300 + extension).
    public var ticks27MHz: Int64 { base * Self.ticksPerBaseTick + Int64(extensionValue) }

    /// Parses the 6-byte field.
    public init(parsing bytes: some Collection<UInt8>) throws {
        var reader = ByteReader(Array(bytes.prefix(Self.encodedSize)))
        let value = try reader.readUInt(byteCount: Self.encodedSize)
        base = Int64(value >> 15)
        extensionValue = Int(value & 0x1FF)
    }

    /// Appends the 6 bytes: 33 bits base + 6 reserved bits (111111) + 9 bits extension.
    public func write(into out: inout [UInt8]) {
        let value = UInt64(base) << 15 | 0x3F << 9 | UInt64(extensionValue)
        for shift in stride(from: 40, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
