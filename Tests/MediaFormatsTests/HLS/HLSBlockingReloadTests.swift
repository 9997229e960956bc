import Testing
import MediaFormats

@Suite("HLS delivery directives and the blocking reload decision (RFC 8216bis §6.2.5)")
struct HLSBlockingReloadTests {
    static let queries: [HLSCaseRow<String, HLSDeliveryDirectives?>] = [
        .init("(empty)", "", .init()),
        .init("_HLS_msn=104&_HLS_part=2", "_HLS_msn=104&_HLS_part=2", .init(mediaSequenceNumber: 104, partIndex: 2)),
        .init("token=abc&_HLS_skip=YES&_HLS_msn=7", "token=abc&_HLS_skip=YES&_HLS_msn=7", .init(mediaSequenceNumber: 7, skip: .yes)),
        .init("_HLS_skip=v2", "_HLS_skip=v2", .init(skip: .v2)),
        .init("_HLS_msn=18446744073709551615", "_HLS_msn=18446744073709551615", .init(mediaSequenceNumber: .max)),
        .init("_HLS_msn=18446744073709551616", "_HLS_msn=18446744073709551616", nil),
        .init("_HLS_msn=-1", "_HLS_msn=-1", nil),
        .init("_HLS_msn=+1", "_HLS_msn=+1", nil),
        .init("_HLS_msn=1.0", "_HLS_msn=1.0", nil),
        .init("_HLS_msn=", "_HLS_msn=", nil),
        .init("_HLS_msn", "_HLS_msn", nil),
        .init("_HLS_msn=1&_HLS_msn=2", "_HLS_msn=1&_HLS_msn=2", nil),
        .init("_HLS_part=0x1", "_HLS_part=0x1", nil),
        .init("_HLS_skip=yes", "_HLS_skip=yes", nil),
        .init("_HLS_push=1", "_HLS_push=1", nil),
    ]

    @Test(arguments: queries)
    func directivesParse(_ c: HLSCaseRow<String, HLSDeliveryDirectives?>) throws {
        if let expected = c.expected {
            let parsed = try HLSDeliveryDirectives(query: c.input)
            #expect(parsed == expected)
            #expect(try HLSDeliveryDirectives(query: parsed.query) == expected)
        } else {
            #expect(throws: MediaFormatError.self) { try HLSDeliveryDirectives(query: c.input) }
        }
    }

    /// Segments 100...103 (four parts of 0.5 s each), two parts of 104 published.
    static let live = HLSMediaPlaylistTests.lowLatency(segments: 4, openParts: 2)
    static let wait = HLSPlaylistResponse.wait(form: .full, timeout: 6)

    struct DecisionCase: Sendable, CustomTestStringConvertible {
        let name: String
        let directives: HLSDeliveryDirectives
        var playlist = HLSBlockingReloadTests.live
        let expected: HLSPlaylistResponse?
        var badRequest = false
        var testDescription: String { name }
    }

