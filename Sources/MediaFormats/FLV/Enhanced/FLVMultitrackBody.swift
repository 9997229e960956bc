// Enhanced RTMP v2, ExVideoTagBody / ExAudioTagBody: the track loop. Without multitrack the body is one track;
// with it each track is [FOURCC (ManyTracksManyCodecs only)] UI8 trackId [UI24 sizeOfTrack (not OneTrack)] data,
// the size counting the data after it. Audio and video share the layout; only their FourCC sets differ.

/// One track's place in a message body: its FourCC (raw), id and data.
struct FLVTrackEntry {
    var fourCC: UInt32
    var id: UInt8
    var data: ArraySlice<UInt8>
}

/// Reading and writing of the track loop.
enum FLVMultitrackBody {
    /// The head of an enhanced body after its packet type. With the multitrack packet type (`multitrack`) comes
    /// 4 bits AvMultitrackType + 4 bits the packet type of every track. Returns the multitrack type (nil: one plain
    /// track) and the tracks' raw packet type.
    static func readHeader(rawPacketType: UInt8, multitrack: UInt8, from reader: inout ByteReader, structure: String)
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
    /// `multitrackType` nil means a plain single-track message (id 0). A body with no track throws `.truncated`.
    static func readTracks(
        multitrackType: FLVMultitrackType?, sharedFourCC: UInt32?, from reader: inout ByteReader
    ) throws -> [FLVTrackEntry] {
        guard let multitrackType else {
            return [FLVTrackEntry(fourCC: sharedFourCC ?? 0, id: 0, data: reader.readRemaining())]
        }
        var tracks: [FLVTrackEntry] = []
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

    /// Appends the track loop. `bodies` are each track's data as written (composition time included).
    /// A track larger than UI24 throws `.limitExceeded`; the caller checked the track count against the type.
    static func writeTracks(
        multitrackType: FLVMultitrackType?, tracks: [(fourCC: UInt32, id: UInt8, body: [UInt8])], into out: inout [UInt8]
    ) throws {
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
