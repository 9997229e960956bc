import Foundation
import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("BoundedQueue without waiting")
struct BoundedQueueOfferTests {
    @Test("offer refuses a full queue instead of waiting; drain empties it")
    func offerAndDrain() {
        let queue = BoundedQueue<Int>(maxItems: 2, maxBytes: 100) { _ in 1 }
        #expect(queue.offer(1) == .queued)
        #expect(queue.offer(2) == .queued)
        #expect(queue.offer(3) == .full)
        #expect(queue.drain() == [1, 2])
        #expect(queue.offer(4) == .queued)
        queue.close()
        #expect(queue.offer(5) == .closed)
        #expect(queue.pop() == 4)
        #expect(queue.pop() == nil)
    }

    @Test("waitForClose returns early when the queue closes, false on timeout")
    func backoffWait() {
        let queue = BoundedQueue<Int>(maxItems: 2, maxBytes: 100) { _ in 1 }
        #expect(queue.waitForClose(seconds: 0.01) == false)
        queue.close()
        #expect(queue.waitForClose(seconds: 10) == true)
    }
}

/// The consumer runs on a thread of its own: blocking the cooperative pool's few threads in `popAll` and `push` from
/// tests running side by side would deadlock them.
final class QueueConsumer<Element>: @unchecked Sendable {
    // Reason: `batches` and `seconds` are written by the thread before `done` is signalled and read only after.
    private(set) var batches: [[Element]] = []
    private(set) var seconds = 0.0
    private let done = DispatchSemaphore(value: 0)

    /// Takes batches until the queue is closed and drained, or only the first batch (`once`).
    init(_ queue: BoundedQueue<Element>, once: Bool = false) {
        let thread = Thread { [self] in
            let start = ContinuousClock.now
            while case let batch = queue.popAll(), !batch.isEmpty {
                batches.append(batch)
                if once { break }
            }
            seconds = (ContinuousClock.now - start) / .seconds(1)
            done.signal()
        }
        thread.start()
    }

    func wait() { done.wait() }
}

@Suite("BoundedQueue wake batching")
struct BoundedQueueWakeBatchTests {
    @Test("a consumer in popAll is handed batches of wakeItems, not single packets, while the producer is faster")
    func wakesPerBatch() {
        let queue = BoundedQueue<Int>(maxItems: 64, maxBytes: 1 << 20, wakeItems: 16, wakeBytes: 1 << 20) { _ in 1 }
        let total = 1600
        let consumer = QueueConsumer(queue)
        for i in 0..<total { queue.push(i) }
        queue.close()
        consumer.wait()
        #expect(consumer.batches.flatMap { $0 } == Array(0..<total))
        // Only a batch cut short by the close (or by batchWait on a descheduled producer) may be smaller.
        let small = consumer.batches.dropLast().filter { $0.count < 16 }
        #expect(small.count * 10 <= consumer.batches.count, "\(consumer.batches.count) batches, \(small.count) below 16 items")
    }

    @Test("a lone packet from a slow producer still leaves within batchWait")
    func slowProducer() {
        let queue = BoundedQueue<Int>(maxItems: 64, maxBytes: 1 << 20, wakeItems: 16, wakeBytes: 1 << 20) { _ in 1 }
        let consumer = QueueConsumer(queue, once: true)
        usleep(100_000)
        queue.push(7)
        consumer.wait()
        #expect(consumer.batches == [[7]])
        // Pushed after 0.1 s, handed over within batchWait (0.05 s) of that, with room for a loaded machine.
        #expect(consumer.seconds >= 0.1 && consumer.seconds < 2, "\(consumer.seconds) s")
        queue.close()
    }
}
