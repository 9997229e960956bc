// FLV and RTMP time samples in milliseconds; an MP4 track counts in its own timescale (ISO/IEC 14496-12 §8.4.2). An
// AAC frame at 44.1 kHz lasts 23.22 ms, so its millisecond timestamps, rounded, jitter by up to a millisecond; a
// timestamp that lies within that rounding of where the previous frame ended is taken to be exactly there, so the
// track stays sample-exact (what FFmpeg does when it copies such audio between containers).

/// Converts one track's millisecond timestamps into its timescale, keeping fixed-length audio frames back to back.
public struct MP4TimestampConverter: Sendable, Equatable {
    /// The track's timescale.
    public let timescale: UInt32
    /// The length of every sample in the timescale when it is fixed (AAC frames), nil otherwise (video, Opus).
    public let frameDuration: UInt32?
    /// Where the previous sample ended, when `frameDuration` is known.
    public private(set) var predicted: Int64?
    /// The previous sample's decode time.
    public private(set) var previous: Int64?
    /// Samples that would have started at or before the previous one (an input whose frames overlap, such as a
    /// looping publisher's audio at the loop), moved one tick past it: a track's decode times must increase.
    public private(set) var overlapsRepaired = 0

    /// A converter into `timescale`; `frameDuration` (e.g. `MP4Track.constantSampleDuration`) turns on the
    /// back-to-back rule.
    public init(timescale: UInt32, frameDuration: UInt32? = nil) {
        self.timescale = timescale
        self.frameDuration = frameDuration
    }

    /// A converter for `track`.
    public init(track: MP4Track) {
        self.init(timescale: track.timescale, frameDuration: track.constantSampleDuration)
    }

    /// `milliseconds` in the timescale, rounded to nearest (for a composition offset or any time of a track
    /// without fixed-length frames).
    public func ticks(milliseconds: Int64) -> Int64 { milliseconds.rescaledSaturating(from: 1000, to: Int64(timescale)) }

    /// `microseconds` (the codec engine's clock) in the timescale, rounded to nearest.
    public func ticks(microseconds: Int64) -> Int64 { microseconds.rescaledSaturating(from: 1_000_000, to: Int64(timescale)) }

    /// The decode time of the sample at `milliseconds`: where the previous frame ended when that is within a
    /// millisecond of it, else the rounded conversion (a gap, a jump, the first sample).
    public mutating func decodeTime(milliseconds: Int64) -> Int64 { decodeTime(exact: ticks(milliseconds: milliseconds)) }

    /// The decode time of the sample at `microseconds`, by the same rule (an input timed in milliseconds, such as
    /// FLV, reaches the codec engine with that rounding).
    public mutating func decodeTime(microseconds: Int64) -> Int64 { decodeTime(exact: ticks(microseconds: microseconds)) }

    private mutating func decodeTime(exact: Int64) -> Int64 {
        var time = exact
        // One millisecond of ticks, rounded up, is the uncertainty of a rounded millisecond timestamp.
        let tolerance = (Int64(timescale) + 999) / 1000
        if let predicted, abs(predicted.subtractingSaturating(exact)) <= tolerance { time = predicted }
        // The previous sample may have been moved up to `tolerance` later, or the input's frames overlap: the decode
        // time still goes forward, and playback stays in sync with the input (a later sample snaps back to its time).
        if let previous, time <= previous {
            time = previous.addingSaturating(1)
            overlapsRepaired += 1
        }
        previous = time
        predicted = frameDuration.map { time.addingSaturating(Int64($0)) }
        return time
    }

    /// Forgets the previous sample (a new timeline).
    public mutating func reset() {
        predicted = nil
        previous = nil
    }
}
