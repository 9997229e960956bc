import NIOConcurrencyHelpers

/// What waits for the engine's file pool, summed over every live file output of the process (docs/ARCHITECTURE.md §4,
/// "The file pool's backlog"): each output adds what it hands to the pool and takes it off once written. Past `limit`
/// the paced pulls stop reading (`ReadPacer`), so TCP pushes back on their sources instead of the loops queueing
/// their bursts for a pool that fell behind; they read again once the backlog is down to half the limit. Each
/// output's own bound (a disk that never keeps up fails its job) stays as it was.
///
/// Concurrency: the count and the waiters are behind one lock; outputs add and remove on their loops, waiters are
/// called on the loop that drained the backlog and hop to their own.
final class FileBacklog: Sendable {
    /// Bytes waiting past which pulls pause (0: no limit).
    let limit: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var bytes = 0
        var waiters: [@Sendable () -> Void] = []
    }

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Whether more than `limit` bytes wait (never, without a limit).
    var isOver: Bool {
        limit > 0 && state.withLockedValue { $0.bytes > limit }
    }

    /// Bytes waiting now.
    var bytes: Int { state.withLockedValue { $0.bytes } }

    /// `count` bytes were handed to the pool.
    func add(_ count: Int) {
        state.withLockedValue { $0.bytes += count }
    }

    /// `count` bytes handed to the pool were written (or dropped with their output's failure); waiters are called once
    /// the backlog is down to half the limit.
    func remove(_ count: Int) {
        let drained: [@Sendable () -> Void] = state.withLockedValue { state in
            state.bytes -= count
            guard !state.waiters.isEmpty, state.bytes <= limit / 2 else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in drained { waiter() }
    }

    /// Calls `waiter` once the backlog is down to half the limit: at once if it is already.
    func whenDrained(_ waiter: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { state -> Bool in
            guard state.bytes > limit / 2 else { return true }
            state.waiters.append(waiter)
            return false
        }
        if now { waiter() }
    }
}
