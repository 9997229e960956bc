// libFuzzer target: compound RTCP (RFC 3550 §6.1) read for the feedback a sender acts on (RFC 4585 Generic NACK and
// PLI, RFC 5104 FIR), and the NACK scheduler (RFC 4585 §3.5) fed arbitrary sequence numbers.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for message in RTCPFeedback.messages(in: bytes) {
        // What is read writes back to what was read.
        guard RTCPFeedback.messages(in: message.serialized()) == [message] else { fatalError("\(message) does not read back") }
        if case let .nack(_, _, items) = message {
            let named = items.flatMap(\.sequenceNumbers)
            // The fewest entries naming the same packets name each of them, and nothing else.
            guard Set(RTCPNackItem.items(naming: named).flatMap(\.sequenceNumbers)) == Set(named) else {
                fatalError("NACK entries for \(named) name other packets")
            }
        }
    }
    _ = RTCPCompound.senderReports(bytes)
    // The same bytes as (sequence number, ms) pairs through the scheduler: it never asks for more than it holds.
    var scheduler = RTPNackScheduler(maxMissing: 256)
    var now: Int64 = 0
    var index = 0
    while index + 3 <= bytes.count {
        let sequence = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        now += Int64(bytes[index + 2])
        scheduler.received(RTPSequenceNumber(sequence), now: now)
        let due = scheduler.due(now: now)
        guard due.count <= 256, scheduler.missingCount <= 256 else { fatalError("\(due.count) asked, \(scheduler.missingCount) held over 256") }
        index += 3
    }
    return 0
}
