// ISO/IEC 14496-12 (2022) §8.3.2 Track Header Box ('tkhd'), version 0: the track's ID and, for video, its
// presentation size in 16.16 fixed point.

/// `tkhd`: an enabled track, its ID, its volume (audio) or size (video).
public struct TrackHeaderBox: MP4Box, Equatable {
    public var trackID: UInt32
    /// True for an audio track (volume 1.0), false otherwise (volume 0).
    public var isAudio: Bool
    /// Presentation width and height in pixels (0 for audio).
    public var width: Int
    public var height: Int

    /// flags: track_enabled (0x1) | track_in_movie (0x2).
    public static let enabledInMovie: UInt32 = 0x000003
    /// FullBox fields + 20 bytes of times and ID + 8 reserved + layer, group, volume, reserved + matrix + size.
    static let version0PayloadSize = 84

    public var boxType: MP4FourCC { "tkhd" }

    /// A header from its fields; a size over 65535 pixels throws.
    public init(trackID: UInt32, isAudio: Bool, width: Int = 0, height: Int = 0) throws {
        try VisualSampleEntry.checkPictureSize(width: width, height: height, of: "tkhd")
        (self.trackID, self.isAudio, self.width, self.height) = (trackID, isAudio, width, height)
    }

    public var payloadSize: Int { Self.version0PayloadSize }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: Self.enabledInMovie, into: &out)
        out.appendUInt32(0)  // creation_time
        out.appendUInt32(0)  // modification_time
        out.appendUInt32(trackID)
        out.appendUInt32(0)  // reserved
        out.appendUInt32(0)  // duration: fragmented
        out.append(contentsOf: repeatElement(0, count: 8))  // reserved 2 × 32 bits
        out.appendUInt16(0)  // layer
        out.appendUInt16(0)  // alternate_group
        out.appendUInt16(isAudio ? MovieHeaderBox.unityVolume : 0)
        out.appendUInt16(0)  // reserved
        for value in MovieHeaderBox.unityMatrix { out.appendUInt32(value) }
        out.appendUInt32(UInt32(width) << 16)  // checked against VisualSampleEntry.maxDimension
        out.appendUInt32(UInt32(height) << 16)
    }
}
