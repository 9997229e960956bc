// What the edge converters (TS and RTP to FLV tags) count as damage, and how a publisher's or camera's log line names it.

/// An edge converter's counters, some of which count damage: the one list `damage`, `damageCount` and
/// `damageDescription` read.
public protocol EdgeDamageCounting {
    /// The counters that count damage, each with its name in the log.
    static var damageCounters: [(name: String, counter: any KeyPath<Self, Int> & Sendable)] { get }
}

extension EdgeDamageCounting {
    /// The damage counted, as named counts ("12 continuity errors, 3 truncated PES"): counters only, never a byte of the
    /// stream. Empty when nothing was damaged. A publisher's log line names it once, not per packet.
    public var damage: [(name: String, count: Int)] {
        Self.damageCounters.map { (name: $0.name, count: self[keyPath: $0.counter]) }.filter { $0.count > 0 }
    }

    /// The sum of `damage`'s counts: it grows when new damage came. (Read after every burst a source sends: it sums the
    /// table in place and allocates nothing.)
    public var damageCount: Int {
        var total = 0
        for entry in Self.damageCounters { total += self[keyPath: entry.counter] }
        return total
    }

    /// `damage` as one phrase, or nil when there is none.
    public var damageDescription: String? {
        let damage = damage
        return damage.isEmpty ? nil : damage.map { "\($0.count) \($0.name)" }.joined(separator: ", ")
    }
}
