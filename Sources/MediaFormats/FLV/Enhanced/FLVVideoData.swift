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
        packetType = header.enhancedPacketType
        command = frameType == .videoInfoFrame ? try Self.readCommand(&reader) : nil
        timestampOffsetNanoseconds = nil
        multitrackType = nil
        tracks = [FLVVideoTrack(codec: .legacy(header.codecID), compositionTime: header.compositionTime,
                                payload: reader.readRemaining())]
    }

    private init(parsingEnhanced reader: inout ByteReader) throws {
        let head = try FLVExVideoHead(parsing: &reader, structure: Self.structure)
        if let commandPacketType = head.commandPacketType {
            self.init(frameType: head.frameType, packetType: commandPacketType, command: try Self.readCommand(&reader),
                      timestampOffsetNanoseconds: head.timestampOffsetNanoseconds, tracks: [])
            return
        }
        let body: FLVExBody<FLVVideoPacketType, FLVVideoFourCC> = try FLVMultitrackBody.read(
            rawPacketType: head.rawPacketType, from: &reader, structure: Self.structure)
        var tracks: [FLVVideoTrack] = []
        for entry in body.tracks {
            var data = ByteReader(entry.data)
            let compositionTime = body.packetType == .codedFrames && entry.fourCC.carriesCompositionTime ? try data.readInt24() : 0
            tracks.append(FLVVideoTrack(id: entry.id, codec: .fourCC(entry.fourCC), compositionTime: compositionTime,
                                        payload: data.readRemaining()))
        }
        self.init(frameType: head.frameType, packetType: body.packetType, timestampOffsetNanoseconds: head.timestampOffsetNanoseconds,
                  multitrackType: body.multitrackType, tracks: tracks)
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
            try FLVMultitrackBody.checkTracks(fourCCs.map(\.rawValue), multitrackType: multitrackType, structure: Self.structure)
        } else if !tracks.isEmpty || multitrackType != nil {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "a command frame carries no track")
        }
        let signalled = command == nil && multitrackType != nil ? FLVVideoPacketType.multitrack : packetType
        // 1 bit IsExHeader + 3 bits VideoFrameType + 4 bits VideoPacketType (ModEx first when there is an offset).
        try FLVPacketModEx.writeHead(
            FLVEnhancedLimits.videoExHeaderBit | frameType.rawValue << 4, packetType: signalled.rawValue,
            modEx: FLVVideoPacketType.modEx.rawValue, timestampOffsetNanoseconds: timestampOffsetNanoseconds, into: &out)
        if let command {
            out.append(command.rawValue)
            return
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
        try FLVMultitrackBody.write(multitrackType: multitrackType, packetType: packetType.rawValue, tracks: entries, into: &out)
    }
}

extension FLVVideoTagHeader {
    /// The enhanced packet type of a legacy header: AVC's packet types mapped, other codecs' `.codedFrames`.
    var enhancedPacketType: FLVVideoPacketType {
        switch avcPacketType {
        case .sequenceHeader: .sequenceStart
        case .endOfSequence: .sequenceEnd
        case .nalu, nil: .codedFrames
        }
    }
}
