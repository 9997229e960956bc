/// An MSB-first bit reader with Exp-Golomb codes (ITU-T H.264 §7.2, §9.1) over RBSP bytes,
/// i.e. after emulation-prevention bytes are removed. Short input throws `.truncated`.
public struct BitReader: Sendable {
    public let bytes: [UInt8]
    /// Absolute bit position of the next bit.
    public private(set) var bitPosition: Int = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    public var bitsRemaining: Int { bytes.count * 8 - bitPosition }
    public var isByteAligned: Bool { bitPosition % 8 == 0 }

    public mutating func readBit() throws -> UInt32 {
        guard bitsRemaining >= 1 else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        let byte = bytes[bitPosition >> 3]
        let bit = (byte >> (7 - UInt8(bitPosition & 7))) & 1
        bitPosition += 1
        return UInt32(bit)
    }

    public mutating func readFlag() throws -> Bool { try readBit() == 1 }

    /// `count` bits (0...32) as an unsigned value; does not advance when short.
    public mutating func readBits(_ count: Int) throws -> UInt32 {
        precondition((0...32).contains(count), "readBits takes 0...32")
        guard bitsRemaining >= count else {
            throw MediaFormatError.truncated(needed: (count + 7) / 8, available: bitsRemaining / 8)
        }
        var value: UInt64 = 0
        for _ in 0..<count { value = value << 1 | UInt64(try readBit()) }
        return UInt32(truncatingIfNeeded: value)
    }

    public mutating func skipBits(_ count: Int) throws {
        guard count >= 0, bitsRemaining >= count else {
            throw MediaFormatError.truncated(needed: (count + 7) / 8, available: bitsRemaining / 8)
        }
        bitPosition += count
    }

    /// ue(v): unsigned Exp-Golomb. More than 31 leading zeros cannot encode a 32-bit value.
    public mutating func readUE() throws -> UInt32 {
        var leadingZeros = 0
        while try readBit() == 0 {
            leadingZeros += 1
            guard leadingZeros <= 31 else {
                throw MediaFormatError.invalid(structure: "Exp-Golomb code", reason: "more than 31 leading zero bits")
            }
        }
        guard leadingZeros > 0 else { return 0 }
        let suffix = UInt64(try readBits(leadingZeros))
        return UInt32(truncatingIfNeeded: (UInt64(1) << leadingZeros) - 1 + suffix)
    }

    /// se(v): signed Exp-Golomb, mapping 1, 2, 3, 4 … to 1, −1, 2, −2 ….
    public mutating func readSE() throws -> Int32 {
        let k = Int64(try readUE())
        let magnitude = (k + 1) / 2
        return Int32(truncatingIfNeeded: k & 1 == 1 ? magnitude : -magnitude)
    }

    /// more_rbsp_data() (§7.2): true while anything but the rbsp_stop_one_bit and trailing zeros is left.
    public func moreRBSPData() -> Bool {
        guard bitsRemaining > 0 else { return false }
        var lastOne = bytes.count * 8 - 1
        while lastOne >= bitPosition {
            let byte = bytes[lastOne >> 3]
            if (byte >> (7 - UInt8(lastOne & 7))) & 1 == 1 { break }
            lastOne -= 1
        }
        return lastOne > bitPosition
    }
}

/// An MSB-first bit writer for structures written bit by bit (ADTS header, AudioSpecificConfig).
public struct BitWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    public init() {}

    /// Appends the low `count` bits (0...32) of `value`, most significant first.
    public mutating func write(_ value: UInt32, bits count: Int) {
        precondition((0...32).contains(count), "write(_:bits:) takes 0...32")
        var i = count - 1
        while i >= 0 {
            if bitCount % 8 == 0 { bytes.append(0) }
            let bit = UInt8((value >> UInt32(i)) & 1)
            bytes[bytes.count - 1] |= bit << (7 - UInt8(bitCount % 8))
            bitCount += 1
            i -= 1
        }
    }

    public mutating func writeFlag(_ flag: Bool) { write(flag ? 1 : 0, bits: 1) }

    /// Bits written so far.
    public var bitLength: Int { bitCount }
}
