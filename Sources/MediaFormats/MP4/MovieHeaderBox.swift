// ISO/IEC 14496-12 (2022) §8.2.2 Movie Header Box ('mvhd'), version 0. In a fragmented file the duration is 0: the
// length of the movie is what the fragments add up to (§8.8.1).

/// `mvhd`: the movie's timescale and the next free track ID.
public struct MovieHeaderBox: MP4Box, Equatable {
    /// Units per second of the movie-level times (none are written but the duration, 0).
    public var timescale: UInt32
    /// Larger than every track ID in the file.
    public var nextTrackID: UInt32

    /// The movie timescale written: milliseconds, as FFmpeg and most muxers use.
    public static let defaultTimescale: UInt32 = 1000
    /// rate 1.0 in 16.16 fixed point.
    static let unityRate: UInt32 = 0x0001_0000
    /// volume 1.0 in 8.8 fixed point.
    static let unityVolume: UInt16 = 0x0100
    /// The identity transformation matrix {a, b, u, c, d, v, x, y, w} in 16.16 (a, b, c, d, x, y) and 2.30 (u, v, w).
    static let unityMatrix: [UInt32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]
    /// FullBox fields + times, timescale, duration (32 bits each) + rate, volume, reserved, matrix, pre_defined, next ID.
    static let version0PayloadSize = 100

    public var boxType: MP4FourCC { "mvhd" }

    /// A header from its fields.
    public init(timescale: UInt32 = Self.defaultTimescale, nextTrackID: UInt32) {
        self.timescale = timescale
        self.nextTrackID = nextTrackID
    }

    public var payloadSize: Int { Self.version0PayloadSize }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(0)  // creation_time: unknown
        out.appendUInt32(0)  // modification_time
        out.appendUInt32(timescale)
        out.appendUInt32(0)  // duration: fragmented
        out.appendUInt32(Self.unityRate)
        out.appendUInt16(Self.unityVolume)
        out.append(contentsOf: repeatElement(0, count: 2 + 8))  // reserved 16 bits + 2 × 32 bits
        for value in Self.unityMatrix { out.appendUInt32(value) }
        out.append(contentsOf: repeatElement(0, count: 6 * 4))  // pre_defined
        out.appendUInt32(nextTrackID)
    }
}
