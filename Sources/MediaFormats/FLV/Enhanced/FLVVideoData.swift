// Adobe FLV v10.1 §E.4.3.1 VIDEODATA and Enhanced RTMP v2 "Enhanced Video" (ExVideoTagHeader + ExVideoTagBody):
// the data of a video tag or RTMP video message, legacy or enhanced, as one typed value.

/// A video message: frame type, packet type, ModEx timestamp offset, multitrack layout and its tracks.
///
/// Legacy tags parse to one track whose codec is `.legacy(CodecID)` (AVC's packet types mapped to the enhanced
/// ones); ex-header tags to tracks whose codec is `.fourCC`. `write(into:)` writes the form the codecs name.
public struct FLVVideoData: Sendable, Equatable {
    /// VideoFrameType (3 bits in an ex-header, 4 in a legacy header).
    public var frameType: FLVVideoFrameType
    /// VideoPacketType after ModEx and Multitrack signalling (never `.modEx` or `.multitrack`).
    public var packetType: FLVVideoPacketType
    /// VideoCommand of a command frame (frame type 5, not Metadata); an ex-header command has no tracks.
    public var command: FLVVideoCommand?
    /// ModEx TimestampOffsetNano: nanoseconds to add to the message's millisecond timestamp.
    public var timestampOffsetNanoseconds: UInt32?
    /// AvMultitrackType when the message is in multitrack mode; nil otherwise.
    public var multitrackType: FLVMultitrackType?
    /// The tracks, in message order.
    public var tracks: [FLVVideoTrack]

    /// A message from its fields (checked when written).
    public init(
        frameType: FLVVideoFrameType, packetType: FLVVideoPacketType, command: FLVVideoCommand? = nil,
        timestampOffsetNanoseconds: UInt32? = nil, multitrackType: FLVMultitrackType? = nil, tracks: [FLVVideoTrack]
    ) {
        self.frameType = frameType
        self.packetType = packetType
        self.command = command
        self.timestampOffsetNanoseconds = timestampOffsetNanoseconds
        self.multitrackType = multitrackType
        self.tracks = tracks
    }

    /// A single-track ex-header message.
    public init(
        frameType: FLVVideoFrameType, packetType: FLVVideoPacketType, fourCC: FLVVideoFourCC,
        compositionTime: Int32 = 0, payload: ArraySlice<UInt8>, timestampOffsetNanoseconds: UInt32? = nil
    ) {
        self.init(frameType: frameType, packetType: packetType, timestampOffsetNanoseconds: timestampOffsetNanoseconds,
                  tracks: [FLVVideoTrack(codec: .fourCC(fourCC), compositionTime: compositionTime, payload: payload)])
    }

    /// True when written with an ex-header: every track has a FourCC (an ex-header command frame has no track).
    public var isEnhanced: Bool {
        tracks.allSatisfy { if case .fourCC = $0.codec { return true } else { return false } }
    }

    /// Coded frames of a key frame: where a decoder (and a GOP) can start.
    public var isKeyframe: Bool {
        frameType == .keyFrame && command == nil && (packetType == .codedFrames || packetType == .codedFramesX)
    }

    /// A codec configuration (avcC, hvcC, av1C, vpcC) to keep and replay to late joiners.
    public var isSequenceStart: Bool { packetType == .sequenceStart && command == nil }

    private static let structure = "FLV video data"

