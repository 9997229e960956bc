// ISO/IEC 14496-12 (2022) §8.8.5 Movie Fragment Header Box ('mfhd'): the fragment's sequence number, which increases
// from fragment to fragment in decode order.

/// `mfhd`: the first box of a `moof`.
public struct MovieFragmentHeaderBox: MP4Box, Equatable {
    public var sequenceNumber: UInt32

    public var boxType: MP4FourCC { "mfhd" }

    /// A header from its field.
    public init(sequenceNumber: UInt32) { self.sequenceNumber = sequenceNumber }

    /// Parses a payload.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        sequenceNumber = try box.reader.readUInt32()
    }

    /// FullBox fields + sequence_number.
    public var payloadSize: Int { 8 }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(sequenceNumber)
    }
}
