import Foundation
import MediaJob
import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("TimestampNormalizer")
struct TimestampNormalizerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let offset: Int64
        /// (pts, dts, duration) in, (pts, dts) out.
        let packets: [(Int64?, Int64?, Int64)]
        let expected: [(Int64, Int64)]
        let repairs: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "already clean, rebased", offset: 1000, packets: [(1000, 1000, 10), (1010, 1010, 10)], expected: [(0, 0), (10, 10)], repairs: 0),
        Case(name: "B-frames keep composition", offset: -20, packets: [(0, -20, 10), (30, -10, 10), (10, 0, 10), (20, 10, 10)],
             expected: [(20, 0), (50, 10), (30, 20), (40, 30)], repairs: 0),
        Case(name: "repeated DTS is pushed forward", offset: 0, packets: [(0, 0, 10), (10, 0, 10), (20, 20, 10)],
             expected: [(0, 0), (10, 1), (20, 20)], repairs: 1),
        Case(name: "DTS going back", offset: 0, packets: [(100, 100, 10), (50, 50, 10)], expected: [(100, 100), (101, 101)], repairs: 2),
        Case(name: "missing DTS taken from PTS", offset: 0, packets: [(0, nil, 10), (10, nil, 10)], expected: [(0, 0), (10, 10)], repairs: 0),
        Case(name: "missing both: extrapolated", offset: 0, packets: [(0, 0, 10), (nil, nil, 10)], expected: [(0, 0), (10, 10)], repairs: 1),
        Case(name: "PTS before DTS is raised", offset: 0, packets: [(0, 5, 10)], expected: [(5, 5)], repairs: 1),
        // Values a crafted file can carry: every sum saturates where it used to trap.
        Case(name: "Int64.max PTS/DTS with a negative offset saturate", offset: -1000,
             packets: [(.max, .max, 10), (.max, .max, 10)], expected: [(.max, .max), (.max, .max)], repairs: 1),
        Case(name: "Int64.min DTS with a positive offset saturates, then is repaired forward", offset: 1000,
             packets: [(0, 0, 10), (.min, .min, 10)], expected: [(-1000, -1000), (-999, -999)], repairs: 2),
        Case(name: "missing both at the start with duration Int64.min", offset: 0, packets: [(nil, nil, .min)],
             expected: [(0, 0)], repairs: 1),
        Case(name: "missing both after Int64.max extrapolates to Int64.max", offset: 0, packets: [(.max, .max, 10), (nil, nil, .max)],
             expected: [(.max, .max), (.max, .max)], repairs: 2),
        Case(name: "an AV_NOPTS_VALUE-like DTS right after zero", offset: .min, packets: [(0, 0, 10)],
             expected: [(.max, .max)], repairs: 0),
    ]

    @Test(arguments: cases)
    func normalize(_ testCase: Case) {
        var normalizer = TimestampNormalizer(offset: testCase.offset)
        let out = testCase.packets.map { normalizer.normalize(pts: $0.0, dts: $0.1, duration: $0.2) }
        #expect(out.map(\.pts) == testCase.expected.map(\.0))
        #expect(out.map(\.dts) == testCase.expected.map(\.1))
        #expect(normalizer.repairs == testCase.repairs)
        normalizer.reset()
        #expect(normalizer.repairs == 0 && normalizer.lastDTS == nil)
    }
}

@Suite("BoundedQueue")
struct BoundedQueueTests {
    @Test("FIFO order, drained after close")
    func order() {
        let queue = BoundedQueue<Int>(maxItems: 4, maxBytes: 100) { _ in 1 }
        for i in 0..<4 { #expect(queue.push(i)) }
        queue.close()
        #expect(queue.push(9) == false)
        var got: [Int] = []
        while let value = queue.pop() { got.append(value) }
        #expect(got == [0, 1, 2, 3])
    }

    @Test("a producer blocks at the limit and resumes when the consumer pops")
    func backpressure() async {
        let queue = BoundedQueue<Int>(maxItems: 2, maxBytes: 1000) { _ in 1 }
        let total = 500
        let consumer = Task.detached { () -> [Int] in
            var got: [Int] = []
            while let value = queue.pop() { got.append(value) }
            return got
        }
        await Task.detached {
            for i in 0..<total { queue.push(i) }
            queue.close()
        }.value
        #expect(await consumer.value == Array(0..<total))
    }

    @Test("cancel drops what is queued and unblocks both sides")
    func cancel() {
        let queue = BoundedQueue<Int>(maxItems: 10, maxBytes: 10) { _ in 1 }
        queue.push(1)
        queue.cancel()
        #expect(queue.pop() == nil)
        #expect(queue.push(2) == false)
    }
}

@Suite("BoundedQueue batches")
struct BoundedQueueBatchTests {
    @Test("popAll takes everything queued in order and frees room for a blocked producer")
    func batches() async {
        let queue = BoundedQueue<Int>(maxItems: 3, maxBytes: 1000) { _ in 1 }
        let total = 1000
        let consumer = Task.detached { () -> [Int] in
            var got: [Int] = []
            while true {
                let batch = queue.popAll()
                if batch.isEmpty { break }
                #expect(batch.count <= 3)
                got += batch
            }
            return got
        }
        await Task.detached {
            for i in 0..<total { queue.push(i) }
            queue.close()
        }.value
        #expect(await consumer.value == Array(0..<total))
    }

    @Test("the byte limit holds back a producer until the consumer drains")
    func byteLimit() {
        let queue = BoundedQueue<[UInt8]>(maxItems: 100, maxBytes: 10) { $0.count }
        #expect(queue.push([UInt8](repeating: 0, count: 8)))
        let pushed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.push([UInt8](repeating: 1, count: 8))
            pushed.signal()
        }
        #expect(pushed.wait(timeout: .now() + 0.2) == .timedOut)
        #expect(queue.popAll().map(\.count) == [8])
        #expect(pushed.wait(timeout: .now() + 5) == .success)
        #expect(queue.popAll().first?.first == 1)
    }
}