    /// Parses the whole data of a video tag; track payloads are slices of `bytes`.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard let first = bytes.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        var reader = ByteReader(bytes)
        if first & FLVEnhancedLimits.videoExHeaderBit == 0 {
            try self.init(parsingLegacy: &reader)
        } else {
            try self.init(parsingEnhanced: &reader)
        }
    }

    /// Parses the whole data of a video tag.
    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }

    private init(parsingLegacy reader: inout ByteReader) throws {
        let header = try FLVVideoTagHeader(parsing: &reader)
        frameType = header.frameType
        switch header.avcPacketType {
        case .sequenceHeader: packetType = .sequenceStart
        case .endOfSequence: packetType = .sequenceEnd
        case .nalu, nil: packetType = .codedFrames
        }
        command = frameType == .videoInfoFrame ? try Self.readCommand(&reader) : nil
        timestampOffsetNanoseconds = nil
        multitrackType = nil
        tracks = [FLVVideoTrack(codec: .legacy(header.codecID), compositionTime: header.compositionTime,
                                payload: reader.readRemaining())]
    }

    private init(parsingEnhanced reader: inout ByteReader) throws {
        // 1 bit IsExHeader + 3 bits VideoFrameType + 4 bits VideoPacketType.
        let first = try reader.readUInt8()
        let rawFrameType = (first & FLVEnhancedLimits.videoFrameTypeMask) >> 4
        let modEx = try FLVPacketModEx.read(
            packetType: first & FLVEnhancedLimits.lowNibbleMask, modEx: FLVVideoPacketType.modEx.rawValue,
            from: &reader, structure: Self.structure)
        timestampOffsetNanoseconds = modEx.timestampOffsetNanoseconds
        var rawPacketType = modEx.packetType
        // "If VideoPacketType.Metadata is present, the FrameType flags should be ignored": read as a command frame's.
        let isMetadata = rawPacketType == FLVVideoPacketType.metadata.rawValue
        guard let frameType = FLVVideoFrameType(rawValue: rawFrameType) ?? (isMetadata ? .videoInfoFrame : nil) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "VideoFrameType \(rawFrameType)")
        }
        self.frameType = frameType
        if frameType == .videoInfoFrame && !isMetadata {
            // A command frame: the UI8 command is the whole body (no FourCC, no tracks).
            guard let packetType = FLVVideoPacketType(rawValue: rawPacketType) else {
                throw MediaFormatError.unsupported(structure: Self.structure, reason: "VideoPacketType \(rawPacketType)")
            }
            self.packetType = packetType
            command = try Self.readCommand(&reader)
            multitrackType = nil
            tracks = []
            return
        }
        command = nil
        let header = try FLVMultitrackBody.readHeader(
            rawPacketType: rawPacketType, multitrack: FLVVideoPacketType.multitrack.rawValue, from: &reader, structure: Self.structure)
        multitrackType = header.multitrackType
        rawPacketType = header.rawPacketType
        // The FourCC the tracks share (ManyTracksManyCodecs has none: each track names its own).
        let sharedFourCC: UInt32? = try header.multitrackType == .manyTracksManyCodecs ? nil : reader.readUInt32()
        guard let packetType = FLVVideoPacketType(rawValue: rawPacketType),
              packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "VideoPacketType \(rawPacketType) for a track")
        }
        self.packetType = packetType
        var tracks: [FLVVideoTrack] = []
        for entry in try FLVMultitrackBody.readTracks(multitrackType: multitrackType, sharedFourCC: sharedFourCC, from: &reader) {
            guard let fourCC = FLVVideoFourCC(rawValue: entry.fourCC) else {
                throw MediaFormatError.unsupported(
                    structure: Self.structure, reason: "VideoFourCc \"\(FourCCText.string(entry.fourCC))\"")
            }
            var body = ByteReader(entry.data)
            let compositionTime = packetType == .codedFrames && fourCC.carriesCompositionTime ? try body.readInt24() : 0
            tracks.append(FLVVideoTrack(id: entry.id, codec: .fourCC(fourCC), compositionTime: compositionTime,
                                        payload: body.readRemaining()))
        }
        self.tracks = tracks
    }

    private static func readCommand(_ reader: inout ByteReader) throws -> FLVVideoCommand {
        let raw = try reader.readUInt8()
        guard let command = FLVVideoCommand(rawValue: raw) else {
            throw MediaFormatError.invalid(structure: structure, reason: "VideoCommand \(raw)")
        }
        return command
    }
}

