import NIOCore

/// Paced reads for a loop's pulls (docs/ARCHITECTURE.md §4): a playing pull reads what arrived, then waits for the
/// loop's next pacing tick before it reads again, so one wake-up of the loop reads every pull's few messages, and
/// each output gets one write per tick, instead of a wake-up, a read and a write per message. It costs each message
/// at most one `interval` of latency. A pull whose read burst was large reads again at once (a high-bitrate stream
/// is never held to a tick's worth of reads).
///
/// `@unchecked Sendable`: `waiting` and `task` are touched on `loop` only.
final class ReadPacer: @unchecked Sendable {
    let loop: any EventLoop
    let interval: TimeAmount
    private var waiting: [RTMPClientHandler] = []
    private var task: RepeatedTask?
    /// A read burst at least this large reads again at once rather than at the next tick.
    static let immediateBurstBytes = 128 << 10

    init(loop: any EventLoop, interval: TimeAmount) {
        self.loop = loop
        self.interval = interval
    }

    /// On `loop`: `handler` reads again at the next tick.
    func wait(_ handler: RTMPClientHandler) {
        loop.preconditionInEventLoop()
        waiting.append(handler)
        guard task == nil else { return }
        task = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in tick() }
    }

    /// On `loop`: a closed handler waits no more.
    func forget(_ handler: RTMPClientHandler) {
        waiting.removeAll { $0 === handler }
    }

    private func tick() {
        guard !waiting.isEmpty else {
            // Idle for a whole tick: the timer stops until a pull waits again.
            task?.cancel()
            task = nil
            return
        }
        let ready = waiting
        waiting.removeAll(keepingCapacity: true)
        for handler in ready { handler.resumeReading() }
    }
}
