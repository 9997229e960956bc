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
            packetType = header.aacPacketType == .sequenceHeader ? .sequenceStart : .codedFrames
            legacyHeader = header
            timestampOffsetNanoseconds = nil
            multitrackType = nil
            tracks = [FLVAudioTrack(codec: .legacy(header.soundFormat), payload: reader.readRemaining())]
            return
        }
        legacyHeader = nil
        // 4 bits SoundFormat (9) + 4 bits AudioPacketType.
        _ = try reader.readUInt8()
        let modEx = try FLVPacketModEx.read(
            packetType: first & FLVEnhancedLimits.lowNibbleMask, modEx: FLVAudioPacketType.modEx.rawValue,
            from: &reader, structure: Self.structure)
        timestampOffsetNanoseconds = modEx.timestampOffsetNanoseconds
        var rawPacketType = modEx.packetType
        let header = try FLVMultitrackBody.readHeader(
            rawPacketType: rawPacketType, multitrack: FLVAudioPacketType.multitrack.rawValue, from: &reader, structure: Self.structure)
        multitrackType = header.multitrackType
        rawPacketType = header.rawPacketType
        // The FourCC the tracks share (ManyTracksManyCodecs has none: each track names its own).
        let sharedFourCC: UInt32? = try header.multitrackType == .manyTracksManyCodecs ? nil : reader.readUInt32()
        guard let packetType = FLVAudioPacketType(rawValue: rawPacketType),
              packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "AudioPacketType \(rawPacketType) for a track")
        }
        self.packetType = packetType
        var tracks: [FLVAudioTrack] = []
        for entry in try FLVMultitrackBody.readTracks(multitrackType: multitrackType, sharedFourCC: sharedFourCC, from: &reader) {
            guard let fourCC = FLVAudioFourCC(rawValue: entry.fourCC) else {
                throw MediaFormatError.unsupported(
                    structure: Self.structure, reason: "AudioFourCc \"\(FourCCText.string(entry.fourCC))\"")
            }
            if packetType == .multichannelConfig { _ = try FLVAudioMultichannelConfig(parsing: entry.data) }
            tracks.append(FLVAudioTrack(id: entry.id, codec: .fourCC(fourCC), payload: entry.data))
        }
        self.tracks = tracks
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
        switch multitrackType {
        case nil, .oneTrack?:
            guard tracks.count == 1 else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "\(tracks.count) tracks without ManyTracks")
            }
        case .manyTracks?:
            guard !tracks.isEmpty, Set(fourCCs).count == 1 else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "ManyTracks needs tracks of one codec")
            }
        case .manyTracksManyCodecs?:
            guard !tracks.isEmpty else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "ManyTracksManyCodecs without a track")
            }
        }
        let signalled = multitrackType != nil ? FLVAudioPacketType.multitrack : packetType
        // 4 bits SoundFormat 9 (ExHeader) + 4 bits AudioPacketType (ModEx first when there is an offset).
        let head = FLVEnhancedLimits.audioExHeaderSoundFormat << 4
        if let timestampOffsetNanoseconds {
            out.append(head | FLVAudioPacketType.modEx.rawValue)
            try FLVPacketModEx.writeTimestampOffset(timestampOffsetNanoseconds, packetType: signalled.rawValue, into: &out)
        } else {
            out.append(head | signalled.rawValue)
        }
        if let multitrackType {
            // 4 bits AvMultitrackType + 4 bits the tracks' packet type.
            out.append(multitrackType.rawValue << 4 | packetType.rawValue)
            if multitrackType != .manyTracksManyCodecs, let shared = fourCCs.first { out.appendUInt32(shared.rawValue) }
        } else if let shared = fourCCs.first {
            out.appendUInt32(shared.rawValue)
        }
        let entries = zip(tracks, fourCCs).map { (fourCC: $1.rawValue, id: $0.id, body: Array($0.payload)) }
        try FLVMultitrackBody.writeTracks(multitrackType: multitrackType, tracks: entries, into: &out)
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }
}
