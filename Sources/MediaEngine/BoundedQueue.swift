import Foundation

/// A blocking FIFO with a limit on items and bytes, between the input thread and one output thread.
/// Threads are woken only when someone waits for the change, and the consumer takes everything queued at once: one
/// lock round trip per batch instead of per packet. A consumer waiting in `popAll` is woken once a batch has built up
/// (`wakeItems` or `wakeBytes`), on close, or after `batchWait` (a slow producer): a file job's input thread is
/// faster than its writers, and waking the writer per packet cost a futex call or three per packet.
/// `@unchecked Sendable`: every access to the storage happens under `condition`.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var bytes = 0
    private var closed = false
    private var waitingProducers = 0
    private var waitingConsumers = 0
    private let maxItems: Int
    private let maxBytes: Int
    private let weight: (Element) -> Int
    /// A batch this large wakes a consumer waiting in `popAll` (capped below the limits, so a full queue always has).
    let wakeItems: Int
    let wakeBytes: Int
    /// The longest a consumer in `popAll` waits for a batch to build up once something is queued, seconds.
    static var batchWait: Double { 0.05 }

    init(maxItems: Int, maxBytes: Int, wakeItems: Int = 1, wakeBytes: Int = 1, weight: @escaping (Element) -> Int) {
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.wakeItems = max(1, min(wakeItems, maxItems))
        self.wakeBytes = max(1, min(wakeBytes, maxBytes))
        self.weight = weight
    }

    /// Whether what is queued is worth waking a batching consumer for.
    private var batchReady: Bool { items.count >= wakeItems || bytes >= wakeBytes }

    /// Waits for room, then appends. Returns false once the queue is closed (the consumer has stopped).
    @discardableResult
    func push(_ element: Element) -> Bool {
        let size = weight(element)
        condition.lock()
        defer { condition.unlock() }
        waitForRoom(size)
        guard !closed else { return false }
        items.append(element)
        bytes += size
        if waitingConsumers > 0 && (items.count == 1 || batchReady) { condition.broadcast() }
        return true
    }

    /// Waits, holding `condition`, until `size` more fits or the queue is closed. A single element larger than the
    /// byte limit is still accepted once the queue is empty.
    private func waitForRoom(_ size: Int) {
        while !closed && !items.isEmpty && (items.count >= maxItems || bytes + size > maxBytes) {
            waitingProducers += 1
            condition.wait()
            waitingProducers -= 1
        }
    }

    /// Set from the push that asked for a drain (`pushForDrain`) until `drain` takes the queue.
    private var drainPending = false
    /// When the oldest element queued now was pushed (uptime, nanoseconds).
    private var oldestQueuedAt: UInt64 = 0

    /// `push` for a consumer that is work scheduled by the producer rather than a thread waiting in `popAll`: waits
    /// for room, appends, and says whether the caller should now schedule a `drain`: once a batch has built up, or once
    /// what is queued has waited `batchWait` (checked at each push), and only once until that drain takes the queue.
    /// A full queue always has its drain scheduled (the wake sizes are capped below the limits).
    func pushForDrain(_ element: Element) -> (queued: Bool, drainDue: Bool) {
        let size = weight(element)
        condition.lock()
        defer { condition.unlock() }
        waitForRoom(size)
        guard !closed else { return (false, false) }
        items.append(element)
        bytes += size
        let now = DispatchTime.now().uptimeNanoseconds
        if items.count == 1 { oldestQueuedAt = now }
        guard !drainPending, batchReady || now - oldestQueuedAt >= UInt64(BoundedQueue.batchWait * 1e9) else { return (true, false) }
        drainPending = true
        return (true, true)
    }

    /// Waits for elements and takes all of them, oldest first; empty once the queue is closed and drained.
    func popAll() -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        waitForItems()
        // Something is queued: wait a little longer for a batch, unless it is closing.
        if !closed && !batchReady {
            let deadline = Date(timeIntervalSinceNow: BoundedQueue.batchWait)
            while !closed && !batchReady {
                waitingConsumers += 1
                let signalled = condition.wait(until: deadline)
                waitingConsumers -= 1
                if !signalled { break }
            }
        }
        let batch = items
        items.removeAll(keepingCapacity: true)
        bytes = 0
        if waitingProducers > 0 { condition.broadcast() }
        return batch
    }

    /// Waits, holding `condition`, until something is queued or the queue is closed.
    private func waitForItems() {
        while items.isEmpty && !closed {
            waitingConsumers += 1
            condition.wait()
            waitingConsumers -= 1
        }
    }

    /// How a non-blocking push ended.
    enum Offer: Equatable { case queued, full, closed }

    /// Appends without waiting (network outputs: the input never waits for a destination).
    func offer(_ element: Element) -> Offer {
        let size = weight(element)
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return .closed }
        // As in `push`, an oversized element still fits an empty queue.
        if !items.isEmpty && (items.count >= maxItems || bytes + size > maxBytes) { return .full }
        items.append(element)
        bytes += size
        if waitingConsumers > 0 { condition.broadcast() }
        return .queued
    }

    /// Removes and returns everything queued now, without waiting (a reconnecting output discards it; a file output on
    /// the file pool writes it).
    func drain() -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        let drained = items
        items.removeAll(keepingCapacity: true)
        bytes = 0
        drainPending = false
        if waitingProducers > 0 { condition.broadcast() }
        return drained
    }

    /// Waits up to `seconds` for the queue to close; true if it did (an interruptible backoff sleep).
    func waitForClose(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if !condition.wait(until: deadline) { break }
        }
        return closed
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Waits for one element; `nil` once the queue is closed and drained.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        waitForItems()
        guard !items.isEmpty else { return nil }
        let element = items.removeFirst()
        bytes -= weight(element)
        if waitingProducers > 0 { condition.broadcast() }
        return element
    }

    /// No more pushes; consumers drain what is left, then get nothing.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Drops everything queued and closes (the consumer failed).
    func cancel() {
        condition.lock()
        closed = true
        items.removeAll()
        bytes = 0
        condition.broadcast()
        condition.unlock()
    }
}
