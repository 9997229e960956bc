// ISO/IEC 14496-12 (2022) §8.7.2 Data Reference Box ('dref') with one DataEntryUrlBox ('url ') whose flag 1 says the
// media data is in this same file; CMAF forbids external data references (ISO/IEC 23000-19 §7.3.2.1).

/// `dref` holding one self-contained `url ` entry; goes in `dinf`.
public struct DataReferenceBox: MP4Box, Equatable {
    /// DataEntryUrlBox flags: the media data is in the same file.
    static let selfContained: UInt32 = 0x000001
    /// FullBox fields + entry_count, then a `url ` box of 8 + 4 bytes.
    static let payloadSize = 8 + MP4BoxHeader.compactSize + MP4BoxHeader.fullBoxFieldsSize

    public var boxType: MP4FourCC { "dref" }
    public var payloadSize: Int { Self.payloadSize }

    /// The reference.
    public init() {}

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(1)  // entry_count
        MP4BoxHeader(type: "url ", payloadSize: MP4BoxHeader.fullBoxFieldsSize).write(into: &out)
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: Self.selfContained, into: &out)
    }
}
