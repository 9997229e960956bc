// The live state of one HLS rendition: RFC 8216bis §6.2.1 (what a server may change between reloads), §6.2.2 (live
// playlists: removing segments, sequence numbers, part tags) and §4.4.4.9 (Partial Segments). A pure state machine:
// events in (a part, a segment, the end), the new playlist and the resources safe to delete out; no clock, no I/O.

/// The sliding window a live HLS output holds: it appends parts and segments, removes what falls out of the
/// window, and says which files may be deleted.
///
/// Deletion waits `max(3 × target duration, playlist duration)` of media after a URI leaves the playlist. §6.2.2
/// requires three target durations for a part whose tag was removed, and a segment must stay fetchable for its own
/// duration plus the playlist's after it first appeared; a client that loaded the playlist just before the removal
/// may still be working through it from the oldest entry, which takes up to one playlist duration.
public struct HLSSlidingWindow: Sendable {
    /// What kind of playlist the window produces.
    public enum Mode: Sendable, Equatable {
        /// Live: at most `window` segments (more only when fewer would last under three target durations).
        case live(window: Int)
        /// EXT-X-PLAYLIST-TYPE:EVENT: every segment kept.
        case event
        /// EXT-X-PLAYLIST-TYPE:VOD: every segment kept; publish it once `finish()` has added EXT-X-ENDLIST.
        case vod
    }

    /// The fixed properties of the playlist.
    public struct Configuration: Sendable, Equatable {
        /// Live, event or VOD.
        public var mode: Mode
        /// EXT-X-TARGETDURATION: the segmenter's target, rounded up to whole seconds.
        public var targetDuration: Int
        /// PART-TARGET in seconds; set for Low-Latency HLS (blocking reload, parts, preload hints).
        public var partTarget: Double?
        /// EXT-X-MAP URI of the fMP4 initialization segment.
        public var mapURI: String?
        /// EXT-X-INDEPENDENT-SEGMENTS.
        public var independentSegments: Bool
        /// CAN-SKIP-UNTIL = 6 × target duration: answer `_HLS_skip=YES` with delta updates.
        public var offersDeltaUpdates: Bool

        /// A configuration from its fields.
        public init(mode: Mode, targetDuration: Int, partTarget: Double? = nil, mapURI: String? = nil,
                    independentSegments: Bool = true, offersDeltaUpdates: Bool = false) {
            self.mode = mode
            self.targetDuration = targetDuration
            self.partTarget = partTarget
            self.mapURI = mapURI
            self.independentSegments = independentSegments
            self.offersDeltaUpdates = offersDeltaUpdates
        }
    }

    /// What an event changed.
    public struct Update: Sendable, Equatable {
        /// The playlist to publish now.
        public var playlist: HLSMediaPlaylist
        /// URIs (segments and parts) that left the playlist long enough ago to be deleted, oldest first.
        public var deletable: [String]
    }

    /// A live window keeps at least this many segments.
    public static let minimumWindow = 1
    /// Three target durations: the shortest playlist a live server may leave after a removal (§6.2.2).
    static let minimumPlaylistTargetDurations = 3.0

    /// The configuration.
    public let configuration: Configuration
    /// The playlist as it stands.
    public private(set) var playlist: HLSMediaPlaylist
    /// Seconds of media appended so far (completed segments and parts of the open one): the window's clock.
    public private(set) var mediaTime: Double = 0
    /// URIs out of the playlist, waiting until `mediaTime` reaches their deadline.
    private var held: [(uri: String, deleteAt: Double)] = []
    private static let structure = "HLS sliding window"

