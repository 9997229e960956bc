// RFC 8216bis §4.4.5.3 EXT-X-PRELOAD-HINT: a resource the server will publish next, which a client may request
// ahead (the server holds the request until the bytes exist, §6.2.6).

/// `#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part12.4.m4s"`.
public struct HLSPreloadHint: Sendable, Equatable {
    /// TYPE: what is hinted.
    public enum HintType: String, Sendable, Equatable {
        /// The next Partial Segment.
        case part = "PART"
        /// The next Media Initialization Section.
        case map = "MAP"
    }

    /// TYPE.
    public var type: HintType
    /// URI of the hinted resource.
    public var uri: String

    /// The tag name.
    public static let tag = "EXT-X-PRELOAD-HINT"

    /// A hint from its fields.
    public init(type: HintType = .part, uri: String) {
        self.type = type
        self.uri = uri
    }

    /// TYPE then URI.
    public var attributes: HLSAttributeList {
        var list = HLSAttributeList()
        list.append("TYPE", .enumerated(type.rawValue))
        list.append("URI", .quoted(uri))
        return list
    }

    /// Reads the attributes of an EXT-X-PRELOAD-HINT tag; TYPE and URI are required (byte ranges are not modelled).
    public init(attributes: HLSAttributeList) throws {
        let type = try HLSAttributeList.required(attributes.enumerated("TYPE", tag: Self.tag), "TYPE", tag: Self.tag)
        guard let hintType = HintType(rawValue: type) else {
            throw MediaFormatError.unsupported(structure: Self.tag, reason: "TYPE=\(type.prefix(20))")
        }
        self.type = hintType
        uri = try HLSAttributeList.required(attributes.quoted("URI", tag: Self.tag), "URI", tag: Self.tag)
    }
}
