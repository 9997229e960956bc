// docs/ARCHITECTURE.md §5 (shutdown): how a worker stops. Live jobs are handed back at once, the others get the grace,
// then are interrupted; settling them and closing the broker are each bounded, so the worker stops within the grace
// plus `WorkerConfiguration.stopOverrun` even when the broker, the store or a job's streams are gone.
import Foundation
import JobQueue
import NamedThreads

extension Worker {
    /// Stops taking jobs; running jobs get the grace period. A second call interrupts them at once.
    public func shutdown() {
        let first = lock.withLock {
            defer {
                shutdownRequested = true
                book.drain()
            }
            if shutdownRequested { interruptNow = true }
            return !shutdownRequested
        }
        if first {
            log("shutdown requested: no new jobs; running jobs have \(Worker.seconds(configuration.grace)) s to finish")
            broker.stopConsuming()
        } else {
            log("second shutdown request: interrupting running jobs now")
        }
        wakeDrain()
    }

    /// From the shutdown request: hand live jobs over at once, wait out the grace, interrupt the rest, and give them
    /// `settleTimeout` to settle.
    func drain() async {
        lock.withLock {
            shutdownRequested = true
            book.drain()
        }
        // A restream has no end to wait for: hand live jobs over now, so another worker resumes them within seconds.
        let live = lock.withLock { active.values.filter { $0.spec.input.isNetwork } }
        for job in live {
            log("handing the live job over for shutdown", job: job.spec.id)
            job.interruptForShutdown(reason: "worker \(configuration.workerID) shut down; a live job is handed over at once")
        }
        await waitForDrain({ self.active.isEmpty || self.interruptNow }, deadline: ContinuousClock.now + configuration.grace)
        let running = lock.withLock { Array(active.values) }
        if !running.isEmpty {
            let reason = "worker \(configuration.workerID) shut down and the grace period of \(Worker.seconds(configuration.grace)) s passed; requeued"
            for job in running {
                log("interrupting for shutdown", job: job.spec.id)
                job.interruptForShutdown(reason: reason)
            }
        }
        // Bounded: a job's settlement waits on the broker (a hand-back's confirm), which may be gone for good. One still
        // settling at the deadline is left to its lease: the claim lapses and another worker takes the job over.
        await waitForDrain({ self.active.isEmpty }, deadline: ContinuousClock.now + configuration.settleTimeout)
        let settling = lock.withLock { active.keys.sorted() }
        if !settling.isEmpty {
            log("\(settling.count) job\(settling.count == 1 ? "" : "s") still settling \(Worker.seconds(configuration.settleTimeout)) s after the interrupt (\(settling.joined(separator: ", "))); closing the broker under them: what they could not publish is left to their leases, which lapse")
        }
    }

    /// Waits until `done` (read under `lock`) holds or `deadline` passes. Woken by `wakeDrain()` when a job ends, a
    /// shutdown is requested (the second one interrupts now) or consuming ended, and by a timer at the deadline: an event each time, never a polling loop.
    func waitForDrain(_ done: @escaping () -> Bool, deadline: ContinuousClock.Instant? = nil) async {
        let timer = deadline.map { deadline in
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                wakeDrain()
            }
        }
        defer { timer?.cancel() }
        while true {
            let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let finished = lock.withLock {
                    // Past the deadline here means the timer has fired already, or is about to find this waiter.
                    if done() || deadline.map({ ContinuousClock.now >= $0 }) == true { return true }
                    drainWaiters.append(continuation)
                    return false
                }
                if finished { continuation.resume(returning: true) }
            }
            if finished { return }
        }
    }

    /// Wakes `waitForDrain`, which looks again.
    func wakeDrain() {
        let waiters = lock.withLock {
            defer { drainWaiters = [] }
            return drainWaiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// Closes the broker on a thread of its own (close blocks until the owner thread has flushed the mailbox: acks,
    /// requeues, events); false when it did not finish within `timeout`.
    func closeBroker(within timeout: Duration) async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            startNamedThread("sluice-close") { [broker] in
                done.resume(returning: broker.close(within: timeout))
            }
        }
    }
}