    /// A window with no segments yet. Throws when the configuration breaks a rule of the spec.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        guard configuration.targetDuration >= 1 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "target duration \(configuration.targetDuration) s")
        }
        if case let .live(window) = configuration.mode, window < Self.minimumWindow {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "window of \(window) segments")
        }
        if let partTarget = configuration.partTarget,
           !(partTarget > 0 && partTarget <= Double(configuration.targetDuration)) {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "part target \(partTarget) s")
        }
        let type: HLSMediaPlaylist.PlaylistType? = switch configuration.mode {
        case .live: nil
        case .event: .event
        case .vod: .vod
        }
        playlist = HLSMediaPlaylist(
            targetDuration: configuration.targetDuration, playlistType: type,
            independentSegments: configuration.independentSegments, mapURI: configuration.mapURI,
            partTarget: configuration.partTarget)
        playlist.serverControl = Self.serverControl(configuration, targetDuration: configuration.targetDuration)
        try playlist.validate()
    }

    // MARK: Events

    /// Publishes a part of the segment in progress. `discontinuity` and `programDateTime` apply to the segment and
    /// are taken from its first part; `nextPartURI` becomes the EXT-X-PRELOAD-HINT.
    public mutating func appendPart(_ part: HLSPartialSegment, discontinuity: Bool = false,
                                    programDateTime: HLSProgramDateTime? = nil, nextPartURI: String? = nil) throws -> Update {
        guard configuration.partTarget != nil else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "a part without a part target")
        }
        try checked { $0.openSegment.parts = [part] }
        if playlist.openSegment.parts.isEmpty {
            playlist.openSegment.discontinuity = discontinuity
            playlist.openSegment.programDateTime = programDateTime
        }
        playlist.openSegment.parts.append(part)
        mediaTime += part.duration
        playlist.preloadHint = nextPartURI.map { HLSPreloadHint(uri: $0) }
        return settle()
    }

    /// Publishes a completed segment. Its parts are those given or, when it has none, the parts appended since the
    /// last segment; it is a discontinuity (or carries a date) when it says so or its first part did.
    public mutating func appendSegment(_ segment: HLSMediaSegment, nextPartURI: String? = nil) throws -> Update {
        var completed = segment
        let open = playlist.openSegment
        if completed.parts.isEmpty { completed.parts = open.parts }
        completed.discontinuity = completed.discontinuity || open.discontinuity
        completed.programDateTime = completed.programDateTime ?? open.programDateTime
        if configuration.partTarget == nil { completed.parts = [] }
        let grown = max(playlist.targetDuration, HLSNumber.roundedSeconds(completed.duration))
        let control = Self.serverControl(configuration, targetDuration: grown)
        try checked {
            $0.targetDuration = grown
            $0.serverControl = control
            $0.segments = [completed]
        }
        // A segment longer than the target is the input's doing (a late keyframe); the target grows rather than lie.
        playlist.targetDuration = grown
        playlist.serverControl = control
        // The parts published in the open segment may differ from the segment's own; whatever is not kept goes.
        let keptParts = Set(completed.parts.map(\.uri))
        hold(open.parts.map(\.uri).filter { !keptParts.contains($0) })
        mediaTime += max(0, completed.duration - open.duration)
        playlist.segments.append(completed)
        playlist.openSegment = HLSOpenSegment()
        playlist.preloadHint = nextPartURI.map { HLSPreloadHint(uri: $0) }
        removeExpiredSegments()
        return settle()
    }

    /// Ends the playlist: EXT-X-ENDLIST, no preload hint; parts of an unfinished segment leave the playlist.
    public mutating func finish() -> Update {
        hold(playlist.openSegment.parts.map(\.uri))
        playlist.openSegment = HLSOpenSegment()
        playlist.preloadHint = nil
        playlist.endList = true
        return settle()
    }

    /// Every URI still waiting for its deadline (to delete at teardown, once clients are gone).
    public var heldURIs: [String] { held.map(\.uri) }

    // MARK: Rules

    /// Live windows drop their oldest segments beyond `window`, never below three target durations (§6.2.2).
    private mutating func removeExpiredSegments() {
        guard case let .live(window) = configuration.mode else { return }
        let minimum = Self.minimumPlaylistTargetDurations * Double(playlist.targetDuration)
        var remaining = playlist.segments.reduce(0) { $0 + $1.duration }
        var removed = 0
        while playlist.segments.count - removed > window, remaining - playlist.segments[removed].duration >= minimum {
            remaining -= playlist.segments[removed].duration
            removed += 1
        }
        guard removed > 0 else { return }
        for segment in playlist.segments.prefix(removed) {
            hold(segment.parts.map(\.uri) + [segment.uri])
            playlist.mediaSequence += 1
            // Its EXT-X-DISCONTINUITY leaves with it; the later segments keep their Discontinuity Sequence Numbers.
            if segment.discontinuity { playlist.discontinuitySequence += 1 }
        }
        playlist.segments.removeFirst(removed)
    }

    /// Parts no longer listed (further than three target durations from the end) are forgotten and held; then
    /// everything whose deadline has passed is released.
    private mutating func settle() -> Update {
        let firstListed = playlist.firstSegmentListingParts
        for index in 0..<firstListed where !playlist.segments[index].parts.isEmpty {
            hold(playlist.segments[index].parts.map(\.uri))
            playlist.segments[index].parts = []
        }
        let due = held.prefix { $0.deleteAt <= mediaTime + HLSServerControl.tolerance }
        held.removeFirst(due.count)
        return Update(playlist: playlist, deletable: due.map(\.uri))
    }

    private mutating func hold(_ uris: [String]) {
        let delay = max(Self.minimumPlaylistTargetDurations * Double(playlist.targetDuration), playlist.duration)
        held.append(contentsOf: uris.map { ($0, mediaTime + delay) })
    }

    /// Blocking reload and PART-HOLD-BACK for Low-Latency HLS, CAN-SKIP-UNTIL when delta updates are offered.
    private static func serverControl(_ configuration: Configuration, targetDuration: Int) -> HLSServerControl? {
        let target = Double(targetDuration)
        var control = HLSServerControl()
        if let partTarget = configuration.partTarget {
            control.canBlockReload = true
            control.partHoldBack = HLSServerControl.minimumPartHoldBackInPartTargets * partTarget
        }
        if configuration.offersDeltaUpdates, configuration.mode != .vod {
            control.canSkipUntil = HLSServerControl.minimumSkipBoundaryInTargetDurations * target
        }
        return control == HLSServerControl() ? nil : control
    }

    /// Validates a change on a copy of the playlist holding only the new items, so each append costs O(1).
    private func checked(_ change: (inout HLSMediaPlaylist) -> Void) throws {
        var probe = playlist
        probe.segments = []
        probe.openSegment = HLSOpenSegment()
        change(&probe)
        try probe.validate()
    }
}
