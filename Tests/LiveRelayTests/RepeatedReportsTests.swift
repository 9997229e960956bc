import Testing
@testable import LiveRelay

/// The log's repeat filter: a peer sending the same bad handshake a thousand times a second makes one line per window.
@Suite struct RepeatedReportsTests {
    @Test("the first of a key is reported, the rest of its window counted, the first after it reported with that count")
    func oneLinePerWindow() {
        var reports = RepeatedReports(window: 10)
        #expect(reports.admit("a", now: 100) == .report(suppressed: 0))
        for step in 1...999 { #expect(reports.admit("a", now: 100 + Double(step) / 100) == .suppress) }
        #expect(reports.admit("b", now: 105) == .report(suppressed: 0), "another key has a window of its own")
        #expect(reports.admit("a", now: 110) == .report(suppressed: 999))
        #expect(reports.admit("a", now: 110.5) == .suppress)
        #expect(reports.admit("a", now: 125) == .report(suppressed: 1))
    }

    @Test("bounded: past its capacity, expired keys are forgotten, and when none is, new keys share one")
    func bounded() {
        var reports = RepeatedReports(window: 10, capacity: 3)
        for key in ["a", "b", "c"] { #expect(reports.admit(key, now: 0) == .report(suppressed: 0)) }
        #expect(reports.admit("d", now: 1) == .report(suppressed: 0), "the overflow key's first")
        #expect(reports.admit("e", now: 2) == .suppress, "a second new key shares the overflow key's window")
        #expect(reports.count == 4)
        #expect(reports.admit("f", now: 11) == .report(suppressed: 0), "a, b and c expired and were forgotten")
        #expect(reports.count <= 3)
    }

    @Test("a peer's host: the port goes, so a new port per handshake is the same peer", arguments: [
        ("127.0.0.1:4000", "127.0.0.1"), ("[::1]:4000", "[::1]"), ("[fe80::1%eth0]:9", "[fe80::1%eth0]"), ("host", "host"), ("::1", "::1"),
    ])
    func host(_ peer: String, _ host: String) {
        #expect(RepeatedReports.host(ofPeer: peer) == host)
    }
}
