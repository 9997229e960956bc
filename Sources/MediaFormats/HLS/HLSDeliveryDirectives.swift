// RFC 8216bis §6.2.5 Delivery Directives: the `_HLS_msn`, `_HLS_part` and `_HLS_skip` query parameters of a
// playlist request, read with checked conversions (the values come from any client on the network).

/// The Delivery Directives of one playlist request.
public struct HLSDeliveryDirectives: Sendable, Equatable {
    /// `_HLS_skip` values (§6.2.5.1).
    public enum Skip: String, Sendable, Equatable {
        /// Skip old segments.
        case yes = "YES"
        /// Skip old segments and old EXT-X-DATERANGE tags (this server writes none, so it answers as for YES).
        case v2
    }

    /// `_HLS_msn`: block until the segment with this Media Sequence Number (or a later one) is in the playlist.
    public var mediaSequenceNumber: UInt64?
    /// `_HLS_part`: block until this part of that segment is in the playlist.
    public var partIndex: UInt64?
    /// `_HLS_skip`: answer with a delta update.
    public var skip: Skip?

    /// The prefix the spec reserves for directives; other parameters are the application's.
    public static let reservedPrefix = "_HLS_"
    /// A query longer than this is not a playlist request's.
    public static let maxQueryBytes = 4096
    private static let structure = "HLS delivery directives"

    /// Directives from their values.
    public init(mediaSequenceNumber: UInt64? = nil, partIndex: UInt64? = nil, skip: Skip? = nil) {
        self.mediaSequenceNumber = mediaSequenceNumber
        self.partIndex = partIndex
        self.skip = skip
    }

    /// Reads the query string of a request (without the `?`). Parameters outside `_HLS_` are ignored; a directive
    /// given twice, with a value that is not a decimal-integer (or YES/v2), or an unknown `_HLS_` directive throws,
    /// which the HTTP layer answers with 400.
    public init(query: String) throws {
        guard query.utf8.count <= Self.maxQueryBytes else {
            throw MediaFormatError.limitExceeded(what: "playlist query length", value: query.utf8.count, limit: Self.maxQueryBytes)
        }
        self.init()
        for pair in query.split(separator: "&") {
            let name = pair.prefix { $0 != "=" }
            guard name.hasPrefix(Self.reservedPrefix) else { continue }
            guard name.count < pair.count else { throw Self.invalid("\(name) has no value") }
            let value = pair.dropFirst(name.count + 1)
            switch name {
            case "_HLS_msn":
                guard mediaSequenceNumber == nil else { throw Self.invalid("_HLS_msn given twice") }
                mediaSequenceNumber = try Self.integer(value, name)
            case "_HLS_part":
                guard partIndex == nil else { throw Self.invalid("_HLS_part given twice") }
                partIndex = try Self.integer(value, name)
            case "_HLS_skip":
                guard skip == nil else { throw Self.invalid("_HLS_skip given twice") }
                guard let parsed = Skip(rawValue: String(value)) else { throw Self.invalid("_HLS_skip=\(value.prefix(20))") }
                skip = parsed
            default:
                throw Self.invalid("unknown directive \(name.prefix(40))")
            }
        }
    }

    /// The directives as a query string, in the order the spec lists them (for clients and tests).
    public var query: String {
        var items: [String] = []
        if let mediaSequenceNumber { items.append("_HLS_msn=\(mediaSequenceNumber)") }
        if let partIndex { items.append("_HLS_part=\(partIndex)") }
        if let skip { items.append("_HLS_skip=" + skip.rawValue) }
        return items.joined(separator: "&")
    }

    private static func integer(_ text: Substring, _ name: Substring) throws -> UInt64 {
        guard let value = HLSNumber.integer(text) else { throw invalid("\(name)=\(text.prefix(24)) is not a decimal-integer") }
        return value
    }

    private static func invalid(_ reason: String) -> MediaFormatError { .invalid(structure: structure, reason: reason) }
}
