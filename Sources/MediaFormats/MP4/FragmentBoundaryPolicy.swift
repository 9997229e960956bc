// ISO/IEC 23000-19 (CMAF) §7.3.2.4: a fragment (of a video track) starts with a sync sample. Fragments are cut at
// the first sync sample whose presentation time is at or after each multiple of the fragment duration, so their
// boundaries stay on a grid when keyframes come at the fragment rate and never split a group of pictures. The
// presentation time, not the decode time, decides: renditions of one picture (a copy with B-frames, an encode
// without) show their keyframes at the same instant but decode them at different ones, and must cut alike.

/// Decides where fragments start, from the samples of one track (the video track, or an audio track when there is
/// no video, where every sample is a sync sample).
public struct FragmentBoundaryPolicy: Sendable, Equatable {
    /// The fragment duration, in the track's timescale.
    public let fragmentDuration: Int64
    /// The next multiple of `fragmentDuration` a fragment may start at; nil before the first sample.
    public private(set) var nextBoundary: Int64?

    /// One second: short enough for a live recording to lose little at a crash, long enough for few boxes.
    public static let defaultMilliseconds: Int64 = 1000

    /// A policy cutting every `fragmentDuration` units of the track's timescale (> 0).
    public init(fragmentDuration: Int64) throws {
        guard fragmentDuration > 0 else {
            throw MediaFormatError.invalid(structure: "fragment duration", reason: "\(fragmentDuration) is not positive")
        }
        self.fragmentDuration = fragmentDuration
    }

    /// A policy cutting every `milliseconds` on a track of `timescale`.
    public init(milliseconds: Int64 = Self.defaultMilliseconds, timescale: UInt32) throws {
        try self.init(fragmentDuration: milliseconds.multipliedSaturating(by: Int64(timescale)) / 1000)
    }

    /// True when the sample presented at `time` starts a fragment: the first sample, and then the first sync sample at
    /// or after the next boundary.
    public mutating func startsFragment(at time: Int64, isSync: Bool) -> Bool {
        if let nextBoundary, !isSync || time < nextBoundary { return false }
        // The multiple after the one this sample is at or past; floor division so negative times round down too.
        var multiple = time / fragmentDuration
        if time % fragmentDuration < 0 { multiple -= 1 }
        nextBoundary = multiple.addingSaturating(1).multipliedSaturating(by: fragmentDuration)
        return true
    }

    /// Forgets the boundaries (a new timeline): the next sample starts a fragment.
    public mutating func reset() { nextBoundary = nil }
}
