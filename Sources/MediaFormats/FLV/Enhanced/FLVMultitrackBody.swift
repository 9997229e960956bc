// Enhanced RTMP v2, ExVideoTagBody / ExAudioTagBody: the track loop. Without multitrack the body is one track;
// with it each track is [FOURCC (ManyTracksManyCodecs only)] UI8 trackId [UI24 sizeOfTrack (not OneTrack)] data,
// the size counting the data after it. Audio and video share the layout; only their FourCC sets differ.

/// One track's place in a message body: its FourCC, id and data.
struct FLVTrackEntry<FourCC> {
    var fourCC: FourCC
    var id: UInt8
    var data: ArraySlice<UInt8>
}

/// An enhanced body as read: its multitrack type (nil: one plain track), the tracks' packet type, and the tracks.
struct FLVExBody<PacketType, FourCC> {
    var multitrackType: FLVMultitrackType?
    var packetType: PacketType
    var tracks: [FLVTrackEntry<FourCC>]
}

/// The head of an enhanced body up to its first track's id: what a tag prefix reads.
struct FLVFirstTrack<PacketType, FourCC> {
    var multitrackType: FLVMultitrackType?
    var packetType: PacketType
    var fourCC: FourCC
    /// The first track's id (0 outside multitrack messages).
    var id: UInt8
}

/// Reading and writing of the track loop and the head before it.
enum FLVMultitrackBody {
    /// The head and every track of an enhanced body after its ModEx blocks (`rawPacketType` is the packet type they
    /// ended with). A body with no track throws `.truncated`; an unknown packet type or FourCC `.unsupported`.
    static func read<PacketType: FLVExPacketType, FourCC: FLVExFourCC>(
        rawPacketType: UInt8, from reader: inout ByteReader, structure: String
    ) throws -> FLVExBody<PacketType, FourCC> {
        let header = try readHeader(rawPacketType: rawPacketType, multitrack: PacketType.multitrack.rawValue,
                                    from: &reader, structure: structure)
        // The FourCC the tracks share (ManyTracksManyCodecs has none: each track names its own).
        let sharedFourCC: UInt32? = try header.multitrackType == .manyTracksManyCodecs ? nil : reader.readUInt32()
        let packetType = try PacketType.content(header.rawPacketType, structure: structure)
        let tracks: [FLVTrackEntry<FourCC>] = try readTracks(
            multitrackType: header.multitrackType, sharedFourCC: sharedFourCC, from: &reader
        ).map { FLVTrackEntry(fourCC: try FourCC.named($0.fourCC, structure: structure), id: $0.id, data: $0.data) }
        return FLVExBody(multitrackType: header.multitrackType, packetType: packetType, tracks: tracks)
    }

    /// The head of an enhanced body up to its first track's id, for a tag prefix: the shared FourCC or
    /// (ManyTracksManyCodecs) the first track's, then (multitrack) the first track's id.
    static func readFirstTrack<PacketType: FLVExPacketType, FourCC: FLVExFourCC>(
        rawPacketType: UInt8, from reader: inout ByteReader, structure: String
    ) throws -> FLVFirstTrack<PacketType, FourCC> {
        let header = try readHeader(rawPacketType: rawPacketType, multitrack: PacketType.multitrack.rawValue,
                                    from: &reader, structure: structure)
        let rawFourCC = try reader.readUInt32()
        let trackID = header.multitrackType != nil ? try reader.readUInt8() : 0
        let packetType = try PacketType.content(header.rawPacketType, structure: structure)
        return FLVFirstTrack(multitrackType: header.multitrackType, packetType: packetType,
                             fourCC: try FourCC.named(rawFourCC, structure: structure), id: trackID)
    }

