// RFC 8216bis §4.4.4.9 EXT-X-PART: one Partial Segment of a Low-Latency HLS Parent Segment.

/// A Partial Segment: `#EXT-X-PART:DURATION=0.500000,URI="part12.3.m4s",INDEPENDENT=YES`.
public struct HLSPartialSegment: Sendable, Equatable {
    /// DURATION in seconds; at most the playlist's PART-TARGET.
    public var duration: Double
    /// URI of the part's resource.
    public var uri: String
    /// INDEPENDENT=YES: the part starts with an independent frame (a client may start decoding here).
    public var independent: Bool
    /// GAP=YES: the part is unavailable (§6.2.1: absent media is announced, not hidden).
    public var gap: Bool

    /// The tag name.
    public static let tag = "EXT-X-PART"

    /// A part from its fields.
    public init(duration: Double, uri: String, independent: Bool = false, gap: Bool = false) {
        self.duration = duration
        self.uri = uri
        self.independent = independent
        self.gap = gap
    }

    /// DURATION, URI, then the flags, as Apple's examples order them.
    public var attributes: HLSAttributeList {
        var list = HLSAttributeList()
        list.append("DURATION", .decimal(duration, fractionDigits: HLSNumber.durationFractionDigits))
        list.append("URI", .quoted(uri))
        list.appendFlag("INDEPENDENT", independent)
        list.appendFlag("GAP", gap)
        return list
    }

    /// The whole tag line.
    public var line: String { "#" + Self.tag + ":" + attributes.description }

    /// Reads the attributes of an EXT-X-PART tag; DURATION and URI are required.
    public init(attributes: HLSAttributeList) throws {
        duration = try HLSAttributeList.required(attributes.decimal("DURATION", tag: Self.tag), "DURATION", tag: Self.tag)
        uri = try HLSAttributeList.required(attributes.quoted("URI", tag: Self.tag), "URI", tag: Self.tag)
        independent = try attributes.flag("INDEPENDENT", tag: Self.tag)
        gap = try attributes.flag("GAP", tag: Self.tag)
    }
}
