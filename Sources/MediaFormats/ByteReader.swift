/// A big-endian reader over bytes. Every read is bounds-checked: short input throws
/// `MediaFormatError.truncated` and the reader does not advance, so a caller can retry with more data.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    /// Absolute index into `bytes` of the next byte to read.
    public private(set) var index: Int

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    /// Bytes consumed so far.
    public var offset: Int { index - bytes.startIndex }
    /// Bytes left to read.
    public var remaining: Int { bytes.endIndex - index }
    public var isAtEnd: Bool { index >= bytes.endIndex }

    @inline(__always)
    private func require(_ count: Int) throws {
        guard count >= 0, remaining >= count else {
            throw MediaFormatError.truncated(needed: count, available: remaining)
        }
    }

    public func peekUInt8() throws -> UInt8 {
        try require(1)
        return bytes[index]
    }

    public mutating func readUInt8() throws -> UInt8 {
        try require(1)
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func readUInt16() throws -> UInt16 {
        UInt16(try readUInt(byteCount: 2))
    }

    public mutating func readUInt24() throws -> UInt32 {
        UInt32(try readUInt(byteCount: 3))
    }

    /// A two's-complement signed 24-bit value (FLV composition time).
    public mutating func readInt24() throws -> Int32 {
        let raw = try readUInt24()
        return Int32(bitPattern: raw << 8) >> 8
    }

    public mutating func readUInt32() throws -> UInt32 {
        UInt32(try readUInt(byteCount: 4))
    }

    public mutating func readUInt64() throws -> UInt64 {
        try readUInt(byteCount: 8)
    }

    /// An unsigned big-endian integer of 1...8 bytes.
    public mutating func readUInt(byteCount: Int) throws -> UInt64 {
        precondition((1...8).contains(byteCount), "readUInt(byteCount:) takes 1...8")
        try require(byteCount)
        var value: UInt64 = 0
        for i in index..<(index + byteCount) { value = value << 8 | UInt64(bytes[i]) }
        index += byteCount
        return value
    }

    public mutating func readFloat64() throws -> Double {
        Double(bitPattern: try readUInt64())
    }

    /// The next `count` bytes, as a slice sharing storage with the input.
    public mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        try require(count)
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    public mutating func skip(_ count: Int) throws {
        try require(count)
        index += count
    }

    /// Everything not yet read.
    public mutating func readRemaining() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }
}
