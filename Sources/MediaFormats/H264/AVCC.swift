// ISO/IEC 14496-15 (2019) §5.3.2 (AVC sample format): each NAL unit is preceded by its length,
// a big-endian integer of `lengthSizeMinusOne + 1` bytes (1, 2 or 4; §5.3.3.1.2).

/// Scanning and writing of length-prefixed (AVCC, "MP4 format") NAL units.
public enum AVCC {
    /// The NAL unit length sizes ISO/IEC 14496-15 allows (lengthSizeMinusOne 0, 1 and 3).
    public static let validLengthSizes: Set<Int> = [1, 2, 4]

    /// Throws `.invalid` unless `lengthSize` is 1, 2 or 4 (it comes from parsed input, so it is not a precondition).
    public static func validate(lengthSize: Int) throws {
        guard validLengthSizes.contains(lengthSize) else {
            throw MediaFormatError.invalid(structure: "AVCC", reason: "NAL unit length size \(lengthSize) (must be 1, 2 or 4)")
        }
    }

    /// Calls `body` with the range of every NAL unit in `buffer`; zero-length NAL units are skipped.
    /// A length that runs past the end throws `.truncated`, after the NAL units before it were visited.
    public static func forEachNALUnit(
        in buffer: UnsafeRawBufferPointer,
        lengthSize: Int,
        _ body: (Range<Int>) throws -> Void
    ) throws {
        try validate(lengthSize: lengthSize)
        let count = buffer.count
        var offset = 0
        while offset < count {
            guard count - offset >= lengthSize else {
                throw MediaFormatError.truncated(needed: lengthSize, available: count - offset)
            }
            var length = 0
            for i in offset..<(offset + lengthSize) { length = length << 8 | Int(buffer[i]) }
            offset += lengthSize
            guard length <= count - offset else {
                throw MediaFormatError.truncated(needed: length, available: count - offset)
            }
            if length > 0 { try body(offset..<(offset + length)) }
            offset += length
        }
    }

    /// The ranges of every NAL unit in `buffer` (see `forEachNALUnit`).
    public static func nalUnitRanges(in buffer: UnsafeRawBufferPointer, lengthSize: Int) throws -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        try forEachNALUnit(in: buffer, lengthSize: lengthSize) { ranges.append($0) }
        return ranges
    }

    /// The ranges of every NAL unit in `bytes`, as indices into `bytes`.
    public static func nalUnitRanges(in bytes: [UInt8], lengthSize: Int) throws -> [Range<Int>] {
        try bytes.withUnsafeBytes { try nalUnitRanges(in: $0, lengthSize: lengthSize) }
    }

    /// Every NAL unit in `bytes`, as slices sharing its storage.
    public static func nalUnits(in bytes: [UInt8], lengthSize: Int) throws -> [ArraySlice<UInt8>] {
        try nalUnitRanges(in: bytes, lengthSize: lengthSize).map { bytes[$0] }
    }

    /// Appends one NAL unit with its length prefix; a NAL unit too long for `lengthSize` throws `.limitExceeded`.
    public static func append(nalUnit: some Collection<UInt8>, lengthSize: Int, into output: inout [UInt8]) throws {
        try validate(lengthSize: lengthSize)
        let limit = lengthSize == 4 ? Int(UInt32.max) : (1 << (8 * lengthSize)) - 1
        let length = nalUnit.count
        guard length <= limit else {
            throw MediaFormatError.limitExceeded(what: "NAL unit length", value: length, limit: limit)
        }
        for shift in stride(from: 8 * (lengthSize - 1), through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: length >> shift))
        }
        output.append(contentsOf: nalUnit)
    }

    /// Appends each non-empty NAL unit with its length prefix.
    public static func write<S: Sequence>(nalUnits: S, lengthSize: Int, into output: inout [UInt8]) throws
    where S.Element: Collection<UInt8> {
        for nalUnit in nalUnits where !nalUnit.isEmpty {
            try append(nalUnit: nalUnit, lengthSize: lengthSize, into: &output)
        }
    }
}
