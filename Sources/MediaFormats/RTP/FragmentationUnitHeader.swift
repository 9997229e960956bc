// RFC 6184 §5.8 (H.264 FU-A) and RFC 7798 §4.4.3 (H.265 FU): both FU headers start with the same S and E bits and
// close the payload's header, so both fragmentation units read them here.

/// The FU header of a fragmentation unit: 1 bit S + 1 bit E, then bits that name the fragmented NAL unit's type.
struct FragmentationUnitHeader {
    /// S: the first fragment.
    var isStart: Bool
    /// E: the last fragment.
    var isEnd: Bool
    /// The whole FU header byte (the caller takes the type from its low bits).
    var byte: UInt8

    /// The FU header at `headerSize - 1` in `bytes`, after the codec's payload header; short input throws
    /// `.truncated`, start and end together `.invalid`, as the specs forbid them.
    init(in bytes: ArraySlice<UInt8>, headerSize: Int, structure: String) throws {
        guard bytes.count >= headerSize else { throw MediaFormatError.truncated(needed: headerSize, available: bytes.count) }
        byte = bytes[bytes.startIndex + headerSize - 1]
        isStart = byte & 0x80 != 0
        isEnd = byte & 0x40 != 0
        guard !(isStart && isEnd) else { throw MediaFormatError.invalid(structure: structure, reason: "start and end bits both set") }
    }
}
