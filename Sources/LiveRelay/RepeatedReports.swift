/// Names a repeated event in the log once per window, not every time: the first of a key is reported, the same key
/// again within `window` seconds is only counted, and the first after the window is reported with that count. A
/// peer sending a thousand bad handshakes a second makes one line, and one more every `window` while it goes on.
///
/// Pure (the caller passes the time) and bounded: at most `capacity` keys are remembered; when more arrive, keys whose
/// window has passed are forgotten, and if that frees nothing the new key's reports share one key, `overflowKey`.
struct RepeatedReports {
    /// What to do with one occurrence.
    enum Decision: Equatable {
        /// Report it; `suppressed` more of the same key came since the last report (and were not named).
        case report(suppressed: Int)
        /// Counted, not reported.
        case suppress
    }

    /// Seconds a key stays quiet after it was reported.
    let window: Double
    /// Keys remembered at most.
    let capacity: Int
    /// The key that stands for every key past `capacity`.
    static let overflowKey = "(other peers)"
    private var keys: [String: (reportedAt: Double, suppressed: Int)] = [:]

    init(window: Double = 10, capacity: Int = 1024) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// Keys remembered now.
    var count: Int { keys.count }

    /// One occurrence of `key` at `now` (seconds on any clock that does not go back).
    mutating func admit(_ key: String, now: Double) -> Decision {
        var key = key
        if keys[key] == nil, keys.count >= capacity {
            keys = keys.filter { now - $0.value.reportedAt < window }
            if keys.count >= capacity { key = Self.overflowKey }
        }
        guard let seen = keys[key] else {
            keys[key] = (now, 0)
            return .report(suppressed: 0)
        }
        guard now - seen.reportedAt >= window else {
            keys[key] = (seen.reportedAt, seen.suppressed + 1)
            return .suppress
        }
        keys[key] = (now, 0)
        return .report(suppressed: seen.suppressed)
    }

    /// The host of a peer address as libsrt and NIO print it (`1.2.3.4:5678`, `[::1]:5678`): a peer that opens a new
    /// port for every handshake is still one key.
    static func host(ofPeer peer: String) -> String {
        if peer.hasPrefix("["), let end = peer.firstIndex(of: "]") { return String(peer[...end]) }
        guard let colon = peer.lastIndex(of: ":"), peer.firstIndex(of: ":") == colon else { return peer }
        return String(peer[..<colon])
    }
}
