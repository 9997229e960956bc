// RFC 8216bis §4.4.4.9: the Partial Segments of a Parent Segment still being written, listed after the last
// completed segment, with the segment tags (§4.4.4.3, §4.4.4.6) that must precede its first part.

/// The segment in progress of a Low-Latency playlist: the parts published so far.
public struct HLSOpenSegment: Sendable, Equatable {
    /// EXT-X-DISCONTINUITY before the first part.
    public var discontinuity: Bool
    /// EXT-X-PROGRAM-DATE-TIME of the first part's first sample.
    public var programDateTime: HLSProgramDateTime?
    /// The parts so far, in order.
    public var parts: [HLSPartialSegment]

    /// An open segment from its fields (empty by default).
    public init(discontinuity: Bool = false, programDateTime: HLSProgramDateTime? = nil, parts: [HLSPartialSegment] = []) {
        self.discontinuity = discontinuity
        self.programDateTime = programDateTime
        self.parts = parts
    }

    /// The seconds published so far.
    public var duration: Double { parts.reduce(0) { $0 + $1.duration } }

    /// The completed segment these parts become.
    public func completed(uri: String, duration: Double) -> HLSMediaSegment {
        HLSMediaSegment(duration: duration, uri: uri, discontinuity: discontinuity, programDateTime: programDateTime,
                        parts: parts)
    }

    /// Its lines: nothing until the first part exists, since tags must be followed by a part or segment.
    func appendLines(to lines: inout [String]) {
        guard !parts.isEmpty else { return }
        if discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
        if let programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:" + programDateTime.description) }
        lines.append(contentsOf: parts.map(\.line))
    }
}
