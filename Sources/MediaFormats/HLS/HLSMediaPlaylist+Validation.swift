// RFC 8216bis rules a Media Playlist's values must follow before it is printed: §4.4.3.1 (target duration),
// §4.4.3.7 and §4.4.4.9 (part target and part durations), §4.4.3.8 (server control bounds), §4.1 and §4.2 (lines
// and quoted-strings).

extension HLSMediaPlaylist {
    private static let structure = "HLS media playlist"

    /// Throws the first rule the playlist breaks; a playlist that passes prints as a valid Media Playlist.
    public func validate() throws {
        guard targetDuration >= 1 else { throw Self.invalid("EXT-X-TARGETDURATION \(targetDuration) is below 1") }
        for segment in segments {
            try Self.checkDuration(segment.duration, "EXTINF")
            let rounded = HLSNumber.roundedSeconds(segment.duration)
            guard rounded <= targetDuration else {
                throw Self.invalid("segment \(segment.uri) rounds to \(rounded) s, over EXT-X-TARGETDURATION \(targetDuration)")
            }
            try Self.checkLine(segment.uri, quoted: false)
            guard partTarget != nil || segment.parts.isEmpty else { throw Self.invalid("EXT-X-PART without EXT-X-PART-INF") }
            for part in segment.parts { try checkPart(part) }
        }
        guard partTarget != nil || openSegment.parts.isEmpty else { throw Self.invalid("EXT-X-PART without EXT-X-PART-INF") }
        for part in openSegment.parts { try checkPart(part) }
        if let partTarget {
            guard partTarget.isFinite, partTarget > 0 else { throw Self.invalid("PART-TARGET \(partTarget) is not positive") }
            guard let serverControl else { throw Self.invalid("EXT-X-PART-INF needs EXT-X-SERVER-CONTROL with PART-HOLD-BACK") }
            try serverControl.validate(targetDuration: targetDuration, partTarget: partTarget)
        } else {
            try serverControl?.validate(targetDuration: targetDuration, partTarget: nil)
        }
        if let mapURI { try Self.checkLine(mapURI, quoted: true) }
        if let preloadHint { try Self.checkLine(preloadHint.uri, quoted: true) }
        for report in renditionReports { try Self.checkLine(report.uri, quoted: true) }
    }

    private func checkPart(_ part: HLSPartialSegment) throws {
        try Self.checkDuration(part.duration, HLSPartialSegment.tag)
        if let partTarget, part.duration > partTarget + HLSServerControl.tolerance {
            throw Self.invalid("part \(part.uri) lasts \(part.duration) s, over PART-TARGET \(partTarget)")
        }
        try Self.checkLine(part.uri, quoted: true)
    }

    private static func checkDuration(_ duration: Double, _ tag: String) throws {
        guard duration.isFinite, duration >= 0, duration <= HLSNumber.maxSeconds else {
            throw invalid("\(tag) duration \(duration) is not a number of seconds")
        }
    }

    /// A URI must be one non-empty line; inside quotes it must not hold a double quote either.
    private static func checkLine(_ text: String, quoted: Bool) throws {
        guard !text.isEmpty else { throw invalid("empty URI") }
        guard HLSAttributeList.isQuotable(text) || (!quoted && !text.utf8.contains { $0 == 0x0A || $0 == 0x0D }) else {
            throw invalid("URI \(text.debugDescription) cannot be printed on one line\(quoted ? " in quotes" : "")")
        }
        guard quoted || text.first != "#" else { throw invalid("URI \(text.debugDescription) would read as a tag") }
    }

    private static func invalid(_ reason: String) -> MediaFormatError { .invalid(structure: structure, reason: reason) }
}
