// RFC 4585 §3.5 (when a receiver may send feedback) and §6.2.1 (Generic NACK): which lost packets to ask for again, and
// when. RFC 4588 retransmissions answer them; a gap too large to repair is a keyframe request instead.

/// The lost packets of one RTP stream a receiver asks the sender to resend: a gap in the sequence numbers is asked for
/// at once, asked again each `retryInterval` while it stays open, and given up after `maxRequests` asks or once older
/// than `maxAge`. A gap wider than `maxMissing` is not asked for at all (the frames it holds are too many to wait
/// for): the caller asks for a keyframe instead. Times are milliseconds of the caller's clock.
public struct RTPNackScheduler: Sendable {
    /// How long after it is asked for a packet is asked for again: about a round trip, never less.
    public var retryInterval: Int64
    public let maxRequests: Int
    public let maxAge: Int64
    public let maxMissing: Int

    private struct Missing: Sendable {
        let noticed: Int64
        var lastRequested: Int64?
        var requests: Int
    }

    private var highest: RTPSequenceNumber?
    private var missing: [RTPSequenceNumber: Missing] = [:]
    /// Gaps given up on (too old or asked too often) and packets that came back after a request, since the start.
    public private(set) var abandoned = 0
    public private(set) var recovered = 0

    public init(retryInterval: Int64 = 40, maxRequests: Int = 10, maxAge: Int64 = 1_000, maxMissing: Int = 512) {
        self.retryInterval = retryInterval
        self.maxRequests = maxRequests
        self.maxAge = maxAge
        self.maxMissing = maxMissing
    }

    /// What a packet's arrival means for the stream.
    public enum Arrival: Sendable, Equatable {
        /// In order or filling a gap.
        case accepted
        /// A gap of more than `maxMissing` packets opened before it: nothing is asked for; ask for a keyframe.
        case gapTooWide(Int)
    }

    /// The packet `sequenceNumber` arrived at `now`.
    @discardableResult
    public mutating func received(_ sequenceNumber: RTPSequenceNumber, now: Int64) -> Arrival {
        guard let last = highest else {
            highest = sequenceNumber
            return .accepted
        }
        let step = last.distance(to: sequenceNumber)
        if step <= 0 {
            if let gap = missing.removeValue(forKey: sequenceNumber), gap.requests > 0 { recovered += 1 }
            return .accepted
        }
        highest = sequenceNumber
        let gap = step - 1
        guard gap <= maxMissing else {
            missing.removeAll()
            return .gapTooWide(gap)
        }
        for offset in 0 ..< gap { missing[last.advanced(by: offset + 1)] = Missing(noticed: now, lastRequested: nil, requests: 0) }
        if missing.count > maxMissing {
            // Oldest first out: the window slides with the stream.
            for number in missing.keys.sorted().prefix(missing.count - maxMissing) { missing.removeValue(forKey: number) }
            abandoned += 1
        }
        return .accepted
    }

    /// The packets to ask for at `now`, in sequence order; each counted as asked. Gaps past their age or their asks are
    /// given up here.
    public mutating func due(now: Int64) -> [RTPSequenceNumber] {
        var ask: [RTPSequenceNumber] = []
        for (number, var gap) in missing {
            if now - gap.noticed > maxAge || gap.requests >= maxRequests {
                missing.removeValue(forKey: number)
                abandoned += 1
                continue
            }
            if let last = gap.lastRequested, now - last < retryInterval { continue }
            gap.lastRequested = now
            gap.requests += 1
            missing[number] = gap
            ask.append(number)
        }
        return ask.sorted()
    }

    /// The packets still missing.
    public var missingCount: Int { missing.count }

    /// A new stream (a new SSRC or a restart): nothing is missing.
    public mutating func reset() {
        highest = nil
        missing.removeAll()
    }
}
