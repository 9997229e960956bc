// Enhanced RTMP v2 "Multitrack": one track of a multitrack stream as a single-track stream, for a destination that
// does not take multitrack messages (its connect did not announce CapsEx Multitrack) or a job that picked a track.

/// What becomes of one audio or video message when only track `id` is kept.
public enum FLVTrackSelection: Equatable, Sendable {
    /// The message carries the track as it is (not multitrack, and the track is the default one, 0), or it is a
    /// command frame, which concerns every track: send it unchanged.
    case unchanged
    /// The message carries no such track: send nothing.
    case dropped
    /// A multitrack message that carries the track: its data as a single-track message (ex-header, FourCC, the
    /// track's payload; frame type, packet type and ModEx timestamp offset kept).
    case rewritten([UInt8])

    /// The data of a video message restricted to track `id`, whose codec is `codec` when known. Throws for data that
    /// does not parse (the relay has already refused such messages, see `RelaySession.readable`).
    ///
    /// A message outside multitrack is track 0's, as the specification says, with one exception FFmpeg 8 makes
    /// necessary: it writes every track's Metadata (colorInfo) without multitrack signalling. A Metadata message whose
    /// FourCC is not the track's codec is another track's (dropped); one whose FourCC is the codec of a track other
    /// than 0 is that track's (kept), unless track 0 shares the codec, which the caller says by passing nil.
    public static func video(_ bytes: ArraySlice<UInt8>, track id: UInt8, codec: FLVVideoFourCC? = nil) throws -> FLVTrackSelection {
        let prefix = try FLVVideoTagPrefix(parsing: bytes)
        guard !prefix.isCommand else { return .unchanged }
        if prefix.multitrackType == nil, prefix.packetType == .metadata, let codec, case let .fourCC(fourCC)? = prefix.codec {
            return fourCC == codec ? .unchanged : .dropped
        }
        guard prefix.multitrackType != nil else { return id == 0 ? .unchanged : .dropped }
        return try only(track: id, of: FLVVideoData(parsing: bytes))
    }

    /// The data of an audio message restricted to track `id` (a legacy header is track 0).
    public static func audio(_ bytes: ArraySlice<UInt8>, track id: UInt8) throws -> FLVTrackSelection {
        let prefix = try FLVAudioTagPrefix(parsing: bytes)
        guard prefix.multitrackType != nil else { return id == 0 ? .unchanged : .dropped }
        return try only(track: id, of: FLVAudioData(parsing: bytes))
    }

    /// `data` with only track `id`, renumbered 0, outside multitrack mode; `.dropped` when it has no such track.
    private static func only<Data: FLVMultitrackData>(track id: UInt8, of data: Data) throws -> FLVTrackSelection {
        guard var track = data.tracks.first(where: { $0.id == id }) else { return .dropped }
        track.id = 0
        var single = data
        single.multitrackType = nil
        single.tracks = [track]
        return .rewritten(try single.serialized())
    }
}

/// A message of tracks (`FLVAudioData`, `FLVVideoData`), which a selection restricts to one.
protocol FLVMultitrackData {
    associatedtype Track: FLVNumberedTrack
    var multitrackType: FLVMultitrackType? { get set }
    var tracks: [Track] { get set }
    func serialized() throws -> [UInt8]
}

/// A track of a message, known by its id.
protocol FLVNumberedTrack {
    var id: UInt8 { get set }
}

extension FLVAudioData: FLVMultitrackData {}
extension FLVVideoData: FLVMultitrackData {}
extension FLVAudioTrack: FLVNumberedTrack {}
extension FLVVideoTrack: FLVNumberedTrack {}
