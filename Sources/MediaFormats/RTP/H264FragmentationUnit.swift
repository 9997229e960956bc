// RFC 6184 §5.8 fragmentation units (FU-A).

/// One FU-A: the FU indicator (F and NRI of the fragmented NAL unit, type 28), the FU header (start, end, the NAL
/// unit's type) and a fragment of the NAL unit's payload.
public struct H264FragmentationUnit: Sendable, Equatable {
    /// The indicator and the header.
    static let headerSize = 2

    /// S: the first fragment.
    public var isStart: Bool
    /// E: the last fragment.
    public var isEnd: Bool
    /// The fragmented NAL unit's header, rebuilt: F and NRI from the indicator, the type from the FU header.
    public var nalUnitHeader: UInt8
    /// The fragment's octets (the NAL unit's header is not among them).
    public var data: ArraySlice<UInt8>

    /// The FU-A of `bytes`, indicator first. Start and end together throw, as the spec forbids them.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        // FU header: 1 bit S + 1 bit E + 1 bit R + 5 bits type.
        let header = try FragmentationUnitHeader(in: bytes, headerSize: Self.headerSize, structure: "FU-A")
        isStart = header.isStart
        isEnd = header.isEnd
        nalUnitHeader = bytes[bytes.startIndex] & 0xE0 | header.byte & 0x1F
        data = bytes.dropFirst(Self.headerSize)
    }
}
