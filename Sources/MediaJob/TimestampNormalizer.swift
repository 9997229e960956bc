import MediaFormats

/// Per-stream DTS repair (a stateful transform: a struct with mutating methods): timestamps are shifted so the job starts at
/// zero, a missing DTS is taken from PTS or extrapolated, and a DTS that does not increase is moved just
/// past the previous one; PTS is kept at or after DTS. Every change counts as a repair. Times come from
/// media, so every sum saturates instead of trapping (`Int64.min`/`max` PTS included).
public struct TimestampNormalizer: Sendable, Equatable {
    /// Subtracted from every timestamp (the earliest DTS of the job), microseconds.
    public var offset: Int64
    public private(set) var lastDTS: Int64?
    public private(set) var repairs = 0
    /// Smallest step used to push a repeated DTS forward, microseconds.
    public static let minimumStep: Int64 = 1

    public init(offset: Int64 = 0) { self.offset = offset }

    /// Normalizes one packet's timestamps (microseconds; `nil` = absent). `duration` extrapolates a missing DTS.
    public mutating func normalize(pts: Int64?, dts: Int64?, duration: Int64) -> (pts: Int64, dts: Int64) {
        var dts = dts.map { $0.subtractingSaturating(offset) }
        let pts = pts.map { $0.subtractingSaturating(offset) }
        if dts == nil {
            if let pts, lastDTS.map({ pts > $0 }) ?? true {
                dts = pts
            } else {
                let step = max(duration, TimestampNormalizer.minimumStep)
                dts = (lastDTS ?? -step).addingSaturating(step)
                repairs += 1
            }
        }
        var fixed = dts ?? 0
        if let last = lastDTS, fixed <= last {
            // At Int64.max there is no later time: the DTS stays equal rather than wrapping to the past.
            fixed = last.addingSaturating(TimestampNormalizer.minimumStep)
            repairs += 1
        }
        var presentation = pts ?? fixed
        if presentation < fixed {
            presentation = fixed
            repairs += 1
        }
        lastDTS = fixed
        return (presentation, fixed)
    }

    public mutating func reset() {
        lastDTS = nil
        repairs = 0
    }
}
