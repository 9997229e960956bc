import NIOCore

/// One housekeeping timer per event loop for every relay session on it: the sessions' checks (cancel, stalls, dead
/// destinations, progress) run together, so a loop wakes 4 times a second for its timers rather than 4 times per
/// session (docs/ARCHITECTURE.md §4). The timer runs only while the loop has sessions. Touched on `loop` only.
final class LoopHousekeeping {
    let loop: any EventLoop
    private var sessions: [RelaySession] = []
    private var task: RepeatedTask?

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// On `loop`: `session.housekeeping()` runs on every tick from the next one on.
    func add(_ session: RelaySession) {
        loop.preconditionInEventLoop()
        sessions.append(session)
        guard task == nil else { return }
        let this = NIOLoopBound(self, eventLoop: loop)
        task = loop.scheduleRepeatedTask(initialDelay: RelaySession.housekeepingInterval, delay: RelaySession.housekeepingInterval) { _ in
            // The array as it was: a session's housekeeping may end it, which removes it from `sessions`.
            for session in this.value.sessions { session.housekeeping() }
        }
    }

    /// On `loop`: the session's checks stop; the timer too once no session is left.
    func remove(_ session: RelaySession) {
        loop.preconditionInEventLoop()
        sessions.removeAll { $0 === session }
        guard sessions.isEmpty else { return }
        task?.cancel()
        task = nil
    }
}
