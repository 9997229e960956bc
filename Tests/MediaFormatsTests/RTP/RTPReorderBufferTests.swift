import Testing
import MediaFormats

@Suite("RTP reorder buffer")
struct RTPReorderBufferTests {
    @Test("packets in order pass straight through; a swapped pair comes out in order")
    func reorders() {
        var buffer = RTPReorderBuffer<UInt16>()
        #expect(buffer.push(10, sequenceNumber: 10, arrival: 0) == [10])
        #expect(buffer.push(11, sequenceNumber: 11, arrival: 1) == [11])
        #expect(buffer.push(13, sequenceNumber: 13, arrival: 2) == [])
        #expect(buffer.push(12, sequenceNumber: 12, arrival: 3) == [12, 13])
        #expect(buffer.heldCount == 0 && buffer.gapsGivenUp == 0)
    }

    @Test("across the wrap of the sequence number")
    func wraps() {
        var buffer = RTPReorderBuffer<UInt16>()
        #expect(buffer.push(65534, sequenceNumber: 65534, arrival: 0) == [65534])
        #expect(buffer.push(0, sequenceNumber: 0, arrival: 1) == [])
        #expect(buffer.push(65535, sequenceNumber: 65535, arrival: 2) == [65535, 0])
    }

    @Test("a gap is given up on after the wait, or when the buffer is full; what comes late is dropped")
    func givesUpGaps() {
        var buffer = RTPReorderBuffer<UInt16>(capacity: 3, maxWait: 50)
        _ = buffer.push(1, sequenceNumber: 1, arrival: 0)
        #expect(buffer.push(3, sequenceNumber: 3, arrival: 10) == [])
        #expect(buffer.push(4, sequenceNumber: 4, arrival: 20) == [])
        #expect(buffer.release(now: 59) == [])
        #expect(buffer.release(now: 60) == [3, 4], "2 waited for 50 ms after 3 came")
        #expect(buffer.push(2, sequenceNumber: 2, arrival: 61) == [] && buffer.late == 1)
        #expect(buffer.push(5, sequenceNumber: 5, arrival: 62) == [5])
        for sequence: UInt16 in [7, 8, 9] { #expect(buffer.push(sequence, sequenceNumber: sequence, arrival: 63) == []) }
        #expect(buffer.push(10, sequenceNumber: 10, arrival: 64) == [7, 8, 9, 10], "a fourth held packet gives up on 6")
        #expect(buffer.gapsGivenUp == 2)
        #expect(buffer.push(10, sequenceNumber: 10, arrival: 65) == [] && buffer.late == 2, "a duplicate")
    }
}
