// RFC 8216bis §4.4 Playlist Tags read back into an `HLSMediaPlaylist`: the tags `render` prints; other tags are
// skipped, as §6.3.1 tells clients to ignore tags they do not recognise.

extension HLSMediaPlaylist {
    /// More segments than any window or event playlist here keeps.
    public static let maxSegments = 100_000
    /// More parts than a segment can have (a 10 s segment of 0.1 s parts has 100).
    public static let maxPartsPerSegment = 1_000
    /// More sibling renditions than a multivariant playlist lists.
    public static let maxRenditionReports = 64
    /// The largest EXT-X-TARGETDURATION accepted, in seconds.
    public static let maxTargetDuration = 86_400

    private static let structure = "HLS media playlist"

    /// Reads a Media Playlist. Short or malformed input throws; the result satisfies `validate()` only if the text
    /// followed the rules it checks.
    public init(parsing text: String) throws {
        self.init()
        var sawTargetDuration = false
        var pendingDuration: Double?
        var pending = HLSOpenSegment()
        var pendingGap = false
        for line in try HLSPlaylistLines(parsing: text, structure: Self.structure).lines {
            switch line {
            case let .uri(uri):
                guard let duration = pendingDuration else {
                    throw MediaFormatError.invalid(structure: Self.structure, reason: "URI without EXTINF")
                }
                guard segments.count < Self.maxSegments else {
                    throw MediaFormatError.limitExceeded(what: "HLS segment count", value: segments.count + 1,
                                                         limit: Self.maxSegments)
                }
                var segment = pending.completed(uri: String(uri), duration: duration)
                segment.gap = pendingGap
                segments.append(segment)
                (pendingDuration, pending, pendingGap) = (nil, HLSOpenSegment(), false)
            case let .tag(name, value):
                switch name {
                case "EXTINF":
                    let text = try HLSPlaylistLines.value(value, tag: name)
                    let number = text.prefix { $0 != "," }
                    guard let duration = HLSNumber.decimal(number) else {
                        throw MediaFormatError.invalid(structure: "#EXTINF", reason: "duration '\(number.prefix(20))'")
                    }
                    pendingDuration = duration
                case "EXT-X-TARGETDURATION":
                    let seconds = try HLSPlaylistLines.integer(value, tag: name)
                    guard seconds <= Self.maxTargetDuration else {
                        throw MediaFormatError.limitExceeded(what: "EXT-X-TARGETDURATION", value: Int(min(seconds, UInt64(Int.max))),
                                                             limit: Self.maxTargetDuration)
                    }
                    targetDuration = Int(seconds)
                    sawTargetDuration = true
                case "EXT-X-MEDIA-SEQUENCE": mediaSequence = try HLSPlaylistLines.integer(value, tag: name)
                case "EXT-X-DISCONTINUITY-SEQUENCE": discontinuitySequence = try HLSPlaylistLines.integer(value, tag: name)
                case "EXT-X-VERSION": _ = try HLSPlaylistLines.integer(value, tag: name)
                case "EXT-X-PLAYLIST-TYPE":
                    let type = try HLSPlaylistLines.value(value, tag: name)
                    guard let parsed = PlaylistType(rawValue: String(type)) else {
                        throw MediaFormatError.invalid(structure: "#EXT-X-PLAYLIST-TYPE", reason: "'\(type.prefix(20))'")
                    }
                    playlistType = parsed
                case "EXT-X-INDEPENDENT-SEGMENTS": independentSegments = true
                case "EXT-X-ENDLIST": endList = true
                case "EXT-X-DISCONTINUITY": pending.discontinuity = true
                case "EXT-X-GAP": pendingGap = true
                case "EXT-X-PROGRAM-DATE-TIME":
                    pending.programDateTime = try HLSProgramDateTime(parsing: HLSPlaylistLines.value(value, tag: name))
                case "EXT-X-MAP":
                    let attributes = try HLSPlaylistLines.attributes(value, tag: name)
                    mapURI = try HLSAttributeList.required(attributes.quoted("URI", tag: "EXT-X-MAP"), "URI", tag: "EXT-X-MAP")
                case "EXT-X-PART-INF":
                    let attributes = try HLSPlaylistLines.attributes(value, tag: name)
                    partTarget = try HLSAttributeList.required(
                        attributes.decimal("PART-TARGET", tag: "EXT-X-PART-INF"), "PART-TARGET", tag: "EXT-X-PART-INF")
                case "EXT-X-SERVER-CONTROL":
                    serverControl = try HLSServerControl(attributes: HLSPlaylistLines.attributes(value, tag: name))
                case "EXT-X-SKIP":
                    let attributes = try HLSPlaylistLines.attributes(value, tag: name)
                    skippedSegments = try HLSAttributeList.required(
                        attributes.integer("SKIPPED-SEGMENTS", tag: "EXT-X-SKIP"), "SKIPPED-SEGMENTS", tag: "EXT-X-SKIP")
                case "EXT-X-PART":
                    guard pending.parts.count < Self.maxPartsPerSegment else {
                        throw MediaFormatError.limitExceeded(what: "HLS parts per segment", value: pending.parts.count + 1,
                                                             limit: Self.maxPartsPerSegment)
                    }
                    pending.parts.append(try HLSPartialSegment(attributes: HLSPlaylistLines.attributes(value, tag: name)))
                case "EXT-X-PRELOAD-HINT":
                    preloadHint = try HLSPreloadHint(attributes: HLSPlaylistLines.attributes(value, tag: name))
                case "EXT-X-RENDITION-REPORT":
                    guard renditionReports.count < Self.maxRenditionReports else {
                        throw MediaFormatError.limitExceeded(what: "HLS rendition reports", value: renditionReports.count + 1,
                                                             limit: Self.maxRenditionReports)
                    }
                    renditionReports.append(try HLSRenditionReport(attributes: HLSPlaylistLines.attributes(value, tag: name)))
                case "EXT-X-STREAM-INF", "EXT-X-MEDIA", "EXT-X-I-FRAME-STREAM-INF":
                    throw MediaFormatError.invalid(structure: Self.structure, reason: "#\(name) belongs in a multivariant playlist")
                default:
                    continue
                }
            }
        }
        guard sawTargetDuration else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no EXT-X-TARGETDURATION")
        }
        guard pendingDuration == nil, !pendingGap else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "segment tags without a URI at the end")
        }
        guard pending.parts.isEmpty ? !pending.discontinuity && pending.programDateTime == nil : true else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "segment tags without a URI at the end")
        }
        openSegment = pending
    }
}
