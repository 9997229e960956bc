// RFC 8216bis §4.4.3 Media Playlist tags and §4.4.5 Media Metadata tags, printed in one place: the playlist is a
// value and `render` is the only code that turns it into text. Delta updates (EXT-X-SKIP, §4.4.5.2 and §6.2.5.1)
// are a second form of the same value.

/// A Media Playlist: its header tags, its segments (with their parts), the in-progress segment's parts and the
/// Low-Latency tags that follow them.
public struct HLSMediaPlaylist: Sendable, Equatable, CustomStringConvertible {
    /// EXT-X-PLAYLIST-TYPE (§4.4.3.5). Live playlists carry none.
    public enum PlaylistType: String, Sendable, Equatable {
        /// Segments are only appended.
        case event = "EVENT"
        /// The playlist never changes.
        case vod = "VOD"
    }

    /// How to print the playlist.
    public enum Form: Sendable, Equatable {
        /// Every segment.
        case full
        /// A Playlist Delta Update: segments further than CAN-SKIP-UNTIL from the end replaced by EXT-X-SKIP.
        /// Printed as `.full` when the playlist does not advertise CAN-SKIP-UNTIL or has ended (§6.2.5.1).
        case deltaUpdate
    }

    /// EXT-X-TARGETDURATION in whole seconds: every EXTINF, rounded to the nearest second, is at most this.
    public var targetDuration: Int
    /// EXT-X-MEDIA-SEQUENCE: the Media Sequence Number of the first segment.
    public var mediaSequence: UInt64
    /// EXT-X-DISCONTINUITY-SEQUENCE: the Discontinuity Sequence Number of the first segment.
    public var discontinuitySequence: UInt64
    /// EXT-X-PLAYLIST-TYPE.
    public var playlistType: PlaylistType?
    /// EXT-X-INDEPENDENT-SEGMENTS: every segment decodes without the ones before it.
    public var independentSegments: Bool
    /// EXT-X-MAP URI: the fMP4 initialization segment.
    public var mapURI: String?
    /// EXT-X-PART-INF PART-TARGET in seconds; set for a Low-Latency playlist.
    public var partTarget: Double?
    /// EXT-X-SERVER-CONTROL.
    public var serverControl: HLSServerControl?
    /// Segments the playlist skipped when it was read (EXT-X-SKIP of a delta update); 0 for a full playlist.
    public var skippedSegments: UInt64
    /// The completed segments, oldest first.
    public var segments: [HLSMediaSegment]
    /// The segment in progress: its parts, printed after the last completed segment.
    public var openSegment: HLSOpenSegment
    /// EXT-X-PRELOAD-HINT for the next part.
    public var preloadHint: HLSPreloadHint?
    /// EXT-X-RENDITION-REPORT for each sibling rendition.
    public var renditionReports: [HLSRenditionReport]
    /// EXT-X-ENDLIST: no segment will be added.
    public var endList: Bool

    /// A playlist; `targetDuration` defaults to the longest segment's, rounded as the spec rounds.
    public init(
        targetDuration: Int? = nil, mediaSequence: UInt64 = 0, discontinuitySequence: UInt64 = 0,
        playlistType: PlaylistType? = nil, independentSegments: Bool = false, mapURI: String? = nil,
        partTarget: Double? = nil, serverControl: HLSServerControl? = nil, skippedSegments: UInt64 = 0,
        segments: [HLSMediaSegment] = [], openSegment: HLSOpenSegment = .init(), preloadHint: HLSPreloadHint? = nil,
        renditionReports: [HLSRenditionReport] = [], endList: Bool = false
    ) {
        self.targetDuration = targetDuration ?? Self.targetDuration(for: segments)
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.independentSegments = independentSegments
        self.mapURI = mapURI
        self.partTarget = partTarget
        self.serverControl = serverControl
        self.skippedSegments = skippedSegments
        self.segments = segments
        self.openSegment = openSegment
        self.preloadHint = preloadHint
        self.renditionReports = renditionReports
        self.endList = endList
    }

