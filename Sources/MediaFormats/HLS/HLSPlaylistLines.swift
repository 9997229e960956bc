// RFC 8216bis §4.1 Definition of a Playlist: UTF-8 lines ended by LF or CR LF, the first being #EXTM3U; lines
// starting "#EXT" are tags, other lines starting "#" are comments, the rest URIs; blank lines are ignored.

/// A playlist cut into classified lines, with the bounds every reader of untrusted playlists applies.
struct HLSPlaylistLines {
    /// One meaningful line.
    enum Line {
        /// `#NAME` or `#NAME:value` (value without the colon).
        case tag(name: Substring, value: Substring?)
        /// A URI line.
        case uri(Substring)
    }

    /// Larger than any playlist a server of ours writes or a client needs to read.
    static let maxBytes = 16 << 20
    /// A line longer than this is not a playlist line (URIs and attribute lists are far shorter).
    static let maxLineBytes = 64 << 10

    let lines: [Line]

    init(parsing text: String, structure: String) throws {
        guard text.utf8.count <= Self.maxBytes else {
            throw MediaFormatError.limitExceeded(what: "\(structure) size", value: text.utf8.count, limit: Self.maxBytes)
        }
        var result: [Line] = []
        var sawHeader = false
        // "\r\n" is one Character in Swift, so both line ends are split on here; any other CR stays in its line.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard line.utf8.count <= Self.maxLineBytes else {
                throw MediaFormatError.limitExceeded(what: "\(structure) line length", value: line.utf8.count,
                                                     limit: Self.maxLineBytes)
            }
            if !sawHeader {
                guard line == "#EXTM3U" else {
                    throw MediaFormatError.invalid(structure: structure, reason: "first line is not #EXTM3U")
                }
                sawHeader = true
                continue
            }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if line.hasPrefix("#EXT") {
                let body = line.dropFirst()
                if let colon = body.firstIndex(of: ":") {
                    result.append(.tag(name: body[..<colon], value: body[body.index(after: colon)...]))
                } else {
                    result.append(.tag(name: body, value: nil))
                }
            } else if !line.hasPrefix("#") {
                // RFC 3986 URIs hold no control characters, and a CR printed before the line's LF would read as CR LF.
                guard !line.utf8.contains(UInt8(ascii: "\r")) else {
                    throw MediaFormatError.invalid(structure: structure, reason: "URI line holds a carriage return")
                }
                result.append(.uri(line))
            }
        }
        guard sawHeader else { throw MediaFormatError.invalid(structure: structure, reason: "empty playlist") }
        lines = result
    }

    /// The value of a tag that must have one.
    static func value(_ value: Substring?, tag: Substring) throws -> Substring {
        guard let value else { throw MediaFormatError.invalid(structure: "#" + tag, reason: "missing value") }
        return value
    }

    /// The attribute list of a tag that must have one.
    static func attributes(_ value: Substring?, tag: Substring) throws -> HLSAttributeList {
        try HLSAttributeList(parsing: Self.value(value, tag: tag), tag: String(tag))
    }

    /// A decimal-integer tag value.
    static func integer(_ value: Substring?, tag: Substring) throws -> UInt64 {
        guard let number = HLSNumber.integer(try Self.value(value, tag: tag)) else {
            throw MediaFormatError.invalid(structure: "#" + tag, reason: "not a decimal-integer")
        }
        return number
    }
}
