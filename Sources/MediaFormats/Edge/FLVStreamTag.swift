// Adobe FLV v10.1 §E.4.1 (TagType, Timestamp, Data) as RTMP carries it (RTMP 1.0 §7.1.5: message types 8, 9, 18 are
// FLV tag data): the unit the MPEG-TS edge converters hand to the live relay and take from it.
//
// The edge lives in its own folder because it joins two formats: MPEGTS/ and FLV/ stay unaware of each other, and the
// converters here are the only code that knows both.

/// One FLV tag without its file framing: its type, its time on an unbounded millisecond timeline, and its data (the
/// tag-type header, legacy or Enhanced RTMP, then the payload), which is an RTMP audio, video or data message body.
public struct FLVStreamTag: Sendable, Equatable {
    /// TagType, which is also the RTMP message type id (`type.rawValue`: 8 audio, 9 video, 18 script data).
    public var type: FLVTagType
    /// Milliseconds (DTS for video); RTMP and FLV write it modulo 2^32.
    public var timestamp: Int64
    /// The tag data (an RTMP message body).
    public var data: [UInt8]

    /// A tag from its fields.
    /// - Parameters:
    ///   - type: audio, video or script data.
    ///   - timestamp: milliseconds on the stream's timeline (the DTS for video).
    ///   - data: the tag data, starting with its AudioTagHeader, VideoTagHeader or AMF0 name.
    public init(type: FLVTagType, timestamp: Int64, data: [UInt8]) {
        self.type = type
        self.timestamp = timestamp
        self.data = data
    }

    /// The RTMP message type id (8, 9 or 18).
    public var typeID: UInt8 { type.rawValue }
}
