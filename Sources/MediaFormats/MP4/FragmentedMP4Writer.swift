// ISO/IEC 14496-12 (2022) §8.8 Movie fragments, as ISO/IEC 23000-19 (CMAF) §7.3 constrains them: an init segment
// (ftyp, moov with an empty sample table per track and mvex), then fragments (moof: mfhd, one traf per track with
// tfhd default-base-is-moof, tfdt version 1, trun version 1; then mdat).

/// Writes a fragmented MP4: the init segment, then one `moof` + `mdat` per call. No I/O; the only state is the
/// fragment sequence number. A call that throws appends nothing and leaves the sequence number as it was.
public struct FragmentedMP4Writer: Sendable {
    /// The tracks, in the order fragments take their samples.
    public let tracks: [MP4Track]
    /// The mfhd sequence_number of the next fragment; the first is 1.
    public private(set) var nextSequenceNumber: UInt32 = 1

    /// A writer for `tracks`: at least one, with distinct IDs.
    public init(tracks: [MP4Track]) throws {
        guard !tracks.isEmpty else {
            throw MediaFormatError.invalid(structure: "moov", reason: "no track")
        }
        guard Set(tracks.map(\.id)).count == tracks.count else {
            throw MediaFormatError.invalid(structure: "moov", reason: "two tracks share a track_ID")
        }
        self.tracks = tracks
    }

    /// `ftyp` + `moov`.
    public func initSegment() throws -> [UInt8] {
        var out: [UInt8] = []
        try writeInitSegment(into: &out)
        return out
    }

    /// Appends `ftyp` + `moov`.
    public func writeInitSegment(into out: inout [UInt8]) throws {
        // All ones (the largest ID taken) tells a later editor to search for a free ID (§8.2.2.3).
        let largestID = tracks.map(\.id).max() ?? 0
        let nextTrackID = largestID == .max ? .max : largestID + 1
        let movie = MP4ContainerBox("moov", [MovieHeaderBox(nextTrackID: nextTrackID)]
            + (try tracks.map { try $0.trackBox() })
            + [MP4ContainerBox("mvex", tracks.map { TrackExtendsBox(trackID: $0.id) })])
        let start = out.count
        do {
            try FileTypeBox.initSegment(singleTrack: tracks.count == 1).write(into: &out)
            try movie.write(into: &out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// Appends the `styp` that starts a media segment (HLS, DASH), before its first fragment.
    public func writeSegmentType(into out: inout [UInt8]) throws {
        try FileTypeBox.mediaSegment(singleTrack: tracks.count == 1).write(into: &out)
    }

    /// One fragment: `samples[i]` are the samples of `tracks[i]` in decode order (empty for a track with none in this
    /// fragment); each track's decode times must follow from its first one and the durations.
    public mutating func fragment(_ samples: [[MP4Sample]]) throws -> [UInt8] {
        var out: [UInt8] = []
        try writeFragment(samples, into: &out)
        return out
    }

    /// Appends one fragment (`moof` + `mdat`); see `fragment(_:)`.
    public mutating func writeFragment(_ samples: [[MP4Sample]], into out: inout [UInt8]) throws {
        guard samples.count == tracks.count else {
            throw MediaFormatError.invalid(
                structure: "moof", reason: "samples for \(samples.count) tracks, the writer has \(tracks.count)")
        }
        for (track, run) in zip(tracks, samples) { try Self.check(run, of: track) }
        let present = samples.indices.filter { !samples[$0].isEmpty }
        guard !present.isEmpty else {
            throw MediaFormatError.invalid(structure: "moof", reason: "a fragment without samples")
        }
        let media = MediaDataBox(payloads: present.flatMap { samples[$0].map(\.payload) })
        // data_offset depends on the moof's size, which does not depend on the offsets' values.
        var runs = present.map { TrackRunBox(dataOffset: 0, entries: samples[$0].map(Self.entry)) }
        let moofSize = movieFragment(present: present, samples: samples, runs: runs).size
        var offset = moofSize + media.headerSize
        for index in runs.indices {
            guard offset <= Int(Int32.max) else {
                throw MediaFormatError.limitExceeded(what: "trun data_offset", value: offset, limit: Int(Int32.max))
            }
            runs[index].dataOffset = Int32(offset)
            offset += samples[present[index]].reduce(0) { $0 + $1.payload.count }
        }
        let start = out.count
        // The fragment's exact size is known now: one allocation, rather than doubling through a chunk's payloads.
        out.reserveCapacity(start + offset)
        do {
            try movieFragment(present: present, samples: samples, runs: runs).write(into: &out)
            try media.write(into: &out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        // 2^32 fragments of one second each would take 136 years; wrapping is the only thing left to do then.
        nextSequenceNumber &+= 1
    }

    /// `moof`: mfhd, then for each track with samples a traf of tfhd, tfdt and its run.
    private func movieFragment(present: [Int], samples: [[MP4Sample]], runs: [TrackRunBox]) -> MP4ContainerBox {
        MP4ContainerBox("moof", [MovieFragmentHeaderBox(sequenceNumber: nextSequenceNumber)] + zip(present, runs).map { index, run in
            MP4ContainerBox("traf", [
                TrackFragmentHeaderBox(trackID: tracks[index].id),
                // check(_:of:) made the first decode time non-negative.
                TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: UInt64(samples[index][0].decodeTime)),
                run,
            ])
        })
    }

    private static func entry(_ sample: MP4Sample) -> TrackRunBox.Entry {
        // check(_:of:) bounded the payload to 32 bits.
        TrackRunBox.Entry(duration: sample.duration, size: UInt32(sample.payload.count),
                          flags: MP4SampleFlags(isSync: sample.isSync), compositionTimeOffset: sample.compositionOffset)
    }

    /// A run's samples must start at a decode time ≥ 0, follow one another by their durations (trun has no decode
    /// times, only durations) and each fit a 32-bit size.
    private static func check(_ run: [MP4Sample], of track: MP4Track) throws {
        guard let first = run.first else { return }
        guard first.decodeTime >= 0 else {
            throw MediaFormatError.invalid(structure: "tfdt", reason: "track \(track.id) starts at decode time \(first.decodeTime)")
        }
        var expected = first.decodeTime
        for (index, sample) in run.enumerated() {
            guard sample.decodeTime == expected else {
                throw MediaFormatError.invalid(
                    structure: "trun",
                    reason: "track \(track.id) sample \(index) has decode time \(sample.decodeTime); the durations before it "
                        + "end at \(expected)")
            }
            guard sample.payload.count <= MP4Sample.maxPayloadSize else {
                throw MediaFormatError.limitExceeded(what: "trun sample_size", value: sample.payload.count,
                                                     limit: MP4Sample.maxPayloadSize)
            }
            expected = expected.addingSaturating(Int64(sample.duration))
        }
    }
}