extension FLVVideoData {
    /// Appends the message: a legacy VideoTagHeader for a `.legacy` track, else an ex-header (with ModEx for a
    /// timestamp offset, Multitrack for a multitrack type) and the track loop. Inconsistent fields throw.
    public func write(into out: inout [UInt8]) throws {
        guard packetType != .multitrack, packetType != .modEx else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "packet type \(packetType) is signalling, not content")
        }
        if isEnhanced {
            try writeEnhanced(into: &out)
        } else {
            try writeLegacy(into: &out)
        }
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }

    private func writeLegacy(into out: inout [UInt8]) throws {
        guard tracks.count == 1, let track = tracks.first, case let .legacy(codecID) = track.codec,
              multitrackType == nil, timestampOffsetNanoseconds == nil else {
            throw MediaFormatError.unsupported(
                structure: Self.structure, reason: "a legacy header carries one track, no multitrack, no ModEx")
        }
        let header: FLVVideoTagHeader
        if codecID == .avc {
            let avcPacketType: FLVAVCPacketType
            switch packetType {
            case .sequenceStart: avcPacketType = .sequenceHeader
            case .codedFrames, .codedFramesX: avcPacketType = .nalu
            case .sequenceEnd: avcPacketType = .endOfSequence
            default:
                throw MediaFormatError.unsupported(structure: Self.structure, reason: "legacy AVC has no packet type \(packetType)")
            }
            guard FLVLimits.compositionTimeRange.contains(track.compositionTime) else {
                throw MediaFormatError.limitExceeded(what: "composition time", value: Int(track.compositionTime), limit: 0x7F_FFFF)
            }
            header = FLVVideoTagHeader(frameType: frameType, avcPacketType: avcPacketType, compositionTime: track.compositionTime)
        } else {
            header = FLVVideoTagHeader(frameType: frameType, codecID: codecID)
        }
        header.write(into: &out)
        if let command { out.append(command.rawValue) }
        out.append(contentsOf: track.payload)
    }

    private func writeEnhanced(into out: inout [UInt8]) throws {
        let fourCCs = tracks.compactMap { $0.codec.fourCC }
        if command == nil {
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
        } else if !tracks.isEmpty || multitrackType != nil {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "a command frame carries no track")
        }
        let signalled = command == nil && multitrackType != nil ? FLVVideoPacketType.multitrack : packetType
        // 1 bit IsExHeader + 3 bits VideoFrameType + 4 bits VideoPacketType (ModEx first when there is an offset).
        let head = FLVEnhancedLimits.videoExHeaderBit | frameType.rawValue << 4
        if let timestampOffsetNanoseconds {
            out.append(head | FLVVideoPacketType.modEx.rawValue)
            try FLVPacketModEx.writeTimestampOffset(timestampOffsetNanoseconds, packetType: signalled.rawValue, into: &out)
        } else {
            out.append(head | signalled.rawValue)
        }
        if let command {
            out.append(command.rawValue)
            return
        }
        if let multitrackType {
            // 4 bits AvMultitrackType + 4 bits the tracks' packet type.
            out.append(multitrackType.rawValue << 4 | packetType.rawValue)
            if multitrackType != .manyTracksManyCodecs, let shared = fourCCs.first { out.appendUInt32(shared.rawValue) }
        } else if let shared = fourCCs.first {
            out.appendUInt32(shared.rawValue)
        }
        var entries: [(fourCC: UInt32, id: UInt8, body: [UInt8])] = []
        for (track, fourCC) in zip(tracks, fourCCs) {
            var body: [UInt8] = []
            if packetType == .codedFrames && fourCC.carriesCompositionTime {
                guard FLVLimits.compositionTimeRange.contains(track.compositionTime) else {
                    throw MediaFormatError.limitExceeded(what: "composition time", value: Int(track.compositionTime), limit: 0x7F_FFFF)
                }
                // SI24 two's complement: the low 24 bits of the Int32.
                body.appendUInt24(UInt32(bitPattern: track.compositionTime) & 0xFF_FFFF)
            }
            body.append(contentsOf: track.payload)
            entries.append((fourCC.rawValue, track.id, body))
        }
        try FLVMultitrackBody.writeTracks(multitrackType: multitrackType, tracks: entries, into: &out)
    }
}
