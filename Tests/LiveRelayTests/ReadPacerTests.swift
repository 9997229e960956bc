import NIOCore
import Testing
@testable import LiveRelay

/// The read-pacing tick (docs/ARCHITECTURE.md §4, paced reads): 1 ms per pull paced on the loop, up to the maximum.
@Suite struct ReadPacerTests {
    @Test func tickGrowsWithThePullsUpToItsMaximum() {
        let maximum = TimeAmount.milliseconds(40)
        #expect(ReadPacer.tick(members: 0, maximum: maximum) == .milliseconds(1))
        #expect(ReadPacer.tick(members: 1, maximum: maximum) == .milliseconds(1))
        #expect(ReadPacer.tick(members: 25, maximum: maximum) == .milliseconds(25))
        #expect(ReadPacer.tick(members: 40, maximum: maximum) == .milliseconds(40))
        #expect(ReadPacer.tick(members: 150, maximum: maximum) == .milliseconds(40))
        #expect(ReadPacer.tick(members: 500, maximum: .milliseconds(20)) == .milliseconds(20))
    }
}
