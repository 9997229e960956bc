// ISO/IEC 14496-12 (2022) §8.8.12 Track Fragment Base Media Decode Time Box ('tfdt'): the decode time of the first
// sample of the track fragment, in the track's timescale. Written as version 1 (64 bits), so a long recording at
// 90 kHz does not wrap after 13 hours.

/// `tfdt`: where the track fragment starts on the track's timeline.
public struct TrackFragmentBaseMediaDecodeTimeBox: MP4Box, Equatable {
    public var baseMediaDecodeTime: UInt64

    /// FullBox fields + 64-bit baseMediaDecodeTime.
    static let version1PayloadSize = 12

    public var boxType: MP4FourCC { "tfdt" }

    /// A box from its field.
    public init(baseMediaDecodeTime: UInt64) { self.baseMediaDecodeTime = baseMediaDecodeTime }

    /// Parses a version 0 (32-bit) or 1 (64-bit) payload.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        baseMediaDecodeTime = box.version == 1 ? try box.reader.readUInt64() : UInt64(try box.reader.readUInt32())
    }

    public var payloadSize: Int { Self.version1PayloadSize }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 1, flags: 0, into: &out)
        out.appendUInt64(baseMediaDecodeTime)
    }
}
