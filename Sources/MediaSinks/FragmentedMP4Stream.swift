import MediaFormats
import MediaJob

/// A job's packets as fragmented MP4, for `.mp4` files and HLS segments: one track per configuration (H.264 in
/// Annex B is made length-prefixed and waits for its SPS and PPS), samples in each track's timescale, and a fragment
/// cut at the first keyframe of the leading track (video, else audio) at or after each multiple of the fragment length;
/// or, for Low-Latency HLS, cut into parts and segments by `HLSPartBoundaryPolicy`.
/// One configuration per track: a change mid-stream is refused by name. Audio with encoder priming gets an edit list
/// that starts the presentation after it, and the other tracks the same start (so the init segment waits for the first
/// audio packet, holding what comes before it, at most `maxPrimingWait`).
package struct FragmentedMP4Stream {
    /// A completed fragment and where it lies on the leading track's timeline.
    package struct Fragment {
        package var bytes: [UInt8]
        /// Seconds from the start of the stream.
        package var start: Double
        package var duration: Double
        /// Its first sample of the leading track is a sync sample (always, unless cut into parts).
        package var independent = true
        /// It is the last fragment of a segment (always, unless cut into parts).
        package var endsSegment = true
    }

    /// How a Low-Latency HLS stream is cut: segments of `segmentMilliseconds`, each into `partsPerSegment` parts.
    package struct PartCutting {
        package var segmentMilliseconds: Int64
        package var partsPerSegment: Int
    }

    /// Video packets dropped because no SPS/PPS (or no keyframe) had been seen yet.
    package private(set) var skippedBeforeConfiguration = 0
    private let name: String
    private let video: VideoConfiguration?
    private let audio: AudioConfiguration?
    private let fragmentMilliseconds: Int64
    private let writesSegmentType: Bool
    private let partCutting: PartCutting?
    /// Set with `partCutting` once the leading track's timescale is known.
    private var parts: HLSPartBoundaryPolicy?
    /// The next fragment starts a segment (its `styp`).
    private var startsSegment = true
    /// Nil until every track's configuration is known.
    private var fragmenter: MP4Fragmenter?
    private var timestamps: [MP4TimestampConverter] = []
    private var videoTrack: Int?
    private var audioTrack: Int?
    private var leadingTrack = 0
    /// Per track: it took a sample already.
    private var started: [Bool] = []
    private var annexBToAVCC: AnnexBToAVCCConverter?
    /// The avcC the init segment of Annex B video was written with.
    private var annexBRecord: AVCDecoderConfigurationRecord?
    /// One Annex B access unit made length-prefixed (kept to reuse its storage).
    private var avccPayload: [UInt8] = []
    /// Microseconds subtracted from every time: the first packet's DTS when it is negative, so no decode time is.
    private var origin: Int64?
    /// The leading track: where the open fragment starts, its last sample's decode time and the step before it.
    private var fragmentStart: Int64 = 0
    private var lastLeading: (decodeTime: Int64, step: Int64)?
    /// 2 s: how long packets are held for the first audio packet; past it the init segment goes without edit lists.
    static let maxPrimingWait: Int64 = 2_000_000
    /// Where the presentation starts once the first audio packet came: its PTS plus the priming (µs on the job's clock,
    /// and in the audio's timescale from the origin). Nil without priming, or while waiting for it.
    private var presentationStart: (microseconds: Int64, audioTicks: Int64)?
    /// Packets held while waiting for the first audio packet (nil when not waiting).
    private var held: [MediaPacket]?

    package init(name: String, video: VideoConfiguration?, audio: AudioConfiguration?,
         fragmentMilliseconds: Int64 = FragmentBoundaryPolicy.defaultMilliseconds, writesSegmentType: Bool = false,
         partCutting: PartCutting? = nil) throws {
        guard video != nil || audio != nil else { throw OutputError.missingStream(output: name, kind: "audio or video") }
        self.name = name
        self.video = video
        self.audio = audio
        self.fragmentMilliseconds = fragmentMilliseconds
        self.writesSegmentType = writesSegmentType
        self.partCutting = partCutting
        if case let .annexB(extradata) = video?.bitstream { annexBToAVCC = try AnnexBToAVCCConverter(extradata: extradata) }
        if let audio, audio.priming > 0 { held = [] }
    }

    /// The tracks of the init segment, video first; empty until it is made.
    package var tracks: [MP4Track] { fragmenter?.writer.tracks ?? [] }

    /// The init segment (`ftyp` + `moov`), once every track's configuration is known; nil before, and after it was
    /// returned once.
    package mutating func initSegment() throws -> [UInt8]? {
        guard fragmenter == nil, held == nil else { return nil }
        var tracks: [MP4Track] = []
        if let video {
            let codec: MP4Track.Codec
            switch video.bitstream {
            case let .avcc(record): codec = .avc(record)
            case .annexB:
                guard let record = annexBToAVCC?.record else { return nil }
                annexBRecord = record
                codec = .avc(record)
            case let .hvcc(record): codec = .hevc(record)
            case let .av1(record): codec = .av1(record)
            case let .vp9(record): codec = .vp9(record, width: video.width, height: video.height)
            case let .vp8(record): codec = .vp8(record, width: video.width, height: video.height)
            }
            videoTrack = tracks.count
            var track = try MP4Track(id: UInt32(tracks.count + 1), codec: codec)
            track.presentationStart = presentationStart.map { max(0, MP4TimestampConverter(track: track).ticks(microseconds: $0.microseconds)) }
            tracks.append(track)
        }
        if let audio {
            audioTrack = tracks.count
            let codec: MP4Track.Codec
            switch audio.bitstream {
            case let .aac(config): codec = .aac(config)
            case let .opus(header): codec = .opus(header)
            }
            var track = try MP4Track(id: UInt32(tracks.count + 1), codec: codec)
            track.presentationStart = presentationStart.map { max(0, $0.audioTicks) }
            if presentationStart != nil { track.priming = UInt32(clamping: audio.priming) }
            tracks.append(track)
        }
        let fragmenter = try MP4Fragmenter(tracks: tracks, fragmentMilliseconds: fragmentMilliseconds, writesSegmentType: writesSegmentType)
        if let partCutting {
            let timescale = Int64(tracks[fragmenter.leadingTrack].timescale)
            let partMilliseconds = HLSPartBoundaryPolicy.partTargetMilliseconds(segmentMilliseconds: partCutting.segmentMilliseconds,
                                                                                partsPerSegment: partCutting.partsPerSegment)
            parts = try HLSPartBoundaryPolicy(segmentDuration: partCutting.segmentMilliseconds.multipliedSaturating(by: timescale) / 1000,
                                              partsPerSegment: partCutting.partsPerSegment,
                                              partDuration: partMilliseconds.multipliedSaturating(by: timescale) / 1000)
        }
        timestamps = tracks.map(MP4TimestampConverter.init(track:))
        started = Array(repeating: false, count: tracks.count)
        leadingTrack = fragmenter.leadingTrack
        self.fragmenter = fragmenter
        return try fragmenter.initSegment()
    }

    /// One packet. Returns the init segment when this packet completed the configuration, and the fragments this
    /// packet's sample closed, oldest first (it starts the next one).
    package mutating func append(_ packet: MediaPacket) throws -> (initSegment: [UInt8]?, fragments: [Fragment]) {
        guard var waiting = held, let audio else { return try appendInOrder(packet) }
        waiting.append(packet)
        if packet.kind == .audio {
            // The first audio packet: the presentation starts where its priming ends, on every track.
            let origin = min(waiting.map(\.dts).min() ?? 0, 0)
            let timescale = Int64(audio.timescale)
            let audioTicks = packet.pts.subtractingSaturating(origin).rescaledSaturating(from: 1_000_000, to: timescale)
                .addingSaturating(Int64(audio.priming))
            presentationStart = (audioTicks.rescaledSaturating(from: timescale, to: 1_000_000), audioTicks)
            self.origin = origin
        } else if packet.dts.subtractingSaturating(waiting[0].dts) < Self.maxPrimingWait {
            held = waiting
            return (nil, [])
        }
        held = nil
        return try replay(waiting)
    }

    /// Appends packets held back, in order: the first init segment and every fragment they made.
    private mutating func replay(_ packets: [MediaPacket]) throws -> (initSegment: [UInt8]?, fragments: [Fragment]) {
        var result: (initSegment: [UInt8]?, fragments: [Fragment]) = (nil, [])
        for packet in packets {
            let (initSegment, fragments) = try appendInOrder(packet)
            result.initSegment = result.initSegment ?? initSegment
            result.fragments += fragments
        }
        return result
    }

    private mutating func appendInOrder(_ packet: MediaPacket) throws -> (initSegment: [UInt8]?, fragments: [Fragment]) {
        try refuseChanges(packet)
        var payload = packet.data[...]
        var isSync = packet.kind == .audio || packet.isKeyframe
        var initSegment: [UInt8]?
        if packet.kind == .video, var converter = annexBToAVCC {
            avccPayload.removeAll(keepingCapacity: true)
            let conversion = try packet.data.withUnsafeBytes { try converter.convert($0, into: &avccPayload) }
            annexBToAVCC = converter
            payload = avccPayload[...]
            isSync = conversion.isKeyframe
            if fragmenter != nil, conversion.parameterSetsChanged, converter.record != annexBRecord { throw videoChanged }
        }
        if fragmenter == nil { initSegment = try self.initSegment() }
        guard var fragmenter, let track = packet.kind == .video ? videoTrack : audioTrack else {
            if packet.kind == .video { skippedBeforeConfiguration += 1 }
            return (initSegment, [])
        }
        // The first video sample must be one a decoder can start at.
        if packet.kind == .video, !isSync, !started[track] {
            skippedBeforeConfiguration += 1
            return (initSegment, [])
        }
        let origin = self.origin ?? min(packet.dts, 0)
        self.origin = origin
        let decodeTime = max(0, timestamps[track].decodeTime(microseconds: packet.dts.subtractingSaturating(origin)))
        let offset = timestamps[track].ticks(microseconds: packet.pts.subtractingSaturating(packet.dts))
        let sample = MP4Sample(decodeTime: decodeTime, compositionOffset: Int32(clamping: offset), isSync: isSync, payload: payload)
        var fragments: [Fragment] = []
        if var parts {
            try fragmenter.add(sample, track: track)
            if track == leadingTrack {
                if !started[track] { fragmentStart = decodeTime }
                for cut in parts.cuts(decodeTime: decodeTime, presentationTime: decodeTime.addingSaturating(offset), isSync: isSync) {
                    guard let bytes = try fragmenter.cut(before: cut.before, segmentType: startsSegment) else { continue }
                    var fragment = closedFragment(bytes, end: cut.before)
                    (fragment.independent, fragment.endsSegment) = (cut.independent, cut.endsSegment)
                    fragments.append(fragment)
                    fragmentStart = cut.before
                    startsSegment = cut.endsSegment
                }
            }
            self.parts = parts
        } else if let bytes = try fragmenter.append(sample, track: track), track == leadingTrack {
            fragments.append(closedFragment(bytes, end: decodeTime))
        }
        self.fragmenter = fragmenter
        if track == leadingTrack {
            if !started[track] || (parts == nil && !fragments.isEmpty) { fragmentStart = decodeTime }
            lastLeading = (decodeTime, lastLeading.map { decodeTime - $0.decodeTime } ?? 0)
        }
        started[track] = true
        return (initSegment, fragments)
    }

    /// The end of the input, before `finish`: packets still held for a first audio packet that never came go out
    /// without edit lists; returns their init segment and fragments as `append` does.
    package mutating func releaseHeld() throws -> (initSegment: [UInt8]?, fragments: [Fragment]) {
        guard let waiting = held else { return (nil, []) }
        held = nil
        return try replay(waiting)
    }

    /// The end of the stream: what is left as a last fragment (nil when nothing is). Throws when no configuration
    /// ever arrived, so nothing could be written.
    package mutating func finish() throws -> Fragment? {
        guard var fragmenter else {
            throw OutputError.unsupported(output: name, reason: "no SPS and PPS arrived before the end, so no MP4 could be written")
        }
        let bytes = try fragmenter.finish(segmentType: parts == nil ? nil : startsSegment)
        self.fragmenter = fragmenter
        let end = lastLeading.map { $0.decodeTime + $0.step } ?? fragmentStart
        return bytes.map {
            var fragment = closedFragment($0, end: end)
            fragment.independent = parts?.openPartIsIndependent ?? true
            return fragment
        }
    }

    private func closedFragment(_ bytes: [UInt8], end: Int64) -> Fragment {
        let timescale = Double(fragmenter?.writer.tracks[leadingTrack].timescale ?? 1)
        return Fragment(bytes: bytes, start: Double(fragmentStart) / timescale, duration: Double(end - fragmentStart) / timescale)
    }

    private var videoChanged: OutputError {
        .unsupported(output: name, reason: "the video's configuration changed mid-stream, which one MP4 file cannot hold (write it to .ts or .flv)")
    }

    /// One file holds one configuration per track: a different one mid-stream (a new resolution, another codec) is
    /// refused by name rather than written into a file players would misread. Annex B video's configuration is its
    /// in-band SPS and PPS, compared where they are read (`append`).
    private func refuseChanges(_ packet: MediaPacket) throws {
        if let changed = packet.videoConfiguration, let video, changed.bitstream != video.bitstream, annexBToAVCC == nil {
            throw videoChanged
        }
        if let changed = packet.audioConfiguration, let audio, changed.bitstream != audio.bitstream {
            throw OutputError.unsupported(output: name, reason: "the audio's configuration changed mid-stream, which one MP4 file cannot hold (write it to .ts or .flv)")
        }
    }
}