    /// With the multitrack packet type (`multitrack`) comes 4 bits AvMultitrackType + 4 bits the packet type of
    /// every track. Returns the multitrack type (nil: one plain track) and the tracks' raw packet type.
    private static func readHeader(rawPacketType: UInt8, multitrack: UInt8, from reader: inout ByteReader, structure: String)
        throws -> (multitrackType: FLVMultitrackType?, rawPacketType: UInt8)
    {
        guard rawPacketType == multitrack else { return (nil, rawPacketType) }
        let types = try reader.readUInt8()
        guard let multitrackType = FLVMultitrackType(rawValue: types >> 4) else {
            throw MediaFormatError.unsupported(structure: structure, reason: "AvMultitrackType \(types >> 4)")
        }
        return (multitrackType, types & FLVEnhancedLimits.lowNibbleMask)
    }

    /// Every track of the body left in `reader`. `sharedFourCC` is the header's (nil for ManyTracksManyCodecs);
    /// `multitrackType` nil means a plain single-track message (id 0).
    private static func readTracks(
        multitrackType: FLVMultitrackType?, sharedFourCC: UInt32?, from reader: inout ByteReader
    ) throws -> [FLVTrackEntry<UInt32>] {
        guard let multitrackType else {
            return [FLVTrackEntry(fourCC: sharedFourCC ?? 0, id: 0, data: reader.readRemaining())]
        }
        var tracks: [FLVTrackEntry<UInt32>] = []
        repeat {
            var fourCC = sharedFourCC ?? 0
            if multitrackType == .manyTracksManyCodecs { fourCC = try reader.readUInt32() }
            let id = try reader.readUInt8()
            if multitrackType == .oneTrack {
                return [FLVTrackEntry(fourCC: fourCC, id: id, data: reader.readRemaining())]
            }
            let size = Int(try reader.readUInt24())
            tracks.append(FLVTrackEntry(fourCC: fourCC, id: id, data: try reader.readBytes(size)))
        } while !reader.isAtEnd
        return tracks
    }

    /// Checks the number of tracks (given by their FourCCs) against the multitrack type before writing.
    static func checkTracks(_ fourCCs: [UInt32], multitrackType: FLVMultitrackType?, structure: String) throws {
        switch multitrackType {
        case nil, .oneTrack?:
            guard fourCCs.count == 1 else {
                throw MediaFormatError.invalid(structure: structure, reason: "\(fourCCs.count) tracks without ManyTracks")
            }
        case .manyTracks?:
            guard !fourCCs.isEmpty, Set(fourCCs).count == 1 else {
                throw MediaFormatError.invalid(structure: structure, reason: "ManyTracks needs tracks of one codec")
            }
        case .manyTracksManyCodecs?:
            guard !fourCCs.isEmpty else {
                throw MediaFormatError.invalid(structure: structure, reason: "ManyTracksManyCodecs without a track")
            }
        }
    }

    /// Appends the body after the ex-header's packet type: (multitrack) the multitrack byte, the shared FourCC
    /// (none for ManyTracksManyCodecs), then the track loop. `tracks` are checked (`checkTracks`); each body is the
    /// track's data as written (composition time included). A track larger than UI24 throws `.limitExceeded`.
    static func write(
        multitrackType: FLVMultitrackType?, packetType: UInt8, tracks: [(fourCC: UInt32, id: UInt8, body: [UInt8])],
        into out: inout [UInt8]
    ) throws {
        if let multitrackType {
            // 4 bits AvMultitrackType + 4 bits the tracks' packet type.
            out.append(multitrackType.rawValue << 4 | packetType)
            if multitrackType != .manyTracksManyCodecs, let shared = tracks.first { out.appendUInt32(shared.fourCC) }
        } else if let shared = tracks.first {
            out.appendUInt32(shared.fourCC)
        }
        for track in tracks {
            guard let multitrackType else {
                out.append(contentsOf: track.body)
                continue
            }
            if multitrackType == .manyTracksManyCodecs { out.appendUInt32(track.fourCC) }
            out.append(track.id)
            if multitrackType != .oneTrack {
                guard track.body.count <= FLVEnhancedLimits.maxTrackSize else {
                    throw MediaFormatError.limitExceeded(
                        what: "FLV track size", value: track.body.count, limit: FLVEnhancedLimits.maxTrackSize)
                }
                out.appendUInt24(UInt32(track.body.count))
            }
            out.append(contentsOf: track.body)
        }
    }
}
