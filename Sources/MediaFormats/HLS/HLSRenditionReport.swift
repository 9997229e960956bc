// RFC 8216bis §4.4.5.4 EXT-X-RENDITION-REPORT: where a sibling Rendition's live edge is, so a client switching to it
// can issue its first blocking request without loading it first.

/// `#EXT-X-RENDITION-REPORT:URI="../audio/index.m3u8",LAST-MSN=273,LAST-PART=2`.
public struct HLSRenditionReport: Sendable, Equatable {
    /// URI of the sibling Media Playlist, relative to this one.
    public var uri: String
    /// LAST-MSN: the Media Sequence Number of its last segment (of its last part, when it has parts).
    public var lastMediaSequenceNumber: UInt64
    /// LAST-PART: the index of its last part within LAST-MSN; required when it has parts.
    public var lastPartIndex: UInt64?

    /// The tag name.
    public static let tag = "EXT-X-RENDITION-REPORT"

    /// A report from its fields.
    public init(uri: String, lastMediaSequenceNumber: UInt64, lastPartIndex: UInt64? = nil) {
        self.uri = uri
        self.lastMediaSequenceNumber = lastMediaSequenceNumber
        self.lastPartIndex = lastPartIndex
    }

    /// URI, LAST-MSN, LAST-PART.
    public var attributes: HLSAttributeList {
        var list = HLSAttributeList()
        list.append("URI", .quoted(uri))
        list.append("LAST-MSN", .integer(lastMediaSequenceNumber))
        list.append("LAST-PART", lastPartIndex.map { .integer($0) })
        return list
    }

    /// Reads the attributes of an EXT-X-RENDITION-REPORT tag.
    public init(attributes: HLSAttributeList) throws {
        uri = try HLSAttributeList.required(attributes.quoted("URI", tag: Self.tag), "URI", tag: Self.tag)
        lastMediaSequenceNumber = try HLSAttributeList.required(
            attributes.integer("LAST-MSN", tag: Self.tag), "LAST-MSN", tag: Self.tag)
        lastPartIndex = try attributes.integer("LAST-PART", tag: Self.tag)
    }
}
