// ISO/IEC 14496-12 (2022) §8.8.7 Track Fragment Header Box ('tfhd'): the track and, through tf_flags, which optional
// defaults follow. Written with default-base-is-moof only (data offsets count from the `moof`, as CMAF requires,
// ISO/IEC 23000-19 §7.5.16); read with every optional field.

/// `tfhd`: the first box of a `traf`.
public struct TrackFragmentHeaderBox: MP4Box, Equatable {
    public var trackID: UInt32
    /// tf_flags.
    public var flags: UInt32
    public var baseDataOffset: UInt64?
    public var sampleDescriptionIndex: UInt32?
    public var defaultSampleDuration: UInt32?
    public var defaultSampleSize: UInt32?
    public var defaultSampleFlags: MP4SampleFlags?

    /// tf_flags bits.
    public static let baseDataOffsetPresent: UInt32 = 0x000001
    public static let sampleDescriptionIndexPresent: UInt32 = 0x000002
    public static let defaultSampleDurationPresent: UInt32 = 0x000008
    public static let defaultSampleSizePresent: UInt32 = 0x000010
    public static let defaultSampleFlagsPresent: UInt32 = 0x000020
    public static let durationIsEmpty: UInt32 = 0x010000
    public static let defaultBaseIsMoof: UInt32 = 0x020000

    public var boxType: MP4FourCC { "tfhd" }

    /// The header this module writes: `trackID`, default-base-is-moof, no defaults.
    public init(trackID: UInt32) {
        self.trackID = trackID
        self.flags = Self.defaultBaseIsMoof
    }

    /// Parses a payload with whatever optional fields its flags announce.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        let box = try MP4FullBoxPayload(payload)
        flags = box.flags
        var reader = box.reader
        trackID = try reader.readUInt32()
        if flags & Self.baseDataOffsetPresent != 0 { baseDataOffset = try reader.readUInt64() }
        if flags & Self.sampleDescriptionIndexPresent != 0 { sampleDescriptionIndex = try reader.readUInt32() }
        if flags & Self.defaultSampleDurationPresent != 0 { defaultSampleDuration = try reader.readUInt32() }
        if flags & Self.defaultSampleSizePresent != 0 { defaultSampleSize = try reader.readUInt32() }
        if flags & Self.defaultSampleFlagsPresent != 0 { defaultSampleFlags = MP4SampleFlags(rawValue: try reader.readUInt32()) }
    }

    /// True when data offsets count from the start of the enclosing `moof`.
    public var isDefaultBaseMoof: Bool { flags & Self.defaultBaseIsMoof != 0 }

    /// FullBox fields + track_ID (the header written carries no optional field).
    public var payloadSize: Int { 8 }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: Self.defaultBaseIsMoof, into: &out)
        out.appendUInt32(trackID)
    }
}
