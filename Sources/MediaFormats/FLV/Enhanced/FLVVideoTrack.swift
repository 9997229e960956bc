// Enhanced RTMP v2, ExVideoTagBody: what one track of a video message carries.

/// One track of a video message: its id, codec, composition time and payload.
public struct FLVVideoTrack: Sendable, Equatable {
    /// videoTrackId; 0 outside multitrack messages (the spec's default track).
    public var id: UInt8
    /// The FourCC (ex-header) or legacy CodecID.
    public var codec: FLVVideoCodec
    /// CompositionTime offset (PTS − DTS, ms): the SI24 of avc1/hvc1/vvc1 CodedFrames and of legacy AVC; 0 otherwise.
    public var compositionTime: Int32
    /// The payload after the headers (a configuration record, length-prefixed NAL units, OBUs, a VP9 frame,
    /// AMF metadata); a slice of the parsed bytes, so its indices are positions in them.
    public var payload: ArraySlice<UInt8>

    /// A track from its fields; `compositionTime` is checked against SI24 when written.
    public init(id: UInt8 = 0, codec: FLVVideoCodec, compositionTime: Int32 = 0, payload: ArraySlice<UInt8>) {
        self.id = id
        self.codec = codec
        self.compositionTime = compositionTime
        self.payload = payload
    }

    /// Where the payload lies in the bytes the message was parsed from.
    public var payloadRange: Range<Int> { payload.startIndex..<payload.endIndex }
}
