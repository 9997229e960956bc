// RFC 7798 §4.4.3 fragmentation units, without DONL.

/// One FU: the payload header (type 49, the fragmented NAL unit's F, layer and TID), the FU header (start, end, the
/// NAL unit's type) and a fragment of the NAL unit's payload.
public struct H265FragmentationUnit: Sendable, Equatable {
    /// The payload header and the FU header.
    static let headerSize = 3

    /// S: the first fragment.
    public var isStart: Bool
    /// E: the last fragment.
    public var isEnd: Bool
    /// The fragmented NAL unit's two-octet header, rebuilt: the payload header with the FU header's type.
    public var nalUnitHeader: [UInt8]
    /// The NAL unit's type, from the FU header.
    public var nalUnitType: HEVCNALUnitType
    /// The fragment's octets (the NAL unit's header is not among them).
    public var data: ArraySlice<UInt8>

    /// The FU of `bytes`, payload header first. Start and end together throw, as the spec forbids them.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        // FU header: 1 bit S + 1 bit E + 6 bits FuType.
        let header = try FragmentationUnitHeader(in: bytes, headerSize: Self.headerSize, structure: "H.265 fragmentation unit")
        isStart = header.isStart
        isEnd = header.isEnd
        nalUnitType = HEVCNALUnitType(rawValue: header.byte & 0x3F)
        // Payload header: 1 bit F + 6 bits type (49, replaced by FuType) + 6 bits layer + 3 bits TID.
        nalUnitHeader = [bytes[bytes.startIndex] & 0x81 | (header.byte & 0x3F) << 1, bytes[bytes.startIndex + 1]]
        data = bytes.dropFirst(Self.headerSize)
    }
}
