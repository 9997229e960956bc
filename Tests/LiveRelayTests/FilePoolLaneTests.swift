import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import LiveRelay

/// A live job's file output on the shared file pool: its pieces of work run in order and one at a time, on either of the
/// pool's threads, while other lanes' work runs beside them; work the stopped pool no longer takes still runs, in order.
@Suite struct FilePoolLaneTests {
    /// What a lane ran: the order, and whether two of its pieces ever overlapped.
    final class Record: Sendable {
        private let state = NIOLockedValueBox((ran: [Int](), running: false, overlapped: false))
        func run(_ piece: Int) {
            state.withLockedValue { state in
                if state.running { state.overlapped = true }
                state.running = true
            }
            // Long enough for the other pool thread to take the lane's next piece, were it free to.
            usleep(50)
            state.withLockedValue { state in
                state.ran.append(piece)
                state.running = false
            }
        }
        var ran: [Int] { state.withLockedValue { $0.ran } }
        var overlapped: Bool { state.withLockedValue { $0.overlapped } }
    }

    @Test("two lanes on a two-thread pool: each lane's pieces run in the order given, never two at once")
    func inOrderOneAtATime() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        defer { try? pool.syncShutdownGracefully() }
        let records = [Record(), Record()]
        let lanes = records.map { _ in FilePoolLane(pool: pool, loop: group.next()) }
        let done = DispatchGroup()
        for piece in 0..<500 {
            for (lane, record) in zip(lanes, records) {
                done.enter()
                lane.submit {
                    record.run(piece)
                    done.leave()
                }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the lanes did not finish their work")
        for record in records {
            #expect(record.ran == Array(0..<500))
            #expect(!record.overlapped)
        }
    }

    @Test("after the pool stopped, a lane's work still runs, in order: an output waiting for its end is not left waiting")
    func stoppedPool() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        try pool.syncShutdownGracefully()
        let record = Record()
        let lane = FilePoolLane(pool: pool, loop: group.next())
        let done = DispatchGroup()
        for piece in 0..<50 {
            done.enter()
            lane.submit {
                record.run(piece)
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the lane's work did not run after the pool stopped")
        #expect(record.ran == Array(0..<50))
        #expect(!record.overlapped)
    }
}
