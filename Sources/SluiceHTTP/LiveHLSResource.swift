// docs/JOBS.md "Low-Latency HLS": what a request under /hls/JOB/OUTPUT/ may name, and the headers each kind of
// answer carries. Pure: names in, decisions out.
import MediaFormats

/// A file of a live HLS output as a request names it: one path component, checked before any disk access.
struct LiveHLSResource: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The Media Playlist (served from the registry, never from disk).
        case playlist
        /// The init segment (`.mp4`).
        case initSegment
        /// A segment or a part (`.m4s`).
        case media
    }

    let name: String
    let kind: Kind

    /// The longest file name accepted (the sink's names are far shorter).
    static let maxNameBytes = 255

    /// Nil for anything that is not a plain file name of the three kinds: no `/`, nothing starting with `.` (`..`, the
    /// sink's temporary files), only ASCII letters, digits, `-`, `_` and `.`, so no name leaves the output's folder.
    init?(name: String) {
        guard !name.isEmpty, name.utf8.count <= Self.maxNameBytes, name.first != ".",
              name.utf8.allSatisfy(Self.isAllowed) else { return nil }
        if name.hasSuffix(".m3u8") {
            kind = .playlist
        } else if name.hasSuffix(".m4s") {
            kind = .media
        } else if name.hasSuffix(".mp4") {
            kind = .initSegment
        } else {
            return nil
        }
        self.name = name
    }

    /// RFC 8216bis §4: playlists are `application/vnd.apple.mpegurl`; fMP4 segments are `video/iso.segment` (RFC 8216bis
    /// §10's registration for CMAF media segments) and the init segment `video/mp4`.
    var contentType: String {
        switch kind {
        case .playlist: "application/vnd.apple.mpegurl"
        case .initSegment: "video/mp4"
        case .media: "video/iso.segment"
        }
    }

    /// How long a cache may keep what is served.
    ///
    /// - A playlist asked for without `_HLS_msn` changes with every part: `no-cache`.
    /// - A playlist asked for with `_HLS_msn` (blocking reload) is an answer that stays right: any later version also
    ///   holds that part, so a cache may keep it for as long as the segment stays in the playlist (six target
    ///   durations, the skip boundary).
    /// - Segments, parts and the init segment never change under their name during a run: a minute.
    static func cacheControl(_ kind: Kind, directives: HLSDeliveryDirectives? = nil, targetDuration: Int = 1) -> String {
        switch kind {
        case .playlist:
            guard directives?.mediaSequenceNumber != nil else { return "no-cache" }
            let seconds = Int(HLSServerControl.minimumSkipBoundaryInTargetDurations) * max(1, targetDuration)
            return "public, max-age=\(seconds)"
        case .initSegment, .media:
            return "public, max-age=\(mediaMaxAgeSeconds)"
        }
    }

    static let mediaMaxAgeSeconds = 60

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
