// RFC 8216bis §6.2.5.2 Blocking Playlist Reload and §6.2.5.1 Playlist Delta Updates: what to do with a playlist
// request given its Delivery Directives and the playlist as it stands. A pure decision; the HTTP layer applies it.

/// What the server does with one playlist request.
public enum HLSPlaylistResponse: Sendable, Equatable {
    /// Send the playlist now, printed in this form.
    case respond(HLSMediaPlaylist.Form)
    /// Hold the request and decide again whenever the playlist changes; answer 503 after `timeout` seconds (§6.2.5.2:
    /// a server that cannot answer within three target durations SHOULD return Service Unavailable).
    case wait(form: HLSMediaPlaylist.Form, timeout: Double)
    /// Answer 400 Bad Request at once.
    case badRequest(reason: String)

    /// §6.2.5.2: the furthest ahead of the last segment a request may ask for.
    public static let maxSegmentsAhead: UInt64 = 2
    /// §6.2.5.2: the Advance Part Limit is three parts, or three seconds of parts when parts are shorter than 1 s.
    public static let advancePartLimitSeconds = 3.0
    /// §6.2.5.2: the longest a request is held, in target durations.
    public static let maxWaitTargetDurations = 3.0

    /// The response to a request with `directives` against `playlist`.
    public static func deciding(_ directives: HLSDeliveryDirectives, for playlist: HLSMediaPlaylist) -> Self {
        // §6.2.5.2: _HLS_part without _HLS_msn is a Bad Request.
        if directives.partIndex != nil, directives.mediaSequenceNumber == nil {
            return .badRequest(reason: "_HLS_part without _HLS_msn")
        }
        // §6.2.5.1 and §6.2.5.2: an ended playlist ignores every directive.
        guard !playlist.endList else { return .respond(.full) }
        let form: HLSMediaPlaylist.Form =
            directives.skip != nil && playlist.serverControl?.canSkipUntil != nil ? .deltaUpdate : .full
        guard let msn = directives.mediaSequenceNumber, playlist.serverControl?.canBlockReload == true else {
            return .respond(form)
        }
        let next = playlist.nextMediaSequence
        // "Greater than the last segment's Media Sequence Number plus two": the open segment is last + 1.
        let (limit, overflow) = next.addingReportingOverflow(maxSegmentsAhead - 1)
        if !overflow, msn > limit {
            return .badRequest(reason: "_HLS_msn=\(msn) is more than two segments past the last (\(next &- 1))")
        }
        if let part = directives.partIndex, msn == next, let partTarget = playlist.partTarget {
            let partLimit = partTarget < 1 ? advancePartLimitSeconds / partTarget : advancePartLimitSeconds
            let lastPart = Double(playlist.openSegment.parts.count) - 1
            if Double(part) - lastPart > partLimit {
                return .badRequest(reason: "_HLS_part=\(part) is past the Advance Part Limit")
            }
        }
        if isAvailable(msn: msn, part: directives.partIndex, in: playlist) { return .respond(form) }
        return .wait(form: form, timeout: maxWaitTargetDurations * Double(playlist.targetDuration))
    }

    /// True when the playlist holds segment `msn` (or a later one) and, when asked, part `part` of it (or a later
    /// part). A part index past a completed segment's last part means part 0 of the next segment (§6.2.5.2).
    static func isAvailable(msn: UInt64, part: UInt64?, in playlist: HLSMediaPlaylist) -> Bool {
        let next = playlist.nextMediaSequence
        guard let part else { return msn < next }
        if msn > next { return false }
        if msn == next { return part < UInt64(playlist.openSegment.parts.count) }
        // A completed segment: older than the playlist, or its parts no longer known, means it is long available.
        let first = playlist.mediaSequence &+ playlist.skippedSegments
        guard msn >= first else { return true }
        let parts = playlist.segments[Int(msn - first)].parts.count
        if parts == 0 || part < UInt64(parts) { return true }
        return isAvailable(msn: msn + 1, part: 0, in: playlist)
    }
}
