import NIOCore
import Testing
@testable import LiveRelay

/// The read-pacing tick (docs/ARCHITECTURE.md §4, paced reads): 2 ms per pull paced on the loop, up to the maximum.
@Suite struct ReadPacerTests {
    @Test func tickGrowsWithThePullsUpToItsMaximum() {
        let maximum = TimeAmount.milliseconds(40)
        #expect(ReadPacer.tick(members: 0, maximum: maximum) == .milliseconds(2))
        #expect(ReadPacer.tick(members: 1, maximum: maximum) == .milliseconds(2))
        #expect(ReadPacer.tick(members: 5, maximum: maximum) == .milliseconds(10))
        #expect(ReadPacer.tick(members: 20, maximum: maximum) == .milliseconds(40))
        #expect(ReadPacer.tick(members: 150, maximum: maximum) == .milliseconds(40))
        #expect(ReadPacer.tick(members: 500, maximum: .milliseconds(20)) == .milliseconds(20))
    }
}
