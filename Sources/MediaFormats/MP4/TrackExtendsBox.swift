// ISO/IEC 14496-12 (2022) §8.8.3 Track Extends Box ('trex'), in the Movie Extends Box ('mvex', §8.8.1) whose presence
// says the file has movie fragments: the defaults a track fragment uses for what it does not say.

/// `trex`: a track's fragment defaults (sample description 1, the rest given per sample by `trun`).
public struct TrackExtendsBox: MP4Box, Equatable {
    public var trackID: UInt32
    public var defaultSampleDescriptionIndex: UInt32
    public var defaultSampleDuration: UInt32
    public var defaultSampleSize: UInt32
    public var defaultSampleFlags: MP4SampleFlags

    /// FullBox fields + five 32-bit fields.
    static let payloadSize = 24

    public var boxType: MP4FourCC { "trex" }

    /// Defaults for `trackID`: its first sample entry, and zero for what every `trun` writes per sample.
    public init(trackID: UInt32, defaultSampleDescriptionIndex: UInt32 = 1, defaultSampleDuration: UInt32 = 0,
                defaultSampleSize: UInt32 = 0, defaultSampleFlags: MP4SampleFlags = MP4SampleFlags(rawValue: 0)) {
        self.trackID = trackID
        self.defaultSampleDescriptionIndex = defaultSampleDescriptionIndex
        self.defaultSampleDuration = defaultSampleDuration
        self.defaultSampleSize = defaultSampleSize
        self.defaultSampleFlags = defaultSampleFlags
    }

    /// Parses a payload.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        trackID = try box.reader.readUInt32()
        defaultSampleDescriptionIndex = try box.reader.readUInt32()
        defaultSampleDuration = try box.reader.readUInt32()
        defaultSampleSize = try box.reader.readUInt32()
        defaultSampleFlags = MP4SampleFlags(rawValue: try box.reader.readUInt32())
    }

    public var payloadSize: Int { Self.payloadSize }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(trackID)
        out.appendUInt32(defaultSampleDescriptionIndex)
        out.appendUInt32(defaultSampleDuration)
        out.appendUInt32(defaultSampleSize)
        out.appendUInt32(defaultSampleFlags.rawValue)
    }
}
