import NIOConcurrencyHelpers
import Testing
@testable import LiveRelay

/// The worker-wide count of what waits for the file pool (docs/ARCHITECTURE.md §4, the file pool's backlog): over its
/// limit past it, drained at half of it, and its waiters called once each, then.
@Suite struct FileBacklogTests {
    @Test func overPastTheLimitDrainedAtHalfOfIt() {
        let backlog = FileBacklog(limit: 1000)
        let calls = NIOLockedValueBox(0)
        backlog.add(1000)
        #expect(!backlog.isOver, "at the limit is not past it")
        backlog.add(1)
        #expect(backlog.isOver && backlog.bytes == 1001)
        backlog.whenDrained { calls.withLockedValue { $0 += 1 } }
        backlog.whenDrained { calls.withLockedValue { $0 += 10 } }
        backlog.remove(2)
        #expect(!backlog.isOver)
        #expect(calls.withLockedValue { $0 } == 0, "under the limit but above half: nobody is called yet")
        backlog.remove(499)
        #expect(backlog.bytes == 500 && calls.withLockedValue { $0 } == 11, "at half of it: both waiters, once each")
        backlog.remove(500)
        #expect(backlog.bytes == 0 && calls.withLockedValue { $0 } == 11, "a waiter is called once")
    }

    @Test func aWaiterIsCalledAtOnceWhenTheBacklogIsAlreadyDrained() {
        let backlog = FileBacklog(limit: 1000)
        let called = NIOLockedValueBox(false)
        backlog.add(500)
        backlog.whenDrained { called.withLockedValue { $0 = true } }
        #expect(called.withLockedValue { $0 })
    }

    @Test func withoutALimitNothingIsEverOver() {
        let backlog = FileBacklog(limit: 0)
        backlog.add(1 << 40)
        #expect(!backlog.isOver && backlog.bytes == 1 << 40)
        #expect(FileBacklog(limit: -5).limit == 0)
    }
}