    static let decisions: [DecisionCase] = [
        .init(name: "no directives: answer now", directives: .init(), expected: .respond(.full)),
        .init(name: "skip only: delta update now", directives: .init(skip: .yes), expected: .respond(.deltaUpdate)),
        .init(name: "skip v2 answers as YES (no date ranges here)", directives: .init(skip: .v2), expected: .respond(.deltaUpdate)),
        .init(name: "msn of a listed segment", directives: .init(mediaSequenceNumber: 103), expected: .respond(.full)),
        .init(name: "msn of a removed segment: the whole playlist at once", directives: .init(mediaSequenceNumber: 3),
              expected: .respond(.full)),
        .init(name: "msn of the open segment: wait for it to complete", directives: .init(mediaSequenceNumber: 104),
              expected: wait),
        .init(name: "msn last + 2: wait", directives: .init(mediaSequenceNumber: 105), expected: wait),
        .init(name: "msn last + 3: 400", directives: .init(mediaSequenceNumber: 106), expected: nil, badRequest: true),
        .init(name: "msn 2^64 − 1: 400, no overflow", directives: .init(mediaSequenceNumber: .max), expected: nil, badRequest: true),
        .init(name: "published part", directives: .init(mediaSequenceNumber: 104, partIndex: 1), expected: .respond(.full)),
        .init(name: "next part: wait", directives: .init(mediaSequenceNumber: 104, partIndex: 2), expected: wait),
        .init(name: "6 parts past the last (0.5 s parts: limit 6): wait",
              directives: .init(mediaSequenceNumber: 104, partIndex: 7), expected: wait),
        .init(name: "7 parts past the last: 400", directives: .init(mediaSequenceNumber: 104, partIndex: 8), expected: nil,
              badRequest: true),
        .init(name: "part of a completed segment", directives: .init(mediaSequenceNumber: 103, partIndex: 3),
              expected: .respond(.full)),
        .init(name: "part past a completed segment's last is part 0 of the next", directives: .init(mediaSequenceNumber: 103, partIndex: 9),
              expected: .respond(.full)),
        .init(name: "part of a completed segment whose parts are no longer listed",
              directives: .init(mediaSequenceNumber: 100, partIndex: 40), expected: .respond(.full)),
        .init(name: "part of the segment after the open one: wait", directives: .init(mediaSequenceNumber: 105, partIndex: 0),
              expected: wait),
        .init(name: "blocking with skip: wait, then a delta update",
              directives: .init(mediaSequenceNumber: 104, partIndex: 2, skip: .yes), expected: .wait(form: .deltaUpdate, timeout: 6)),
        .init(name: "part without msn: 400", directives: .init(partIndex: 0), expected: nil, badRequest: true),
        .init(name: "ended playlist ignores msn and skip", directives: .init(mediaSequenceNumber: 200, skip: .yes),
              playlist: { var p = live; p.endList = true; return p }(), expected: .respond(.full)),
        .init(name: "no CAN-BLOCK-RELOAD: answer now", directives: .init(mediaSequenceNumber: 200),
              playlist: { var p = live; p.serverControl?.canBlockReload = false; return p }(), expected: .respond(.full)),
        .init(name: "no CAN-SKIP-UNTIL: skip ignored", directives: .init(skip: .yes),
              playlist: HLSMediaPlaylistTests.lowLatency(segments: 4, openParts: 2, skip: false), expected: .respond(.full)),
        .init(name: "open segment not started: part 0 of it waits", directives: .init(mediaSequenceNumber: 104, partIndex: 0),
              playlist: HLSMediaPlaylistTests.lowLatency(segments: 4, openParts: 0), expected: wait),
        .init(name: "open segment not started: past the last completed part resolves to it and waits",
              directives: .init(mediaSequenceNumber: 103, partIndex: 4),
              playlist: HLSMediaPlaylistTests.lowLatency(segments: 4, openParts: 0), expected: wait),
    ]

    @Test(arguments: decisions)
    func decides(_ c: DecisionCase) {
        let response = HLSPlaylistResponse.deciding(c.directives, for: c.playlist)
        if c.badRequest {
            guard case .badRequest = response else {
                Issue.record("expected 400, got \(response)")
                return
            }
        } else {
            #expect(response == c.expected)
        }
    }

    @Test func shortPartsWidenTheAdvancePartLimit() {
        // PART-TARGET 0.2 s: the limit is 3 / 0.2 = 15 parts past the last published one.
        var playlist = Self.live
        playlist.partTarget = 0.2
        playlist.openSegment.parts = [HLSPartialSegment(duration: 0.2, uri: "x")]
        guard case .wait = HLSPlaylistResponse.deciding(.init(mediaSequenceNumber: 104, partIndex: 15), for: playlist) else {
            Issue.record("part 15 is within the limit")
            return
        }
        guard case .badRequest = HLSPlaylistResponse.deciding(.init(mediaSequenceNumber: 104, partIndex: 16), for: playlist) else {
            Issue.record("part 16 is past the limit")
            return
        }
    }

    @Test func aWindowUnblocksWaitingRequestsAsPartsArrive() throws {
        var window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 4), targetDuration: 2, partTarget: 0.5))
        let request = HLSDeliveryDirectives(mediaSequenceNumber: 1, partIndex: 1)
        var answered: (segment: Int, part: Int)?
        outer: for n in 0..<3 {
            for i in 0..<4 {
                let playlist = try window.appendPart(HLSPartialSegment(duration: 0.5, uri: "p\(n).\(i)")).playlist
                if case .respond = HLSPlaylistResponse.deciding(request, for: playlist) {
                    answered = (n, i)
                    break outer
                }
            }
            _ = try window.appendSegment(HLSMediaSegment(duration: 2, uri: "s\(n)"))
        }
        #expect(answered?.segment == 1 && answered?.part == 1)
    }
}
