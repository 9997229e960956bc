// ISO/IEC 14496-12 (2022) §8.8.8: a trun gives each sample a duration, the gap to the next sample's decode time. A
// live input says when a sample starts, not how long it lasts, so each sample waits for the next of its track.

/// Holds a track's last sample until the next one arrives and gives it its duration (next DTS − DTS). At the end of
/// the input, the held sample takes the previous sample's duration.
public struct MP4SampleDurationBuffer: Sendable {
    /// The sample waiting for its duration.
    public private(set) var heldSample: MP4Sample?
    /// The duration of the last sample given out.
    public private(set) var lastDuration: UInt32?
    /// The duration a held sample takes at the end when it was the only one (no previous duration).
    public let initialDuration: UInt32

    /// An empty buffer; `initialDuration` is used for a track that ends after one sample (e.g. a frame period).
    public init(initialDuration: UInt32 = 0) {
        self.initialDuration = initialDuration
    }

    /// Holds `sample` and returns the one held before it, with its duration set. A decode time before the held one's,
    /// or a gap over 32 bits, throws and keeps the buffer as it was.
    public mutating func append(_ sample: MP4Sample) throws -> MP4Sample? {
        guard var previous = heldSample else {
            heldSample = sample
            return nil
        }
        let gap = sample.decodeTime.subtractingSaturating(previous.decodeTime)
        guard gap >= 0 else {
            throw MediaFormatError.invalid(
                structure: "trun", reason: "decode time goes back from \(previous.decodeTime) to \(sample.decodeTime)")
        }
        guard gap <= Int64(UInt32.max) else {
            throw MediaFormatError.limitExceeded(what: "trun sample_duration", value: Int(gap), limit: Int(UInt32.max))
        }
        previous.duration = UInt32(gap)
        heldSample = sample
        lastDuration = previous.duration
        return previous
    }

    /// The held sample with the last duration given out (or `initialDuration`); the buffer is then empty.
    public mutating func flush() -> MP4Sample? {
        guard var sample = heldSample else { return nil }
        sample.duration = lastDuration ?? initialDuration
        heldSample = nil
        return sample
    }

    /// Forgets the held sample and the last duration (a new timeline).
    public mutating func reset() {
        heldSample = nil
        lastDuration = nil
    }
}
