import NIOCore

/// A connection whose reads a `ReadPacer` resumes (a playing pull's `RTMPClientHandler`).
protocol PacedReader: AnyObject {
    /// Reads what arrived since the last burst.
    func resumeReading()
}

/// Paced reads for a loop's pulls (docs/ARCHITECTURE.md §4): a playing pull reads what arrived, then waits for the
/// loop's next pacing tick before it reads again, so one wake-up of the loop reads every pull's few messages, and
/// each output gets one write per tick, instead of a wake-up, a read and a write per message. A pull whose read burst
/// was large reads again at once (a high-bitrate stream is never held to a tick's worth of reads).
///
/// The tick grows with the pulls the loop paces, `perPull` each, up to `maximum`: the cost it saves is per wake-up
/// and per burst, so it is worth most where many pulls share a loop, while a loop with a few pulls reads almost as
/// data arrives. Each message waits at most one tick in the kernel's socket buffer (half a tick on average): with
/// 40 pulls or more on a loop (80 restreams on 2 cores), 40 ms at most. Every member is touched on `loop` only.
///
/// While the process's file backlog is over its limit (`FileBacklog`) no tick resumes a pull: the loop's pulls read
/// again when the backlog has drained to half its limit, and a large burst waits for the tick like any other.
final class ReadPacer {
    let loop: any EventLoop
    /// The longest tick.
    let maximum: TimeAmount
    /// What waits for the file pool, worker-wide (nil: pulls never wait for it).
    let backlog: FileBacklog?
    private var waiting: [any PacedReader] = []
    private var task: Scheduled<Void>?
    /// Ticks are held until the backlog drains (a waiter is registered with it).
    private var heldByBacklog = false
    /// Pulls paced on this loop now (joined, not yet left).
    private(set) var members = 0
    /// What each paced pull adds to the tick.
    static let perPull = TimeAmount.milliseconds(1)
    /// A read burst at least this large reads again at once rather than at the next tick.
    static let immediateBurstBytes = 128 << 10

    init(loop: any EventLoop, maximum: TimeAmount, backlog: FileBacklog? = nil) {
        self.loop = loop
        self.maximum = maximum
        self.backlog = backlog
    }

    /// Whether a pull whose burst was large may read again at once: not while the file backlog is over its limit.
    var readsAtOnce: Bool { !(backlog?.isOver ?? false) }

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
    func leave(_ handler: any PacedReader) {
        loop.preconditionInEventLoop()
        members = max(members - 1, 0)
        waiting.removeAll { $0 === handler }
    }

    /// On `loop`: `handler` reads again at the next tick.
    func wait(_ handler: any PacedReader) {
        loop.preconditionInEventLoop()
        waiting.append(handler)
        guard task == nil else { return }
        task = loop.assumeIsolated().scheduleTask(in: Self.tick(members: members, maximum: maximum)) { [self] in tick() }
    }

    private func tick() {
        task = nil
        if let backlog, backlog.isOver {
            guard !heldByBacklog else { return }
            heldByBacklog = true
            let (bound, loop) = (NIOLoopBound(self, eventLoop: loop), loop)
            backlog.whenDrained { loop.execute { bound.value.released() } }
            return
        }
        let ready = waiting
        waiting.removeAll(keepingCapacity: true)
        for handler in ready { handler.resumeReading() }
    }

    /// The backlog drained: the pulls that waited read again.
    private func released() {
        heldByBacklog = false
        guard task == nil else { return }
        tick()
    }
}

/// One connection's side of the pacing, shared by the RTMP and RTSP pull handlers: its pacer, whether its reads are
/// paced yet, and the size of its current read burst. Touched on the connection's event loop only.
struct PacedReads {
    /// Where a playing pull waits between read bursts; nil reads as data arrives.
    var pacer: ReadPacer?
    /// The pull is playing and its reads are paced (automatic reading off).
    private var pacing = false
    /// Bytes read since the last read burst ended (what the pacer decides on).
    private var burstBytes = 0

    /// Counts a read into the current burst.
    mutating func read(_ bytes: Int) { burstBytes += bytes }

    /// A playing pull with a pacer reads only when asked: after each read burst, at its pacer's next tick.
    mutating func start(_ channel: (any Channel)?) {
        guard let readPacer = pacer, !pacing, let options = channel?.syncOptions else { return }
        do {
            try options.setOption(.autoRead, value: false)
            pacing = true
            readPacer.join()
        } catch {
            // Reading as data arrives is what the connection did so far: it goes on so.
            pacer = nil
        }
    }

    /// A closed connection leaves its pacer (once).
    mutating func stop(_ reader: any PacedReader) {
        guard pacing else { return }
        pacing = false
        pacer?.leave(reader)
    }

    /// A read burst ended: a paced pull reads again at once after a large burst, else at its pacer's next tick.
    mutating func burstEnded(_ reader: any PacedReader, context: ChannelHandlerContext) {
        let burst = burstBytes
        burstBytes = 0
        guard pacing, let pacer else { return }
        if burst >= ReadPacer.immediateBurstBytes, pacer.readsAtOnce { context.read() } else { pacer.wait(reader) }
    }
}
