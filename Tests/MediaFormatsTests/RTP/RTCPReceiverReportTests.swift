import Testing
import MediaFormats

@Suite("RTCP receiver reports")
struct RTCPReceiverReportTests {
    @Test("losses across the sequence wrap are counted; the fraction lost is the interval's")
    func countsLossAcrossTheWrap() throws {
        var statistics = RTPReceptionStatistics()
        for sequence: UInt16 in [65533, 65534, 1, 2, 3] { statistics.received(ssrc: 0xCAFE, sequenceNumber: sequence) }
        // 65533 … 3 is 7 packets; 65535 and 0 are lost.
        let firstBlock = statistics.reportBlock(now: 0)
        let first = try #require(firstBlock)
        #expect(first.extendedHighestSequence == 0x1_0003 && first.cumulativeLost == 2)
        #expect(first.fractionLost == UInt8(2 * 256 / 7))
        statistics.received(ssrc: 0xCAFE, sequenceNumber: 4)
        let secondBlock = statistics.reportBlock(now: 0)
        let second = try #require(secondBlock)
        #expect(second.fractionLost == 0 && second.cumulativeLost == 2, "nothing lost since the last report")
    }

    @Test("LSR is the middle of the sender report's NTP time, DLSR the wait since it in 1/65536 s")
    func senderReportTiming() throws {
        var statistics = RTPReceptionStatistics()
        statistics.received(ssrc: 7, sequenceNumber: 10)
        let senderReport: [UInt8] = [0x80, 200, 0, 6, 0, 0, 0, 7, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x0A, 0x0B, 0x0C, 0x0D] + [UInt8](repeating: 0, count: 8)
        let reports = RTCPCompound.senderReports(senderReport)
        #expect(reports.count == 1 && reports[0].ssrc == 7 && reports[0].ntpTime == 0x1122_3344_5566_7788 && reports[0].rtpTime == 0x0A0B_0C0D)
        statistics.senderReport(ntpTime: reports[0].ntpTime, arrival: 1000)
        let blockBlock = statistics.reportBlock(now: 1500)
        let block = try #require(blockBlock)
        #expect(block.lastSenderReport == 0x3344_5566 && block.delaySinceLastSenderReport == 32768)
        let bytes = RTCPCompound.receiverReport(ssrc: 0xABCD, blocks: [block])
        #expect(bytes.count == 32 && Array(bytes.prefix(8)) == [0x81, 201, 0, 7, 0, 0, 0xAB, 0xCD])
        #expect(RTCPCompound.packetTypes(bytes) == [201])
    }

    @Test func nothingToReportBeforeAPacket() {
        var statistics = RTPReceptionStatistics()
        #expect(statistics.reportBlock(now: 0) == nil)
    }
}
