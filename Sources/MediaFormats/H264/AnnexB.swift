// ITU-T H.264 (08/2021) Annex B, byte stream format: NAL units preceded by 0x000001 start codes,
// optionally with a leading zero_byte (4-byte start code) and trailing_zero_8bits.

/// Scanning of Annex B byte streams into NAL unit ranges.
public enum AnnexB {
    /// The 3-byte start code prefix `00 00 01`.
    public static let startCode3: [UInt8] = [0, 0, 1]
    /// The 4-byte form `00 00 00 01` Sluice writes before every NAL unit.
    public static let startCode4: [UInt8] = [0, 0, 0, 1]

    /// True when `bytes` begin with a 3- or 4-byte start code: how extradata and packets are told apart from AVCC.
    public static func hasStartCode(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        guard iterator.next() == 0, iterator.next() == 0 else { return false }
        switch iterator.next() {
        case 1: return true
        case 0: return iterator.next() == 1
        default: return false
        }
    }

    /// `hasStartCode` for raw memory (packets straight from a demuxer).
    public static func hasStartCode(_ buffer: UnsafeRawBufferPointer) -> Bool {
        hasStartCode(buffer.assumingMemoryBound(to: UInt8.self))
    }

    /// Calls `body` with the range of every NAL unit in `buffer`, in order, without allocating.
    ///
    /// Bytes before the first start code are ignored, trailing zero bytes belong to the next start code
    /// (a NAL unit never ends in 0x00, §7.4.1), and NAL units left empty by that are skipped.
    public static func forEachNALUnit(
        in buffer: UnsafeRawBufferPointer,
        _ body: (Range<Int>) throws -> Void
    ) rethrows {
        let count = buffer.count
        guard var startCode = nextStartCode(in: buffer, from: 0) else { return }
        while true {
            let nalStart = startCode + 3
            let next = nextStartCode(in: buffer, from: nalStart)
            var nalEnd = next ?? count
            while nalEnd > nalStart && buffer[nalEnd - 1] == 0 { nalEnd -= 1 }
            if nalEnd > nalStart { try body(nalStart..<nalEnd) }
            guard let next else { return }
            startCode = next
        }
    }

    /// The ranges of every NAL unit in `buffer` (see `forEachNALUnit`).
    public static func nalUnitRanges(in buffer: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        forEachNALUnit(in: buffer) { ranges.append($0) }
        return ranges
    }

    /// The ranges of every NAL unit in `bytes`, as indices into `bytes`.
    public static func nalUnitRanges(in bytes: [UInt8]) -> [Range<Int>] {
        bytes.withUnsafeBytes { nalUnitRanges(in: $0) }
    }

    /// Every NAL unit in `bytes`, as slices sharing its storage.
    public static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        nalUnitRanges(in: bytes).map { bytes[$0] }
    }

    /// Appends each NAL unit after a 4-byte start code; empty NAL units are skipped.
    public static func write<S: Sequence>(nalUnits: S, into output: inout [UInt8])
    where S.Element: Collection<UInt8> {
        for nalUnit in nalUnits where !nalUnit.isEmpty {
            output.append(contentsOf: startCode4)
            output.append(contentsOf: nalUnit)
        }
    }

    /// The offset of the next `00 00 01` at or after `start`, or nil.
    ///
    /// Hot path: eight bytes are tested at once for a zero byte (a start code needs one in the word it starts in),
    /// so slice data, where zero bytes are rare, is skipped a word at a time.
    @inline(__always)
    static func nextStartCode(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let count = buffer.count
        guard let base = buffer.baseAddress, start >= 0, count - start >= 3 else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var i = start
        // A start code at i..<i+3 may begin anywhere in the word at i..<i+8, so the word loop stops 10 bytes short.
        while i + 10 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // Classic "has a zero byte" test: exact as a yes/no answer, false positives impossible.
            let hasZeroByte = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
            if hasZeroByte {
                for j in i..<(i + 8) where bytes[j] == 0 && bytes[j + 1] == 0 && bytes[j + 2] == 1 {
                    return j
                }
            }
            i += 8
        }
        while i + 3 <= count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 { return i }
            i += 1
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// Appends raw bytes with one copy (the buffers handed around here always hold bytes).
    @inline(__always)
    mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
}
