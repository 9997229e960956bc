import Testing
import MediaFormats

@Suite("HLSSlidingWindow: appending, removing, sequence numbers and deletions")
struct HLSSlidingWindowTests {
    static func segment(_ n: Int, seconds: Double = 2, discontinuity: Bool = false) -> HLSMediaSegment {
        HLSMediaSegment(duration: seconds, uri: "s\(n).m4s", discontinuity: discontinuity)
    }

    @Test func liveWindowSlidesAndIncrementsTheMediaSequence() throws {
        var window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 3), targetDuration: 2, mapURI: "init.mp4"))
        var deleted: [String] = []
        for n in 0..<10 {
            let update = try window.appendSegment(Self.segment(n))
            deleted += update.deletable
            #expect(update.playlist.segments.count == min(n + 1, 3))
            #expect(update.playlist.mediaSequence == UInt64(max(0, n - 2)))
            #expect(update.playlist.segments.last?.uri == "s\(n).m4s")
            try update.playlist.validate()
        }
        // A segment leaves when s(n+3) arrives and waits max(3 × 2 s, the 8 s playlist it left) = four more segments.
        #expect(deleted == ["s0.m4s", "s1.m4s", "s2.m4s"])
        #expect(window.heldURIs == ["s3.m4s", "s4.m4s", "s5.m4s", "s6.m4s"])
        let end = window.finish()
        #expect(end.playlist.endList && end.playlist.render().hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(end.playlist.playlistType == nil)
    }

    @Test func liveWindowNeverDropsBelowThreeTargetDurations() throws {
        // One-second segments against a 4 s target: a window of 2 would last 2 s, so 12 segments (12 s) stay.
        var window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 2), targetDuration: 4))
        var playlist = HLSMediaPlaylist()
        for n in 0..<20 { playlist = try window.appendSegment(Self.segment(n, seconds: 1)).playlist }
        #expect(playlist.segments.count == 12 && playlist.mediaSequence == 8)
        #expect(playlist.duration >= 12)
    }

    @Test func discontinuitySequenceCountsRemovedDiscontinuities() throws {
        var window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 3), targetDuration: 2))
        let breaks: Set<Int> = [2, 3, 7]
        var sequence: [UInt64] = []
        for n in 0..<10 {
            sequence.append(try window.appendSegment(Self.segment(n, discontinuity: breaks.contains(n))).playlist.discontinuitySequence)
        }
        #expect(sequence == [0, 0, 0, 0, 0, 1, 2, 2, 2, 2])
        // The Discontinuity Sequence Number of every listed segment matches a count from the start (§6.2.2).
        let playlist = window.playlist
        var number = playlist.discontinuitySequence
        for (offset, segment) in playlist.segments.enumerated() {
            if segment.discontinuity { number += 1 }
            let index = Int(playlist.mediaSequence) + offset
            #expect(number == UInt64((0...index).filter(breaks.contains).count))
        }
    }

    @Test func eventModeKeepsEverySegment() throws {
        var window = try HLSSlidingWindow(configuration: .init(mode: .event, targetDuration: 2, mapURI: "init.mp4"))
        var deleted: [String] = []
        for n in 0..<50 { deleted += try window.appendSegment(Self.segment(n)).deletable }
        #expect(deleted.isEmpty && window.playlist.segments.count == 50 && window.playlist.mediaSequence == 0)
        let text = window.finish().playlist.render()
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && text.hasSuffix("#EXT-X-ENDLIST\n"))
        var vod = try HLSSlidingWindow(configuration: .init(mode: .vod, targetDuration: 2))
        _ = try vod.appendSegment(Self.segment(0))
        #expect(vod.finish().playlist.render().contains("#EXT-X-PLAYLIST-TYPE:VOD"))
    }

    @Test func lowLatencyPartsBecomeSegmentsAndLeaveTheListing() throws {
        var window = try HLSSlidingWindow(configuration: .init(
            mode: .live(window: 6), targetDuration: 2, partTarget: 0.5, mapURI: "init.mp4", offersDeltaUpdates: true))
        var deleted: [String] = []
        var update: HLSSlidingWindow.Update?
        for n in 0..<12 {
            for i in 0..<4 {
                update = try window.appendPart(HLSPartialSegment(duration: 0.5, uri: "p\(n).\(i).m4s", independent: i == 0),
                                               discontinuity: n == 9, nextPartURI: i < 3 ? "p\(n).\(i + 1).m4s" : "p\(n + 1).0.m4s")
                deleted += update?.deletable ?? []
            }
            update = try window.appendSegment(HLSMediaSegment(duration: 2, uri: "s\(n).m4s"), nextPartURI: "p\(n + 1).0.m4s")
            deleted += update?.deletable ?? []
        }
        let playlist = try #require(update?.playlist)
        try playlist.validate()
        #expect(playlist.serverControl == HLSServerControl(canBlockReload: true, canSkipUntil: 12, partHoldBack: 1.5))
        #expect(playlist.segments.first(where: { $0.uri == "s9.m4s" })?.discontinuity == true)
        #expect(playlist.preloadHint == HLSPreloadHint(uri: "p12.0.m4s"))
        // Parts of segments older than three target durations are forgotten, then deleted after their hold.
        #expect(playlist.segments.map(\.uri) == (6..<12).map { "s\($0).m4s" })
        #expect(playlist.segments.map(\.parts.count) == [0, 0, 0, 4, 4, 4])
        #expect(deleted.contains("p0.0.m4s") && !deleted.contains("p8.0.m4s") && window.heldURIs.contains("p8.0.m4s"))
        // s0 left at 14 s of media, out of a 14 s playlist: it is held until 28 s.
        #expect(deleted.filter { $0.hasPrefix("s") }.isEmpty && window.heldURIs.contains("s0.m4s"))
        #expect(Set(deleted).count == deleted.count)
        // The open segment's first part carries the discontinuity until the segment completes.
        let first = try window.appendPart(HLSPartialSegment(duration: 0.5, uri: "p12.0.m4s"), discontinuity: true,
                                          programDateTime: HLSProgramDateTime(millisecondsSince1970: 0))
        #expect(first.playlist.render().contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:1970-01-01T00:00:00.000Z\n#EXT-X-PART"))
        let completed = try window.appendSegment(HLSMediaSegment(duration: 0.5, uri: "s12.m4s")).playlist
        #expect(completed.segments.last?.discontinuity == true && completed.segments.last?.parts.map(\.uri) == ["p12.0.m4s"])
    }

    @Test func aLongSegmentRaisesTheTargetDurationAndTheSkipBoundary() throws {
        var window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 5), targetDuration: 2, offersDeltaUpdates: true))
        _ = try window.appendSegment(Self.segment(0))
        let playlist = try window.appendSegment(Self.segment(1, seconds: 3.6)).playlist
        #expect(playlist.targetDuration == 4 && playlist.serverControl?.canSkipUntil == 24)
        try playlist.validate()
    }

    @Test func refusesWhatTheSpecForbids() throws {
        #expect(throws: MediaFormatError.self) { try HLSSlidingWindow(configuration: .init(mode: .live(window: 0), targetDuration: 2)) }
        #expect(throws: MediaFormatError.self) { try HLSSlidingWindow(configuration: .init(mode: .event, targetDuration: 0)) }
        #expect(throws: MediaFormatError.self) {
            try HLSSlidingWindow(configuration: .init(mode: .event, targetDuration: 2, partTarget: 3))
        }
        var plain = try HLSSlidingWindow(configuration: .init(mode: .event, targetDuration: 2))
        #expect(throws: MediaFormatError.self) { try plain.appendPart(HLSPartialSegment(duration: 0.5, uri: "p")) }
        var ll = try HLSSlidingWindow(configuration: .init(mode: .event, targetDuration: 2, partTarget: 0.5))
        #expect(throws: MediaFormatError.self) { try ll.appendPart(HLSPartialSegment(duration: 0.7, uri: "p")) }
        #expect(throws: MediaFormatError.self) { try ll.appendSegment(HLSMediaSegment(duration: 1, uri: "a\nb")) }
        // A refused event leaves the window as it was.
        #expect(ll.playlist.segments.isEmpty && ll.playlist.openSegment.parts.isEmpty && ll.mediaTime == 0)
    }
}
