// RFC 8216bis §4.4.4 Media Segment tags: EXTINF (§4.4.4.1), EXT-X-DISCONTINUITY (§4.4.4.3), EXT-X-PROGRAM-DATE-TIME
// (§4.4.4.6), EXT-X-GAP (§4.4.4.7) and the EXT-X-PART tags (§4.4.4.9) of a completed Parent Segment.

/// One Media Segment of a Media Playlist, with the Partial Segments it was published as (if any).
public struct HLSMediaSegment: Sendable, Equatable {
    /// EXTINF duration in seconds.
    public var duration: Double
    /// The URI line.
    public var uri: String
    /// EXT-X-DISCONTINUITY before this segment: encoding parameters or timestamps change here (§6.2.1).
    public var discontinuity: Bool
    /// EXT-X-PROGRAM-DATE-TIME: the wall-clock time of the segment's first sample.
    public var programDateTime: HLSProgramDateTime?
    /// EXT-X-GAP: the segment is unavailable.
    public var gap: Bool
    /// The Partial Segments that make up this segment, in order (empty without Low-Latency HLS).
    public var parts: [HLSPartialSegment]

    /// A segment from its fields.
    public init(duration: Double, uri: String, discontinuity: Bool = false, programDateTime: HLSProgramDateTime? = nil,
                gap: Bool = false, parts: [HLSPartialSegment] = []) {
        self.duration = duration
        self.uri = uri
        self.discontinuity = discontinuity
        self.programDateTime = programDateTime
        self.gap = gap
        self.parts = parts
    }

    /// The lines of this segment: the tags that apply to it, then (when `listingParts`) its EXT-X-PART tags, the
    /// EXTINF and the URI. EXT-X-DISCONTINUITY comes before the parts, which §4.4.4.9 requires.
    func appendLines(to lines: inout [String], listingParts: Bool) {
        if discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
        if let programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:" + programDateTime.description) }
        if listingParts { lines.append(contentsOf: parts.map(\.line)) }
        if gap { lines.append("#EXT-X-GAP") }
        lines.append("#EXTINF:" + HLSNumber.decimal(duration, fractionDigits: HLSNumber.durationFractionDigits) + ",")
        lines.append(uri)
    }
}
