import Testing
@testable import MediaEngine

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
