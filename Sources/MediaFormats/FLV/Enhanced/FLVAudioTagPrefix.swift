// Adobe FLV v10.1 §E.4.2.1 AudioTagHeader and Enhanced RTMP v2 "Enhanced Audio" (ExAudioTagHeader): the head of an
// audio message up to its first track's id, read without the track loop (see `FLVVideoTagPrefix`).

/// What an audio message is, read from its first bytes: packet type, the first track's codec and id.
public struct FLVAudioTagPrefix: Sendable, Equatable {
    /// AudioPacketType after ModEx and Multitrack signalling; legacy AAC's packet types mapped to the enhanced ones,
    /// other legacy formats `.codedFrames`.
    public var packetType: FLVAudioPacketType
    /// The first track's codec.
    public var codec: FLVAudioCodec
    /// The first track's id (0 outside multitrack messages).
    public var trackID: UInt8
    /// AvMultitrackType when the message is in multitrack mode.
    public var multitrackType: FLVMultitrackType?

    private static let structure = "FLV audio data"

    /// Coded audio frames.
    public var isCodedFrames: Bool { packetType == .codedFrames }

    /// A configuration to replay to late joiners: the codec's (AudioSpecificConfig, OpusHead …) or a channel layout.
    public var isConfiguration: Bool { packetType == .sequenceStart || packetType == .multichannelConfig }

    /// Reads the head of the whole data of an audio tag (an empty one throws `.truncated`).
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard let first = bytes.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        var reader = ByteReader(bytes)
        guard first >> 4 == FLVEnhancedLimits.audioExHeaderSoundFormat else {
            let header = try FLVAudioTagHeader(parsing: &reader)
            self.init(packetType: header.enhancedPacketType, codec: .legacy(header.soundFormat))
            return
        }
        // 4 bits SoundFormat (9) + 4 bits AudioPacketType, then the ModEx blocks.
        let modEx = try FLVPacketModEx.readHead(modEx: FLVAudioPacketType.modEx.rawValue, from: &reader, structure: Self.structure).result
        let track: FLVFirstTrack<FLVAudioPacketType, FLVAudioFourCC> = try FLVMultitrackBody.readFirstTrack(
            rawPacketType: modEx.packetType, from: &reader, structure: Self.structure)
        self.init(packetType: track.packetType, codec: .fourCC(track.fourCC), trackID: track.id, multitrackType: track.multitrackType)
    }

    private init(packetType: FLVAudioPacketType, codec: FLVAudioCodec, trackID: UInt8 = 0, multitrackType: FLVMultitrackType? = nil) {
        self.packetType = packetType
        self.codec = codec
        self.trackID = trackID
        self.multitrackType = multitrackType
    }

    /// Reads the head of the whole data of an audio tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }
}
