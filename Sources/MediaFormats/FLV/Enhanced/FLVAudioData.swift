// Adobe FLV v10.1 §E.4.2.1 AUDIODATA and Enhanced RTMP v2 "Enhanced Audio" (ExAudioTagHeader + ExAudioTagBody):
// the data of an audio tag or RTMP audio message, legacy or enhanced, as one typed value.

/// An audio message: packet type, ModEx timestamp offset, multitrack layout and its tracks.
///
/// Legacy tags parse to one track whose codec is `.legacy(SoundFormat)`, with their header kept in
/// `legacyHeader` (AAC's packet types mapped to the enhanced ones); SoundFormat 9 tags to `.fourCC` tracks.
public struct FLVAudioData: Sendable, Equatable {
    /// AudioPacketType after ModEx and Multitrack signalling (never `.modEx` or `.multitrack`).
    public var packetType: FLVAudioPacketType
    /// The legacy AudioTagHeader (format, rate, size, type); nil for an ex-header.
    public var legacyHeader: FLVAudioTagHeader?
    /// ModEx TimestampOffsetNano: nanoseconds to add to the message's millisecond timestamp.
    public var timestampOffsetNanoseconds: UInt32?
    /// AvMultitrackType when the message is in multitrack mode; nil otherwise.
    public var multitrackType: FLVMultitrackType?
    /// The tracks, in message order.
    public var tracks: [FLVAudioTrack]

    /// An ex-header message from its fields (checked when written).
    public init(
        packetType: FLVAudioPacketType, timestampOffsetNanoseconds: UInt32? = nil,
        multitrackType: FLVMultitrackType? = nil, tracks: [FLVAudioTrack]
    ) {
        self.packetType = packetType
        self.legacyHeader = nil
        self.timestampOffsetNanoseconds = timestampOffsetNanoseconds
        self.multitrackType = multitrackType
        self.tracks = tracks
    }

    /// A single-track ex-header message.
    public init(packetType: FLVAudioPacketType, fourCC: FLVAudioFourCC, payload: ArraySlice<UInt8>,
                timestampOffsetNanoseconds: UInt32? = nil) {
        self.init(packetType: packetType, timestampOffsetNanoseconds: timestampOffsetNanoseconds,
                  tracks: [FLVAudioTrack(codec: .fourCC(fourCC), payload: payload)])
    }

    /// True for an ex-header (SoundFormat 9).
    public var isEnhanced: Bool { legacyHeader == nil }

    /// A codec configuration (AudioSpecificConfig, OpusHead …) to keep and replay to late joiners.
    public var isSequenceStart: Bool { packetType == .sequenceStart }

    private static let structure = "FLV audio data"

    /// Parses the whole data of an audio tag (an empty one, RTMP's silence message, throws `.truncated`).
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard let first = bytes.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        var reader = ByteReader(bytes)
        guard first >> 4 == FLVEnhancedLimits.audioExHeaderSoundFormat else {
            let header = try FLVAudioTagHeader(parsing: &reader)
            self.init(packetType: header.enhancedPacketType,
                      tracks: [FLVAudioTrack(codec: .legacy(header.soundFormat), payload: reader.readRemaining())])
            legacyHeader = header
            return
        }
        // 4 bits SoundFormat (9) + 4 bits AudioPacketType, then the ModEx blocks.
        let modEx = try FLVPacketModEx.readHead(modEx: FLVAudioPacketType.modEx.rawValue, from: &reader, structure: Self.structure).result
        let body: FLVExBody<FLVAudioPacketType, FLVAudioFourCC> = try FLVMultitrackBody.read(
            rawPacketType: modEx.packetType, from: &reader, structure: Self.structure)
        var tracks: [FLVAudioTrack] = []
        for entry in body.tracks {
            if body.packetType == .multichannelConfig { _ = try FLVAudioMultichannelConfig(parsing: entry.data) }
            tracks.append(FLVAudioTrack(id: entry.id, codec: .fourCC(entry.fourCC), payload: entry.data))
        }
        self.init(packetType: body.packetType, timestampOffsetNanoseconds: modEx.timestampOffsetNanoseconds,
                  multitrackType: body.multitrackType, tracks: tracks)
    }

    /// Parses the whole data of an audio tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }

    /// Appends the message: the legacy header when `legacyHeader` is set, else an ex-header (with ModEx for a
    /// timestamp offset, Multitrack for a multitrack type) and the track loop. Inconsistent fields throw.
    public func write(into out: inout [UInt8]) throws {
        guard packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "packet type \(packetType) is signalling, not content")
        }
        if let legacyHeader {
            guard tracks.count == 1, let track = tracks.first, track.codec == .legacy(legacyHeader.soundFormat),
                  multitrackType == nil, timestampOffsetNanoseconds == nil else {
                throw MediaFormatError.unsupported(
                    structure: Self.structure, reason: "a legacy header carries one track of its format, no multitrack, no ModEx")
            }
            if legacyHeader.soundFormat == .aac {
                guard packetType == .sequenceStart || packetType == .codedFrames else {
                    throw MediaFormatError.unsupported(structure: Self.structure, reason: "legacy AAC has no packet type \(packetType)")
                }
                FLVAudioTagHeader(aacPacketType: packetType == .sequenceStart ? .sequenceHeader : .raw).write(into: &out)
            } else {
                legacyHeader.write(into: &out)
            }
            out.append(contentsOf: track.payload)
            return
        }
        var fourCCs: [FLVAudioFourCC] = []
        for track in tracks {
            guard case let .fourCC(fourCC) = track.codec else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "a legacy track in an ex-header message")
            }
            fourCCs.append(fourCC)
        }
        try FLVMultitrackBody.checkTracks(fourCCs.map(\.rawValue), multitrackType: multitrackType, structure: Self.structure)
        let signalled = multitrackType != nil ? FLVAudioPacketType.multitrack : packetType
        // 4 bits SoundFormat 9 (ExHeader) + 4 bits AudioPacketType (ModEx first when there is an offset).
        try FLVPacketModEx.writeHead(
            FLVEnhancedLimits.audioExHeaderSoundFormat << 4, packetType: signalled.rawValue, modEx: FLVAudioPacketType.modEx.rawValue,
            timestampOffsetNanoseconds: timestampOffsetNanoseconds, into: &out)
        let entries = zip(tracks, fourCCs).map { (fourCC: $1.rawValue, id: $0.id, body: Array($0.payload)) }
        try FLVMultitrackBody.write(multitrackType: multitrackType, packetType: packetType.rawValue, tracks: entries, into: &out)
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }
}

extension FLVAudioTagHeader {
    /// The enhanced packet type of a legacy header: AAC's packet types mapped, other formats' `.codedFrames`.
    var enhancedPacketType: FLVAudioPacketType { aacPacketType == .sequenceHeader ? .sequenceStart : .codedFrames }
}
