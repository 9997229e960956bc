import CSRT
import NamedThreads
import Synchronization
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the loop drives for one registered SRT socket (a listener, a connection, a caller still connecting).
protocol SRTEventTarget: AnyObject, Sendable {
    /// On the loop thread: the socket is readable or writable; libsrt reports an error as both.
    func handleEvent(readable: Bool, writable: Bool)
}

/// The one thread (`sluice-srt`) that services every SRT socket of the process: it waits in `srt_epoll_wait`, reads
/// and accepts, finishes connects, and runs every callback of SRTTransport, so callbacks never run side by side.
///
/// Concurrency model: one owner thread; other threads register and unregister sockets and post work under one lock
/// (`condition`), and wake the thread through a pipe that the SRT epoll watches as a system socket (libsrt's
/// `srt_epoll_uwait` refuses system sockets, hence `srt_epoll_wait`). `unregister` from another thread waits until a
/// delivery to that socket in progress has returned, so after `close()` no callback of that socket runs.
final class SRTEventLoop: @unchecked Sendable {
    // Reason: `targets`, `mailbox`, `delivering` and `loopThread` are touched only with `condition` locked; `eid`
    // and the pipe's descriptors are set in init and never change.
    private let condition = NSCondition()
    private var targets: [SRTSOCKET: any SRTEventTarget] = [:]
    private var mailbox: [(owner: SRTSOCKET?, work: @Sendable () -> Void)] = []
    private var delivering: SRTSOCKET?
    private var loopThread: pthread_t?
    private let eid: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// The thread's name, as `ps -L` and /proc show it.
    static let threadName = "sluice-srt"
    /// Sockets reported per wait; more ready ones are reported by the next wait (the epoll is level-triggered).
    private static let eventsPerWait = 256
    /// After a wait that found data, the thread sleeps this long before it waits again, so each socket is read in
    /// bursts rather than packet by packet, and hands each burst to its job at once. Set by the process before its
    /// first SRT socket (`SRTRuntime.setReadPacing`): the CLI's `SLUICE_SRT_READ_PACING_MS`, 10 ms by default.
    static let readPacing = Atomic<UInt32>(10_000)

    init() throws(SRTError) {
        eid = try srtCall("srt_epoll_create", srt_epoll_create())
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            _ = try? srtCall("srt_epoll_release", srt_epoll_release(eid))
            throw .library(function: "pipe", code: errno, message: String(cString: strerror(errno)))
        }
        for descriptor in descriptors {
            // Non-blocking both ways: the loop drains without waiting, a poster never waits on a full pipe.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = descriptors[0]
        wakeWrite = descriptors[1]
        var events = Int32(SRT_EPOLL_IN.rawValue)
        try srtCall("srt_epoll_add_ssock", srt_epoll_add_ssock(eid, wakeRead, &events))
        startNamedThread(Self.threadName) { [self] in run() }
    }

    /// Starts delivering `events` (SRT_EPOLL_IN, _OUT, _ERR) of `socket` to `target`.
    func register(_ socket: SRTSOCKET, events: Int32, target: any SRTEventTarget) throws(SRTError) {
        condition.withLock { targets[socket] = target }
        var events = events
        do {
            try srtCall("srt_epoll_add_usock", srt_epoll_add_usock(eid, socket, &events))
        } catch {
            let removed = condition.withLock { targets.removeValue(forKey: socket) }
            // Released outside the lock: a target may hold the last reference to a connection, whose deinit locks.
            withExtendedLifetime(removed) {}
            throw error
        }
    }

    /// Stops delivering to `socket`. From another thread, returns once a delivery in progress has ended.
    func unregister(_ socket: SRTSOCKET) {
        let removed = condition.withLock { () -> (any SRTEventTarget)? in
            let removed = targets.removeValue(forKey: socket)
            let onLoop = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while delivering == socket && !onLoop { condition.wait() }
            return removed
        }
        // Released outside the lock: a target may hold the last reference to a connection, whose deinit locks.
        withExtendedLifetime(removed) {}
        // Fails only for a socket libsrt already closed, which left every epoll then.
        _ = try? srtCall("srt_epoll_remove_usock", srt_epoll_remove_usock(eid, socket))
    }

    /// The target registered for `socket`, if any (the listen callback and the log router look listeners up).
    func target(of socket: SRTSOCKET) -> (any SRTEventTarget)? {
        condition.withLock { targets[socket] }
    }

    /// Every registered target (the log router looks for the listener that admitted a socket).
    var allTargets: [any SRTEventTarget] {
        condition.withLock { Array(targets.values) }
    }

    /// Runs `work` on the loop thread; with an `owner`, only while that socket is still registered.
    func post(owner: SRTSOCKET?, _ work: @escaping @Sendable () -> Void) {
        condition.withLock { mailbox.append((owner, work)) }
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; nothing is lost.
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    private func run() {
        condition.withLock { loopThread = pthread_self() }
        var reads = [SRTSOCKET](repeating: SRT_INVALID_SOCK, count: Self.eventsPerWait)
        var writes = [SRTSOCKET](repeating: SRT_INVALID_SOCK, count: Self.eventsPerWait)
        var systemReads = [SYSSOCKET](repeating: -1, count: 1)
        while true {
            var readCount = Int32(reads.count)
            var writeCount = Int32(writes.count)
            var systemCount: Int32 = 1
            do {
                // -1: no timeout; libsrt's wait itself looks at the pipe every 10 ms (its global event's period).
                try srtCall("srt_epoll_wait", srt_epoll_wait(eid, &reads, &readCount, &writes, &writeCount, -1,
                                                             &systemReads, &systemCount, nil, nil))
            } catch {
                // Not expected with a pipe always watched; back off rather than spin.
                usleep(10_000)
                continue
            }
            if systemCount > 0 { drainWakePipe() }
            runMailbox()
            let readable = Set(reads.prefix(Int(max(0, readCount))))
            let writable = Set(writes.prefix(Int(max(0, writeCount))))
            for socket in readable.union(writable) {
                deliver(to: socket) { target in
                    target.handleEvent(readable: readable.contains(socket), writable: writable.contains(socket))
                }
            }
            // Paced reads: what arrives meanwhile is read by the next wait, in one burst per socket (one hand-over to
            // its job's event loop instead of one per packet). Accepts, connects and posted work wait at most as long.
            if !readable.isEmpty, case let pacing = Self.readPacing.load(ordering: .relaxed), pacing > 0 { usleep(pacing) }
        }
    }

    /// Runs `body` with the socket's target, marked as delivering so `unregister` elsewhere waits for it.
    private func deliver(to socket: SRTSOCKET, _ body: (any SRTEventTarget) -> Void) {
        guard let target = condition.withLock({ () -> (any SRTEventTarget)? in
            guard let target = targets[socket] else { return nil }
            delivering = socket
            return target
        }) else { return }
        body(target)
        condition.withLock {
            delivering = nil
            condition.broadcast()
        }
    }

    private func runMailbox() {
        let work = condition.withLock { () -> [(owner: SRTSOCKET?, work: @Sendable () -> Void)] in
            defer { mailbox.removeAll() }
            return mailbox
        }
        for item in work {
            if let owner = item.owner {
                deliver(to: owner) { _ in item.work() }
            } else {
                item.work()
            }
        }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wakeRead, &buffer, buffer.count) > 0 {}
    }
}
