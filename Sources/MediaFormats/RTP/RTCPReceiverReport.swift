// RFC 3550 §6.4.2 (receiver report), §6.4.1 (the sender report's NTP time, for LSR and DLSR) and Appendix A.3 (the
// expected, lost and fraction-lost counts of one source).

/// What a receiver knows of one RTP source: the packets it got, the highest sequence number, and the last sender
/// report, which is what a receiver report's block says.
public struct RTPReceptionStatistics: Sendable {
    public private(set) var ssrc: UInt32?
    private var baseSequence: UInt32 = 0
    /// The highest sequence number seen, extended by its wraps (cycles << 16 | sequence number).
    public private(set) var extendedHighest: UInt32 = 0
    public private(set) var received: UInt32 = 0
    private var expectedAtLastReport: UInt32 = 0
    private var receivedAtLastReport: UInt32 = 0
    /// The middle 32 bits of the last sender report's NTP time, and when it arrived (ms of the caller's clock).
    private var lastSenderReport: (ntpMiddle: UInt32, arrival: Int64)?

    public init() {}

    /// An RTP packet of the source arrived (the first fixes its SSRC; a new SSRC starts over).
    public mutating func received(ssrc: UInt32, sequenceNumber: UInt16) {
        if self.ssrc != ssrc {
            self = RTPReceptionStatistics()
            self.ssrc = ssrc
            baseSequence = UInt32(sequenceNumber)
            extendedHighest = UInt32(sequenceNumber)
        } else {
            let highest = UInt16(truncatingIfNeeded: extendedHighest)
            let step = Int16(bitPattern: sequenceNumber &- highest)
            if step > 0 {
                // Past the wrap when the new number is below the old one.
                let cycles = (extendedHighest & 0xFFFF_0000) &+ (sequenceNumber < highest ? 0x1_0000 : 0)
                extendedHighest = cycles | UInt32(sequenceNumber)
            }
        }
        received &+= 1
    }

    /// A sender report of the source arrived, carrying its NTP time (64-bit fixed point).
    public mutating func senderReport(ntpTime: UInt64, arrival: Int64) {
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTime >> 16), arrival)
    }

    /// The report block for now (`now` in ms of the arrival clock); nil before any packet. Moves the fraction-lost
    /// interval on.
    public mutating func reportBlock(now: Int64) -> RTCPReportBlock? {
        guard let ssrc else { return nil }
        let expected = extendedHighest &- baseSequence &+ 1
        let lost = Int64(expected) - Int64(received)
        let expectedInterval = expected &- expectedAtLastReport
        let receivedInterval = received &- receivedAtLastReport
        expectedAtLastReport = expected
        receivedAtLastReport = received
        let lostInterval = Int64(expectedInterval) - Int64(receivedInterval)
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / Int64(expectedInterval)))
        var delay: UInt32 = 0
        if let report = lastSenderReport { delay = UInt32(clamping: max(0, now - report.arrival) * 65536 / 1000) }
        return RTCPReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: min(max(lost, -0x80_0000), 0x7F_FFFF)),
                               extendedHighestSequence: extendedHighest, jitter: 0,
                               lastSenderReport: lastSenderReport?.ntpMiddle ?? 0, delaySinceLastSenderReport: lastSenderReport == nil ? 0 : delay)
    }
}

/// One report block of a receiver report (RFC 3550 §6.4.1).
public struct RTCPReportBlock: Sendable, Equatable {
    public var ssrc: UInt32
    public var fractionLost: UInt8
    /// 24 bits, signed.
    public var cumulativeLost: Int32
    public var extendedHighestSequence: UInt32
    public var jitter: UInt32
    public var lastSenderReport: UInt32
    /// In units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

extension RTCPCompound {
    /// A sender report from `ssrc` without report blocks (RFC 3550 §6.4.1): `rtpTime` is the instant `ntpTime` names on
    /// the stream's clock; the counts are the payload packets and octets sent so far.
    public static func senderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packetCount: UInt32, octetCount: UInt32) -> [UInt8] {
        var out: [UInt8] = [0x80, senderReport]
        out.appendUInt16(6)
        out.appendUInt32(ssrc)
        out.appendUInt32(UInt32(truncatingIfNeeded: ntpTime >> 32))
        out.appendUInt32(UInt32(truncatingIfNeeded: ntpTime))
        out.appendUInt32(rtpTime)
        out.appendUInt32(packetCount)
        out.appendUInt32(octetCount)
        return out
    }

    /// A receiver report from `ssrc` with `blocks` (at most 31).
    public static func receiverReport(ssrc: UInt32, blocks: [RTCPReportBlock]) -> [UInt8] {
        let blocks = blocks.prefix(31)
        var out: [UInt8] = [0x80 | UInt8(blocks.count), receiverReport]
        out.appendUInt16(UInt16(1 + 6 * blocks.count))
        out.appendUInt32(ssrc)
        for block in blocks {
            out.appendUInt32(block.ssrc)
            out.append(block.fractionLost)
            let lost = UInt32(bitPattern: block.cumulativeLost) & 0xFF_FFFF
            out += [UInt8(lost >> 16 & 0xFF), UInt8(lost >> 8 & 0xFF), UInt8(lost & 0xFF)]
            out.appendUInt32(block.extendedHighestSequence)
            out.appendUInt32(block.jitter)
            out.appendUInt32(block.lastSenderReport)
            out.appendUInt32(block.delaySinceLastSenderReport)
        }
        return out
    }

    /// The SSRC, NTP time and RTP time (the same instant on the stream's clock) of each sender report in `bytes`.
    public static func senderReports(_ bytes: [UInt8]) -> [(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32)] {
        packets(bytes).compactMap { packet in
            guard packet.type == senderReport, packet.range.count >= 20 else { return nil }
            return (packet.word(4, in: bytes), UInt64(packet.word(8, in: bytes)) << 32 | UInt64(packet.word(12, in: bytes)), packet.word(16, in: bytes))
        }
    }
}
