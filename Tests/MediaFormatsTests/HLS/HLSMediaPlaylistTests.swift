import Testing
import MediaFormats

@Suite("HLSMediaPlaylist: rendering, delta updates, validation and reading back")
struct HLSMediaPlaylistTests {
    static let start = HLSProgramDateTime(millisecondsSince1970: 1_758_669_056_316)

    /// Segments of `seconds` each, named s<n>.m4s from `first`, each with `partsPerSegment` parts named p<n>.<i>.m4s.
    static func segments(_ count: Int, seconds: Double = 2, from first: Int = 0, partsPerSegment: Int = 0) -> [HLSMediaSegment] {
        (first..<(first + count)).map { n in
            let parts = (0..<partsPerSegment).map {
                HLSPartialSegment(duration: seconds / Double(partsPerSegment), uri: "p\(n).\($0).m4s", independent: $0 == 0)
            }
            return HLSMediaSegment(duration: seconds, uri: "s\(n).m4s", parts: parts)
        }
    }

    @Test func vodPlaylistPrintsLikeFFmpegsHlsenc() throws {
        // ffmpeg -f lavfi -i testsrc2 -t 4 -c:v libx264 -hls_time 2 -hls_segment_type fmp4 -hls_playlist_type vod
        // -f hls i.m3u8 prints the same tags (FFmpeg says VERSION:7 where 6 is enough, §6.2.1 SHOULD NOT be higher).
        var first = HLSMediaSegment(duration: 2.002, uri: "i0.m4s", programDateTime: Self.start)
        first.discontinuity = false
        let playlist = HLSMediaPlaylist(
            playlistType: .vod, independentSegments: true, mapURI: "init.mp4",
            segments: [first, HLSMediaSegment(duration: 1.998, uri: "i1.m4s", discontinuity: true,
                                              programDateTime: Self.start.adding(milliseconds: 2002))],
            endList: true)
        try playlist.validate()
        #expect(playlist.render() == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2025-09-23T23:10:56.316Z
            #EXTINF:2.002000,
            i0.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2025-09-23T23:10:58.318Z
            #EXTINF:1.998000,
            i1.m4s
            #EXT-X-ENDLIST

            """)
        #expect(try HLSMediaPlaylist(parsing: playlist.render()) == playlist)
    }

    /// §4.4.3.1: EXTINF rounded to the nearest integer must not exceed the target.
    static let targets: [HLSCaseRow<[Double], Int>] = [
        .init("no segments", [], 1), .init("short", [0.2], 1), .init("under a half", [2, 2.4999], 2),
        .init("a half rounds up", [2, 2.5], 3), .init("longest wins", [5.96, 6.0, 4.1], 6),
    ]

    @Test(arguments: targets)
    func targetDurationIsTheLongestSegmentRounded(_ c: HLSCaseRow<[Double], Int>) throws {
        let playlist = HLSMediaPlaylist(segments: c.input.enumerated().map { HLSMediaSegment(duration: $1, uri: "s\($0)") })
        #expect(playlist.targetDuration == c.expected)
        try playlist.validate()
    }

    static func lowLatency(segments count: Int, openParts: Int, skip: Bool = true) -> HLSMediaPlaylist {
        let control = HLSServerControl(canBlockReload: true, canSkipUntil: skip ? 12 : nil, partHoldBack: 1.5)
        let open = HLSOpenSegment(parts: (0..<openParts).map {
            HLSPartialSegment(duration: 0.5, uri: "p\(100 + count).\($0).m4s", independent: $0 == 0)
        })
        return HLSMediaPlaylist(
            targetDuration: 2, mediaSequence: 100, independentSegments: true, mapURI: "init.mp4", partTarget: 0.5,
            serverControl: control, segments: segments(count, from: 100, partsPerSegment: 4), openSegment: open,
            preloadHint: HLSPreloadHint(uri: "p\(100 + count).\(openParts).m4s"),
            renditionReports: [HLSRenditionReport(uri: "../a/i.m3u8", lastMediaSequenceNumber: 100 + UInt64(count),
                                                  lastPartIndex: UInt64(max(openParts, 1) - 1))])
    }

    @Test func lowLatencyPlaylistListsPartsForTheLastThreeTargetDurations() throws {
        let playlist = Self.lowLatency(segments: 4, openParts: 2)
        try playlist.validate()
        // 1 s of open parts + s103 (2 s) + s102 (2 s) = 5 s ≤ 6 s: parts listed; s101 would end at 7 s.
        #expect(playlist.firstSegmentListingParts == 2)
        #expect(playlist.render() == """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:2
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,PART-HOLD-BACK=1.500
            #EXT-X-PART-INF:PART-TARGET=0.500000
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:2.000000,
            s100.m4s
            #EXTINF:2.000000,
            s101.m4s
            #EXT-X-PART:DURATION=0.500000,URI="p102.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.500000,URI="p102.1.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="p102.2.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="p102.3.m4s"
            #EXTINF:2.000000,
            s102.m4s
            #EXT-X-PART:DURATION=0.500000,URI="p103.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.500000,URI="p103.1.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="p103.2.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="p103.3.m4s"
            #EXTINF:2.000000,
            s103.m4s
            #EXT-X-PART:DURATION=0.500000,URI="p104.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.500000,URI="p104.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="p104.2.m4s"
            #EXT-X-RENDITION-REPORT:URI="../a/i.m3u8",LAST-MSN=104,LAST-PART=1

            """)
    }

    /// Input: completed 2 s segments and open 0.5 s parts; expected: segments skipped.
    typealias DeltaCase = HLSCaseRow<(segments: Int, openParts: Int), Int>

    /// CAN-SKIP-UNTIL is 12 s: a segment is skipped when the segments after it last more than 12 s (the open
    /// segment's parts do not count: the boundary is measured from the end of the last Parent Segment).
    static let deltas: [DeltaCase] = [
        .init("12 s", (6, 0), 0), .init("14 s: the first ends exactly 12 s before the end", (7, 0), 0),
        .init("16 s and open parts", (8, 3), 1), .init("40 s", (20, 1), 13),
    ]

    @Test(arguments: deltas)
    func deltaUpdateSkipsSegmentsBeyondTheSkipBoundary(_ c: DeltaCase) throws {
        let playlist = Self.lowLatency(segments: c.input.segments, openParts: c.input.openParts)
        #expect(playlist.skippableSegmentCount == c.expected)
        let delta = try HLSMediaPlaylist(parsing: playlist.render(.deltaUpdate))
        #expect(delta.skippedSegments == UInt64(c.expected))
        #expect(delta.mediaSequence == playlist.mediaSequence)
        #expect(delta.segments.map(\.uri) == playlist.segments.dropFirst(c.expected).map(\.uri))
        #expect(delta.nextMediaSequence == playlist.nextMediaSequence)
        #expect(delta.openSegment == playlist.openSegment)
        // Tags that were not skipped stay (§6.2.5.1): the map, the hint and the reports.
        #expect(delta.mapURI == playlist.mapURI && delta.preloadHint == playlist.preloadHint)
        #expect(delta.renditionReports == playlist.renditionReports)
        let text = playlist.render(.deltaUpdate)
        #expect(text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=") == (c.expected > 0))
        #expect(text.contains("#EXT-X-VERSION:9"))
    }

    @Test func deltaUpdateIsTheFullPlaylistWithoutCanSkipUntilOrAfterTheEnd() {
        let withoutSkip = Self.lowLatency(segments: 20, openParts: 1, skip: false)
        #expect(withoutSkip.render(.deltaUpdate) == withoutSkip.render())
        var ended = Self.lowLatency(segments: 20, openParts: 0)
        ended.endList = true
        #expect(ended.render(.deltaUpdate) == ended.render())
    }

    @Test func deltaUpdateKeepsDiscontinuitySequenceAndDatesOfListedSegments() throws {
        var playlist = Self.lowLatency(segments: 10, openParts: 0)
        playlist.discontinuitySequence = 4
        playlist.segments[9].discontinuity = true
        playlist.segments[9].programDateTime = Self.start
        let delta = try HLSMediaPlaylist(parsing: playlist.render(.deltaUpdate))
        #expect(delta.discontinuitySequence == 4)
        #expect(delta.segments.last?.discontinuity == true && delta.segments.last?.programDateTime == Self.start)
    }

    typealias InvalidCase = HLSCaseRow<HLSMediaPlaylist, MediaFormatError?>

    static let invalid: [InvalidCase] = {
        let good = lowLatency(segments: 4, openParts: 1)
        func with(_ name: String, _ change: (inout HLSMediaPlaylist) -> Void) -> InvalidCase {
            var playlist = good
            change(&playlist)
            return .init(name, playlist, nil)
        }
        return [
            with("segment over the target") { $0.segments[0].duration = 2.5 },
            with("negative duration") { $0.segments[0].duration = -1 },
            with("NaN duration") { $0.segments[0].duration = .nan },
            with("part over PART-TARGET") { $0.openSegment.parts[0].duration = 0.6 },
            with("parts without PART-INF") { $0.partTarget = nil },
            with("PART-HOLD-BACK under three part targets") { $0.serverControl?.partHoldBack = 1.4 },
            with("PART-HOLD-BACK missing") { $0.serverControl?.partHoldBack = nil },
            with("CAN-SKIP-UNTIL under six target durations") { $0.serverControl?.canSkipUntil = 11.9 },
            with("HOLD-BACK under three target durations") { $0.serverControl?.holdBack = 5 },
            with("PART-INF without SERVER-CONTROL") { $0.serverControl = nil },
            with("URI with a line feed") { $0.segments[1].uri = "a\n#EXT-X-ENDLIST" },
            with("URI that reads as a tag") { $0.segments[1].uri = "#EXT-X-ENDLIST" },
            with("empty URI") { $0.segments[1].uri = "" },
            with("quoted URI with a quote") { $0.mapURI = "in\"it.mp4" },
            with("hint with a carriage return") { $0.preloadHint = HLSPreloadHint(uri: "a\rb") },
            with("target duration 0") { $0.targetDuration = 0 },
        ]
    }()

    @Test(arguments: invalid)
    func validationRefuses(_ c: InvalidCase) {
        #expect(throws: MediaFormatError.self) { try c.input.validate() }
    }

    @Test func readsBackWhatItPrints() throws {
        for playlist in [Self.lowLatency(segments: 5, openParts: 3), Self.lowLatency(segments: 1, openParts: 0)] {
            let text = playlist.render()
            let parsed = try HLSMediaPlaylist(parsing: text)
            #expect(parsed.render() == text)
            // Parts of segments further than three target durations are not printed, so not read back.
            #expect(parsed.segments.map(\.uri) == playlist.segments.map(\.uri))
        }
        var open = Self.lowLatency(segments: 3, openParts: 2)
        open.openSegment.discontinuity = true
        open.openSegment.programDateTime = Self.start
        let parsed = try HLSMediaPlaylist(parsing: open.render())
        #expect(parsed.openSegment == open.openSegment && parsed.render() == open.render())
    }

    /// "#EXTM3U" and a target duration, then `tags`.
    static func withHeader(_ tags: String) -> String { "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + tags }

    static let malformed: [HLSCaseRow<String, MediaFormatError?>] = [
        .init("empty", "", nil),
        .init("no header", "#EXT-X-TARGETDURATION:2\n", nil),
        .init("no target duration", "#EXTM3U\n#EXTINF:2,\na\n", nil),
        .init("URI without EXTINF", withHeader("a\n"), nil),
        .init("EXTINF without URI", withHeader("#EXTINF:2,\n"), nil),
        .init("bad EXTINF", withHeader("#EXTINF:nan,\na\n"), nil),
        .init("negative sequence", withHeader("#EXT-X-MEDIA-SEQUENCE:-1\n"), nil),
        .init("sequence past 2^64", withHeader("#EXT-X-MEDIA-SEQUENCE:18446744073709551616\n"), nil),
        .init("huge target", "#EXTM3U\n#EXT-X-TARGETDURATION:86401\n", nil),
        .init("part without URI", withHeader("#EXT-X-PART:DURATION=1\n"), nil),
        .init("unknown playlist type", withHeader("#EXT-X-PLAYLIST-TYPE:LIVE\n"), nil),
        .init("multivariant tag", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n", nil),
        .init("dangling discontinuity", withHeader("#EXT-X-DISCONTINUITY\n"), nil),
        .init("URI with a carriage return", withHeader("#EXTINF:2,\na\rb\n"), nil),
        .init("CR before the CR LF of a URI", withHeader("#EXTINF:2,\na\r\r\n"), nil),
    ]

    @Test(arguments: malformed)
    func parserRefuses(_ c: HLSCaseRow<String, MediaFormatError?>) {
        #expect(throws: MediaFormatError.self) { try HLSMediaPlaylist(parsing: c.input) }
    }

    @Test func parserIgnoresCommentsUnknownTagsBlankLinesAndCRLF() throws {
        let text = "#EXTM3U\r\n# a comment\r\n#EXT-X-TARGETDURATION:4\r\n#EXT-X-UNKNOWN:X=1\r\n\r\n#EXTINF:3.5,title\r\nseg.ts\r\n"
        let parsed = try HLSMediaPlaylist(parsing: text)
        #expect(parsed.targetDuration == 4 && parsed.segments == [HLSMediaSegment(duration: 3.5, uri: "seg.ts")])
    }

    @Test func parserRefusesOversizedInput() {
        let line = String(repeating: "a", count: 64 << 10 + 1)
        #expect(throws: MediaFormatError.self) { try HLSMediaPlaylist(parsing: "#EXTM3U\n" + line + "\n") }
        let parts = String(repeating: "#EXT-X-PART:DURATION=0.1,URI=\"p\"\n", count: HLSMediaPlaylist.maxPartsPerSegment + 1)
        #expect(throws: MediaFormatError.limitExceeded(what: "HLS parts per segment", value: 1001, limit: 1000)) {
            try HLSMediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + parts)
        }
    }
}
