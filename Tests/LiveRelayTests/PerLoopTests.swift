import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import LiveRelay

/// The engine's per-loop values (housekeeping, read pacer, chunk scratch): one per loop, made with the engine, and the
/// same box from any thread (its value is read on its loop). Sessions are made on the caller's thread and begin on their loops, several at once; under
/// ThreadSanitizer (`scripts/test --tsan`) the lookups from many threads at once must not read as a race.
@Suite struct PerLoopTests {
    final class Marker: Sendable {
        let loop: any EventLoop
        init(_ loop: any EventLoop) { self.loop = loop }
    }

    @Test("every loop of the group gets its value when the table is made, and every thread finds that one")
    func oneValuePerLoopFromAnyThread() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        var made = 0
        let values = PerLoop(group) { loop in
            made += 1
            return Marker(loop)
        }
        #expect(made == 3)
        let first = loops.map { ObjectIdentifier(values.on($0)) }
        #expect(Set(first).count == 3)

        // Lookups on the loops themselves and on other threads, all at the same time.
        let wrong = NIOLockedValueBox(0)
        let lookups: @Sendable () -> Void = {
            for _ in 0..<2_000 {
                for (loop, expected) in zip(loops, first) where ObjectIdentifier(values.on(loop)) != expected || values.on(loop).eventLoop !== loop {
                    wrong.withLockedValue { $0 += 1 }
                }
            }
        }
        // On its loop, the box gives the value made for that loop.
        let onLoops = loops.map { loop in
            loop.submit {
                lookups()
                return values.on(loop).value.loop === loop
            }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in lookups() }
        for future in onLoops { #expect(try future.wait(), "a loop's box holds another loop's value") }
        #expect(wrong.withLockedValue { $0 } == 0)
        #expect(made == 3, "a lookup made a value")
    }
}
