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
            packetType = header.aacPacketType == .sequenceHeader ? .sequenceStart : .codedFrames
            codec = .legacy(header.soundFormat)
            trackID = 0
            multitrackType = nil
            return
        }
        // 4 bits SoundFormat (9) + 4 bits AudioPacketType.
        _ = try reader.readUInt8()
        let modEx = try FLVPacketModEx.read(
            packetType: first & FLVEnhancedLimits.lowNibbleMask, modEx: FLVAudioPacketType.modEx.rawValue,
            from: &reader, structure: Self.structure)
        var rawPacketType = modEx.packetType
        let rawFourCC: UInt32
        trackID = 0
        let header = try FLVMultitrackBody.readHeader(
            rawPacketType: rawPacketType, multitrack: FLVAudioPacketType.multitrack.rawValue, from: &reader, structure: Self.structure)
        multitrackType = header.multitrackType
        rawPacketType = header.rawPacketType
        // The shared FourCC, or (ManyTracksManyCodecs) the first track's, then (multitrack) the first track's id.
        rawFourCC = try reader.readUInt32()
        if header.multitrackType != nil { trackID = try reader.readUInt8() }
        guard let packetType = FLVAudioPacketType(rawValue: rawPacketType),
              packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "AudioPacketType \(rawPacketType) for a track")
        }
        self.packetType = packetType
        guard let fourCC = FLVAudioFourCC(rawValue: rawFourCC) else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "AudioFourCc \"\(FourCCText.string(rawFourCC))\"")
        }
        codec = .fourCC(fourCC)
    }

    /// Reads the head of the whole data of an audio tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }
}
