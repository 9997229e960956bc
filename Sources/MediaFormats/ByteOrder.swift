// Byte order for every format and protocol here: big-endian (network order) everywhere, and the one little-endian
// field of RTMP (the message stream ID in a type 0 chunk message header, RTMP 1.0 §5.3.1.2.1). `@inlinable`: the RTMP
// chunk stream reads and writes through these per message.

/// Big-endian appends used by every `write(into:)`.
extension Array where Element == UInt8 {
    @inlinable @inline(__always)
    public mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// The low 24 bits of `value`; callers check the 24-bit limit first.
    @inlinable @inline(__always)
    public mutating func appendUInt24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inlinable @inline(__always)
    public mutating func appendUInt32(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        appendUInt24(value)
    }

    @inlinable @inline(__always)
    public mutating func appendUInt64(_ value: UInt64) {
        appendUInt32(UInt32(truncatingIfNeeded: value >> 32))
        appendUInt32(UInt32(truncatingIfNeeded: value))
    }

    @inlinable
    public mutating func appendFloat64(_ value: Double) {
        appendUInt64(value.bitPattern)
    }

    /// The little-endian 32 bits of `value` (RTMP's message stream ID in a type 0 chunk header).
    @inlinable @inline(__always)
    public mutating func appendUInt32LE(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The big-endian UInt32 at `offset`, or nil when the array is too short.
    @inlinable
    public func uint32BE(at offset: Int) -> UInt32? {
        guard offset >= 0, count >= offset + 4 else { return nil }
        return UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}

/// Reads at a known offset of a buffer the caller has checked is long enough.
extension UnsafeRawBufferPointer {
    @inlinable @inline(__always)
    public func uint24BE(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inlinable @inline(__always)
    public func uint32BE(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | uint24BE(at: offset + 1)
    }

    @inlinable @inline(__always)
    public func uint32LE(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }
}
