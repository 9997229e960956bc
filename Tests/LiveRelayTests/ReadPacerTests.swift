import NIOCore
import NIOEmbedded
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

    @Test func pullsWaitWhileTheFileBacklogIsOverItsLimitAndReadOnceItDrained() {
        let loop = EmbeddedEventLoop()
        let backlog = FileBacklog(limit: 1000)
        let pacer = ReadPacer(loop: loop, maximum: .milliseconds(40), backlog: backlog)
        let pull = CountingReader()
        pacer.join()
        pacer.wait(pull)
        loop.advanceTime(by: .milliseconds(1))
        #expect(pull.reads == 1, "a tick resumes a waiting pull")
        #expect(pacer.readsAtOnce)

        backlog.add(1001)
        #expect(!pacer.readsAtOnce, "a large burst waits for the tick while the backlog is over")
        pacer.wait(pull)
        loop.advanceTime(by: .milliseconds(100))
        #expect(pull.reads == 1, "no tick resumes it while the backlog is over")
        backlog.remove(400)
        loop.run()
        loop.advanceTime(by: .milliseconds(100))
        #expect(pull.reads == 1, "under the limit but not yet at half: still held")
        backlog.remove(101)
        loop.run()
        #expect(pull.reads == 2, "drained to half: the held pull reads again")
        pacer.wait(pull)
        loop.advanceTime(by: .milliseconds(1))
        #expect(pull.reads == 3, "and ticks resume pulls as before")
    }
}

/// A pull that counts the reads its pacer resumes.
final class CountingReader: PacedReader {
    private(set) var reads = 0
    func resumeReading() { reads += 1 }
}
