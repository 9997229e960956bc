// Enhanced RTMP v2, ExAudioTagBody: what one track of an audio message carries.

/// One track of an audio message: its id, codec and payload.
public struct FLVAudioTrack: Sendable, Equatable {
    /// audioTrackId; 0 outside multitrack messages (the spec's default track).
    public var id: UInt8
    /// The FourCC (ex-header) or legacy SoundFormat.
    public var codec: FLVAudioCodec
    /// The payload after the headers (AudioSpecificConfig, OpusHead, coded frames, a multichannel config);
    /// a slice of the parsed bytes, so its indices are positions in them.
    public var payload: ArraySlice<UInt8>

    /// A track from its fields.
    public init(id: UInt8 = 0, codec: FLVAudioCodec, payload: ArraySlice<UInt8>) {
        self.id = id
        self.codec = codec
        self.payload = payload
    }

    /// Where the payload lies in the bytes the message was parsed from.
    public var payloadRange: Range<Int> { payload.startIndex..<payload.endIndex }
}
