import Testing
@testable import MediaFormats

@Suite("RTCP feedback: Generic NACK, PLI, FIR")
struct RTCPFeedbackTests {
    @Test func nackBytesAreTheCommonHeaderThenPIDAndBLP() {
        let nack = RTCPFeedback.nack(senderSSRC: 0x0102_0304, mediaSSRC: 0xAABB_CCDD, items: [RTCPNackItem(packetID: 0xFFFE, bitmask: 0b101)])
        #expect(nack.serialized() == [0x81, 205, 0, 3, 1, 2, 3, 4, 0xAA, 0xBB, 0xCC, 0xDD, 0xFF, 0xFE, 0, 0b101])
    }

    @Test func pliAndFirBytes() {
        #expect(RTCPFeedback.pictureLoss(senderSSRC: 1, mediaSSRC: 2).serialized() == [0x81, 206, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2])
        // FIR: media source 0 in the header, the target and the request's sequence number in the FCI entry.
        #expect(RTCPFeedback.fullIntraRequest(senderSSRC: 1, mediaSSRC: 2, sequenceNumber: 7).serialized()
                == [0x84, 206, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 7, 0, 0, 0])
    }

    @Test func readsEachFeedbackOfACompoundAndSkipsTheRest() {
        let receiverReport = RTCPCompound.receiverReport(ssrc: 9, blocks: [])
        let nack = RTCPFeedback.nack(senderSSRC: 9, mediaSSRC: 5, items: [RTCPNackItem(packetID: 10, bitmask: 1), RTCPNackItem(packetID: 40, bitmask: 0)])
        let pli = RTCPFeedback.pictureLoss(senderSSRC: 9, mediaSSRC: 5)
        let fir = RTCPFeedback.fullIntraRequest(senderSSRC: 9, mediaSSRC: 6, sequenceNumber: 3)
        // A REMB (PSFB FMT 15) this worker does not act on.
        let remb: [UInt8] = [0x8F, 206, 0, 4, 0, 0, 0, 9, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 1, 0, 0, 1]
        let compound = receiverReport + nack.serialized() + remb + pli.serialized() + fir.serialized()
        #expect(RTCPFeedback.messages(in: compound) == [nack, pli, fir])
    }

    @Test(arguments: [
        // Cut inside the NACK: nothing after the cut is read.
        (Array([0x81, 205, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 10] as [UInt8]), 0),
        // A PLI too short for its SSRCs is skipped, the packet after it still read.
        ([0x81, 206, 0, 1, 0, 0, 0, 1] + RTCPFeedback.pictureLoss(senderSSRC: 3, mediaSSRC: 4).serialized(), 1),
        // Not RTCP version 2.
        ([0x41, 206, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2], 0),
        // A NACK with no entry asks for nothing.
        ([0x81, 205, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2], 0),
    ])
    func damagedPacketsNeverThrowAndNeverInvent(bytes: [UInt8], count: Int) {
        #expect(RTCPFeedback.messages(in: bytes).count == count)
    }

    @Test func nackItemsNameEveryLostPacketAcrossTheWrap() {
        let lost = [65_534, 65_535, 0, 3, 17, 18, 40].map { RTPSequenceNumber(UInt16($0)) }
        let items = RTCPNackItem.items(naming: lost + [RTPSequenceNumber(3)])
        #expect(items == [RTCPNackItem(packetID: 65_534, bitmask: 0b1_0011), RTCPNackItem(packetID: 17, bitmask: 0b1),
                          RTCPNackItem(packetID: 40, bitmask: 0)])
        // 65,534's entry reaches 65,534 + 16 = 14; 17 starts the next one.
        #expect(items.flatMap(\.sequenceNumbers) == lost)
    }
}

@Suite("NACK scheduling")
struct RTPNackSchedulerTests {
    private func numbers(_ values: [Int]) -> [RTPSequenceNumber] { values.map { RTPSequenceNumber(UInt16($0)) } }

    @Test func aGapIsAskedAtOnceThenAgainEachIntervalUntilItArrives() {
        var scheduler = RTPNackScheduler(retryInterval: 40)
        for number in [100, 101, 104] { scheduler.received(RTPSequenceNumber(UInt16(number)), now: 0) }
        #expect(scheduler.due(now: 0) == numbers([102, 103]))
        #expect(scheduler.due(now: 20).isEmpty)
        scheduler.received(RTPSequenceNumber(102), now: 30)
        #expect(scheduler.due(now: 40) == numbers([103]))
        #expect(scheduler.recovered == 1 && scheduler.missingCount == 1)
    }

    @Test func givesUpAfterTheLastAskOrWhenTooOld() {
        var scheduler = RTPNackScheduler(retryInterval: 10, maxRequests: 2, maxAge: 1_000)
        scheduler.received(RTPSequenceNumber(1), now: 0)
        scheduler.received(RTPSequenceNumber(3), now: 0)
        #expect(scheduler.due(now: 0) == numbers([2]))
        #expect(scheduler.due(now: 10) == numbers([2]))
        #expect(scheduler.due(now: 20).isEmpty && scheduler.abandoned == 1)
        scheduler.received(RTPSequenceNumber(5), now: 30)
        #expect(scheduler.due(now: 1_031).isEmpty && scheduler.abandoned == 2 && scheduler.missingCount == 0)
    }

    @Test func aGapWiderThanTheWindowAsksForAKeyframeInstead() {
        var scheduler = RTPNackScheduler(maxMissing: 100)
        scheduler.received(RTPSequenceNumber(65_500), now: 0)
        #expect(scheduler.received(RTPSequenceNumber(65_530), now: 0) == .accepted)
        #expect(scheduler.received(RTPSequenceNumber(200), now: 0) == .gapTooWide(205))
        #expect(scheduler.missingCount == 0 && scheduler.due(now: 0).isEmpty)
        // Across the wrap, a small gap is a gap.
        scheduler.received(RTPSequenceNumber(202), now: 1)
        #expect(scheduler.due(now: 1) == numbers([201]))
    }

    @Test func lateAndDuplicatePacketsOpenNoGap() {
        var scheduler = RTPNackScheduler()
        for number in [10, 11, 11, 9, 12] { #expect(scheduler.received(RTPSequenceNumber(UInt16(number)), now: 0) == .accepted) }
        #expect(scheduler.due(now: 0).isEmpty && scheduler.recovered == 0)
    }
}

@Suite("RTP packet history")
struct RTPPacketHistoryTests {
    @Test func answersWhatItHoldsAndForgetsWhatWasOverwritten() {
        var history = RTPPacketHistory<[UInt8]>(capacity: 4)
        for number in [65_534, 65_535, 0, 1, 2] as [UInt16] { history.record(number, [UInt8(truncatingIfNeeded: number)]) }
        // 65,534 and 2 share a slot: the newer one holds it.
        #expect(history.packet(65_534) == nil)
        #expect(history.packet(2) == [2] && history.packet(65_535) == [255] && history.packet(0) == [0])
        #expect(history.packet(3) == nil && history.packet(100) == nil)
    }
}
