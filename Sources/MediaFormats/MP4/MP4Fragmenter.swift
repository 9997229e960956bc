// ISO/IEC 14496-12 (2022) §8.8 and ISO/IEC 23000-19 §7.3.2.4: a live input cut into fragments. Samples arrive one
// at a time per track; each waits for its track's next sample to learn its duration (MP4SampleDurationBuffer), and a
// fragment ends before the sample of the leading track that FragmentBoundaryPolicy says starts the next one.

/// Samples in, fragments out: the writer, a duration buffer per track and the boundary policy of the leading track
/// (the first video track, else the first track). Other tracks' samples go into the fragment their decode time falls
/// in, as far as they are known when it is cut.
public struct MP4Fragmenter: Sendable {
    public private(set) var writer: FragmentedMP4Writer
    /// Index in `writer.tracks` of the track whose sync samples decide the boundaries.
    public let leadingTrack: Int
    /// True to start every fragment with a `styp` (each fragment a segment of its own).
    public let writesSegmentType: Bool
    private var policy: FragmentBoundaryPolicy
    /// The leading track took a sample: until then samples of the other tracks (audio ahead of an encoder's first
    /// picture) wait for the first fragment, which is never one without the leading track.
    private var leadingStarted = false
    private var durations: [MP4SampleDurationBuffer]
    /// Samples with their durations, not yet in a fragment, per track.
    private var pending: [[MP4Sample]]

    /// A fragmenter for `tracks`, cutting every `fragmentMilliseconds` at the leading track's sync samples.
    public init(tracks: [MP4Track], fragmentMilliseconds: Int64 = FragmentBoundaryPolicy.defaultMilliseconds,
                writesSegmentType: Bool = false) throws {
        writer = try FragmentedMP4Writer(tracks: tracks)
        leadingTrack = tracks.firstIndex(where: \.isVideo) ?? 0
        policy = try FragmentBoundaryPolicy(milliseconds: fragmentMilliseconds, timescale: tracks[leadingTrack].timescale)
        self.writesSegmentType = writesSegmentType
        durations = Array(repeating: MP4SampleDurationBuffer(), count: tracks.count)
        pending = Array(repeating: [], count: tracks.count)
    }

    /// The init segment (`ftyp` + `moov`).
    public func initSegment() throws -> [UInt8] { try writer.initSegment() }

    /// Adds a sample of `writer.tracks[track]` (its `duration` is ignored: the track's next sample sets it). Returns
    /// a fragment's bytes when this sample starts a new fragment and the previous one has samples.
    public mutating func append(_ sample: MP4Sample, track: Int) throws -> [UInt8]? {
        guard durations.indices.contains(track) else {
            throw MediaFormatError.invalid(structure: "moof", reason: "no track at index \(track)")
        }
        try add(sample, track: track)
        let presented = sample.decodeTime.addingSaturating(Int64(sample.compositionOffset))
        guard track == leadingTrack, policy.startsFragment(at: presented, isSync: sample.isSync) else {
            return nil
        }
        guard leadingStarted else {
            leadingStarted = true
            return nil
        }
        return try cut(before: sample.decodeTime, segmentType: writesSegmentType)
    }

    /// Adds a sample without deciding a boundary: the caller cuts with `cut(before:segmentType:)` (Low-Latency HLS
    /// parts, whose boundaries `HLSPartBoundaryPolicy` decides).
    public mutating func add(_ sample: MP4Sample, track: Int) throws {
        guard durations.indices.contains(track) else {
            throw MediaFormatError.invalid(structure: "moof", reason: "no track at index \(track)")
        }
        if let completed = try durations[track].append(sample) { pending[track].append(completed) }
    }

    /// Writes the pending samples of every track that start before `decodeTime` (the leading track's timescale) as a
    /// fragment, after a `styp` when `segmentType`; nil when there are none.
    public mutating func cut(before decodeTime: Int64, segmentType: Bool) throws -> [UInt8]? {
        let leadingTimescale = Int64(writer.tracks[leadingTrack].timescale)
        // Every track contributes what starts before the cut, compared across timescales without rounding.
        let counts = pending.indices.map { index in
            let timescale = Int64(writer.tracks[index].timescale)
            let cut = decodeTime.multipliedSaturating(by: timescale)
            return pending[index].prefix { $0.decodeTime.multipliedSaturating(by: leadingTimescale) < cut }.count
        }
        return try emit(counts, segmentType: segmentType)
    }

    /// Ends the input: every held sample takes its track's last duration and everything left goes into a last
    /// fragment; nil when nothing is left. The fragmenter then starts over on a new timeline (same sequence numbers).
    /// `segmentType` overrides `writesSegmentType` for that fragment (a last part that does not start a segment).
    public mutating func finish(segmentType: Bool? = nil) throws -> [UInt8]? {
        for index in durations.indices {
            if let last = durations[index].flush() { pending[index].append(last) }
            durations[index].reset()
        }
        policy.reset()
        leadingStarted = false
        return try emit(pending.map(\.count), segmentType: segmentType ?? writesSegmentType)
    }

    /// Writes the first `counts[i]` pending samples of each track as a fragment and drops them; nil when all are 0.
    private mutating func emit(_ counts: [Int], segmentType: Bool) throws -> [UInt8]? {
        guard counts.contains(where: { $0 > 0 }) else { return nil }
        let samples = counts.indices.map { Array(pending[$0].prefix(counts[$0])) }
        var out: [UInt8] = []
        if segmentType { try writer.writeSegmentType(into: &out) }
        try writer.writeFragment(samples, into: &out)
        for index in counts.indices { pending[index].removeFirst(counts[index]) }
        return out
    }
}
