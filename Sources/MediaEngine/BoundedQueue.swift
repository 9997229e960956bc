import Foundation

/// A blocking FIFO with a limit on items and bytes, between the input thread and one output thread.
/// `@unchecked Sendable`: every access to the storage happens under `condition`.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var bytes = 0
    private var closed = false
    private let maxItems: Int
    private let maxBytes: Int
    private let weight: (Element) -> Int

    init(maxItems: Int, maxBytes: Int, weight: @escaping (Element) -> Int) {
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.weight = weight
    }

    private var count: Int { items.count - head }

    /// Waits for room, then appends. Returns false once the queue is closed (the consumer has stopped).
    @discardableResult
    func push(_ element: Element) -> Bool {
        let size = weight(element)
        condition.lock()
        defer { condition.unlock() }
        // A single element larger than the byte limit is still accepted once the queue is empty.
        while !closed && count > 0 && (count >= maxItems || bytes + size > maxBytes) { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        bytes += size
        condition.broadcast()
        return true
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
        if count > 0 && (count >= maxItems || bytes + size > maxBytes) { return .full }
        items.append(element)
        bytes += size
        condition.broadcast()
        return .queued
    }

    /// Removes and returns everything queued now, without waiting (a reconnecting output discards it).
    func drain() -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        let drained = Array(items[head...])
        items.removeAll(keepingCapacity: true)
        head = 0
        bytes = 0
        condition.broadcast()
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

    /// Waits for an element; `nil` once the queue is closed and drained.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        let element = items[head]
        head += 1
        bytes -= weight(element)
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    /// No more pushes; `pop` drains what is left, then returns nil.
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
        head = 0
        bytes = 0
        condition.broadcast()
        condition.unlock()
    }
}
