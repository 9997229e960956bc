// ISO/IEC 14496-12 (2022) §8.8.8 (trun) and §8.8.12 (tfdt): what a movie fragment says about each sample. Video
// samples are length-prefixed NAL units (14496-15 §5.3.2, §8.3.2) or AV1 OBUs in the low-overhead format (AV1
// binding §2.4); audio samples are raw AAC frames (no ADTS header) or Opus packets.

/// One sample of a track, with its times in the track's timescale.
public struct MP4Sample: Sendable, Equatable {
    /// DTS, in the track's timescale; 0 or more.
    public var decodeTime: Int64
    /// Until the next sample's DTS; `MP4SampleDurationBuffer` fills it in when the next sample arrives.
    public var duration: UInt32
    /// PTS − DTS; negative values are written as they are (trun version 1).
    public var compositionOffset: Int32
    /// A sync sample: a keyframe a decoder can start at (every audio sample).
    public var isSync: Bool
    /// The sample's bytes.
    public var payload: ArraySlice<UInt8>

    /// A sample from its fields.
    public init(decodeTime: Int64, duration: UInt32 = 0, compositionOffset: Int32 = 0, isSync: Bool,
                payload: ArraySlice<UInt8>) {
        self.decodeTime = decodeTime
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
        self.payload = payload
    }

    /// A sample from its fields, with an array payload.
    public init(decodeTime: Int64, duration: UInt32 = 0, compositionOffset: Int32 = 0, isSync: Bool, payload: [UInt8]) {
        self.init(decodeTime: decodeTime, duration: duration, compositionOffset: compositionOffset, isSync: isSync,
                  payload: payload[...])
    }

    /// The largest payload a `trun` sample_size can describe.
    public static let maxPayloadSize = Int(UInt32.max)
}
