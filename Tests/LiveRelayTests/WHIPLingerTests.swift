import Testing
@testable import LiveRelay

/// A deleted WHIP publisher's session takes what was sent before its DELETE: it closes once no datagram came for
/// `whipLingerQuiet`, or after `whipLingerMost` whatever comes.
@Suite struct WHIPLingerTests {
    let second: UInt64 = 1_000_000_000
    var deleted: UInt64 { 100 * second }

    @Test func datagramsStillComingKeepItOpen() {
        // 1.2 s after the DELETE, the last datagram was read 0.05 s ago: a backlog is still being read.
        #expect(!RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted + second * 115 / 100, now: deleted + second * 12 / 10))
        // Datagrams read right up to 4.9 s keep it open.
        #expect(!RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted + second * 48 / 10, now: deleted + second * 49 / 10))
    }

    @Test func quietAfterTheDeleteClosesIt() {
        // Nothing read since well before the DELETE: the quiet is counted from the DELETE, not from the last datagram.
        #expect(!RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted - 10 * second, now: deleted + second / 10))
        #expect(RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted - 10 * second, now: deleted + RelaySession.whipLingerQuiet))
        // A backlog read until 1.2 s, then nothing.
        #expect(RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted + second * 12 / 10,
                                        now: deleted + second * 12 / 10 + RelaySession.whipLingerQuiet))
    }

    @Test func aPublisherThatKeepsSendingIsCutOff() {
        #expect(RelaySession.lingerOver(deletedAt: deleted, lastDatagramAt: deleted + RelaySession.whipLingerMost,
                                        now: deleted + RelaySession.whipLingerMost))
    }
}
