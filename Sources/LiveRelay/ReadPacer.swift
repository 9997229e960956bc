import NIOCore

/// Paced reads for a loop's pulls (docs/ARCHITECTURE.md §4): a playing pull reads what arrived, then waits for the
/// loop's next pacing tick before it reads again, so one wake-up of the loop reads every pull's few messages, and
/// each output gets one write per tick, instead of a wake-up, a read and a write per message. A pull whose read burst
/// was large reads again at once (a high-bitrate stream is never held to a tick's worth of reads).
///
/// The tick grows with the pulls the loop paces, `perPull` each, up to `maximum`: the cost it saves is per wake-up
/// and per burst, so it is worth most where many pulls share a loop, while a loop with a few pulls reads almost as
/// data arrives. Each message waits at most one tick in the kernel's socket buffer (half a tick on average): with
/// 40 pulls or more on a loop (80 restreams on 2 cores), 40 ms at most. Every member is touched on `loop` only.
final class ReadPacer {
    let loop: any EventLoop
    /// The longest tick.
    let maximum: TimeAmount
    private var waiting: [RTMPClientHandler] = []
    private var task: Scheduled<Void>?
    /// Pulls paced on this loop now (joined, not yet left).
    private(set) var members = 0
    /// What each paced pull adds to the tick.
    static let perPull = TimeAmount.milliseconds(1)
    /// A read burst at least this large reads again at once rather than at the next tick.
    static let immediateBurstBytes = 128 << 10

    init(loop: any EventLoop, maximum: TimeAmount) {
        self.loop = loop
        self.maximum = maximum
    }

    /// The tick for `members` paced pulls.
    static func tick(members: Int, maximum: TimeAmount) -> TimeAmount {
        .nanoseconds(min(maximum.nanoseconds, perPull.nanoseconds * Int64(max(members, 1))))
    }

    /// On `loop`: a pull starts being paced.
    func join() {
        loop.preconditionInEventLoop()
        members += 1
    }

    /// On `loop`: a paced pull is gone (closed); it waits no more.
    func leave(_ handler: RTMPClientHandler) {
        loop.preconditionInEventLoop()
        members = max(members - 1, 0)
        waiting.removeAll { $0 === handler }
    }

    /// On `loop`: `handler` reads again at the next tick.
    func wait(_ handler: RTMPClientHandler) {
        loop.preconditionInEventLoop()
        waiting.append(handler)
        guard task == nil else { return }
        task = loop.assumeIsolated().scheduleTask(in: Self.tick(members: members, maximum: maximum)) { [self] in tick() }
    }

    private func tick() {
        task = nil
        let ready = waiting
        waiting.removeAll(keepingCapacity: true)
        for handler in ready { handler.resumeReading() }
    }
}