    /// The smallest legal EXT-X-TARGETDURATION for `segments`: the longest EXTINF rounded to the nearest second
    /// (§4.4.3.1), and at least 1.
    public static func targetDuration(for segments: [HLSMediaSegment]) -> Int {
        segments.reduce(1) { max($0, HLSNumber.roundedSeconds($1.duration)) }
    }

    /// §4.4.3.8: a Low-Latency playlist lists parts for this many target durations from its end (§6.2.2: EXT-X-PART
    /// tags SHOULD be removed once further than that).
    public static let partListingTargetDurations = 3.0

    /// The Media Sequence Number the next completed segment gets (the in-progress segment's).
    public var nextMediaSequence: UInt64 {
        mediaSequence.addingReportingOverflow(skippedSegments + UInt64(segments.count)).partialValue
    }

    /// EXT-X-VERSION: the lowest version whose features the playlist uses (§8): 3 for decimal EXTINF, 6 for
    /// EXT-X-MAP, 9 for EXT-X-SKIP (also when CAN-SKIP-UNTIL is advertised, so full and delta updates agree).
    public var version: Int {
        if skippedSegments > 0 || serverControl?.canSkipUntil != nil { return 9 }
        return mapURI == nil ? 3 : 6
    }

    /// The duration of everything listed: completed segments plus the parts of the one in progress.
    public var duration: Double {
        segments.reduce(0) { $0 + $1.duration } + openSegment.duration
    }

    /// The index of the first segment whose parts are printed: segments that started within three target durations
    /// of the end. A segment's parts are listed all or none, so clients count Part Indexes from its first part.
    public var firstSegmentListingParts: Int {
        guard partTarget != nil else { return segments.count }
        let window = Self.partListingTargetDurations * Double(targetDuration)
        var fromEnd = openSegment.duration
        var index = segments.count
        while index > 0 {
            fromEnd += segments[index - 1].duration
            if fromEnd > window + HLSServerControl.tolerance { break }
            index -= 1
        }
        return index
    }

    /// How many of the oldest segments a delta update replaces with EXT-X-SKIP: those that end further than the
    /// Skip Boundary from the end of the last completed segment. 0 when delta updates are not offered.
    public var skippableSegmentCount: Int {
        guard let boundary = serverControl?.canSkipUntil, !endList else { return 0 }
        var fromEnd = 0.0
        var index = segments.count
        // A segment is skippable when the segments after it already cover more than the boundary.
        while index > 0, fromEnd <= boundary + HLSServerControl.tolerance {
            index -= 1
            fromEnd += segments[index].duration
        }
        return fromEnd > boundary + HLSServerControl.tolerance ? index : 0
    }

    /// The playlist as text, one tag or URI per line, ending with a newline.
    public func render(_ form: Form = .full) -> String {
        let skipping = form == .deltaUpdate ? skippableSegmentCount : 0
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-TARGETDURATION:\(targetDuration)"]
        if let serverControl { lines.append("#" + HLSServerControl.tag + ":" + serverControl.attributes.description) }
        if let partTarget {
            lines.append("#EXT-X-PART-INF:PART-TARGET="
                         + HLSNumber.decimal(partTarget, fractionDigits: HLSNumber.durationFractionDigits))
        }
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        if discontinuitySequence > 0 || segments.contains(where: \.discontinuity) {
            lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)")
        }
        if let playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:" + playlistType.rawValue) }
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        let totalSkipped = skippedSegments.addingReportingOverflow(UInt64(skipping)).partialValue
        if totalSkipped > 0 { lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(totalSkipped)") }
        // After EXT-X-SKIP, so the map still precedes the first segment listed.
        if let mapURI { lines.append("#EXT-X-MAP:URI=\"" + mapURI + "\"") }
        let firstWithParts = firstSegmentListingParts
        for (index, segment) in segments.enumerated() where index >= skipping {
            segment.appendLines(to: &lines, listingParts: index >= firstWithParts)
        }
        if partTarget != nil { openSegment.appendLines(to: &lines) }
        if let preloadHint { lines.append("#" + HLSPreloadHint.tag + ":" + preloadHint.attributes.description) }
        for report in renditionReports {
            lines.append("#" + HLSRenditionReport.tag + ":" + report.attributes.description)
        }
        if endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The full playlist.
    public var description: String { render() }
}
