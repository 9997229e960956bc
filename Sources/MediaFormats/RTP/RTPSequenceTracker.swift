// RFC 3550 §A.1 (RTP data header validity checks): where a packet falls in its source's sequence.

/// Follows one source's sequence numbers for the depacketizers: the next packet, a gap of lost packets, a stale
/// one (a duplicate or a late packet, ignored), or a jump back too far to be reordering (a sender that restarted).
struct RTPSequenceTracker: Sendable, Equatable {
    /// Packets further back than this are a restart, not reordering (RFC 3550 §A.1's MAX_MISORDER).
    static let maxMisorder = 100

    enum Step: Equatable {
        case next
        /// This many packets are missing before this one.
        case gap(lostPackets: Int)
        /// A duplicate or a packet from before the last one: ignore it.
        case stale
        /// The sequence jumped back more than `maxMisorder`: start again from this packet.
        case restart
    }

    private var last: RTPSequenceNumber?

    /// `admit` as the depacketizers read it: nil for a stale packet (ignore it), else what was lost before it, if anything.
    mutating func admitting(_ sequenceNumber: UInt16) -> RTPDropReason?? {
        switch admit(sequenceNumber) {
        case .next: .some(nil)
        case .stale: nil
        case let .gap(lostPackets): .some(.packetLoss(lostPackets: lostPackets))
        case .restart: .some(.sequenceRestart)
        }
    }

    /// Where `sequenceNumber` falls, and it becomes the last unless stale.
    mutating func admit(_ sequenceNumber: UInt16) -> Step {
        let number = RTPSequenceNumber(sequenceNumber)
        guard let last else {
            self.last = number
            return .next
        }
        let step = last.distance(to: number)
        if step <= 0, step >= -Self.maxMisorder { return .stale }
        self.last = number
        if step < 0 { return .restart }
        return step == 1 ? .next : .gap(lostPackets: step - 1)
    }
}
