// MPEG-TS in (ISO/IEC 13818-1, read by `TSDemuxer`), FLV tags out (Adobe FLV v10.1 Annex E, Enhanced RTMP v2): an
// SRT ingest's bytes turned into the live relay's currency. One program (the first whose PMT arrives), its first
// H.264/HEVC stream and its first AAC/Opus stream.

/// What feeding bytes to a `TSToFLVConverter` produced, in stream order.
public enum TSToFLVEvent: Sendable, Equatable {
    /// A tag to relay.
    case tag(FLVStreamTag)
    /// The program's clock restarted: the tags after this one start a new segment whose times begin at 0 again. The
    /// relay's timeline splicer places it (`beginSegment()`, as for a new connection); nothing is spliced here.
    case discontinuity(TSToFLVDiscontinuity)
}

/// A restart of the program's clock, as `TSToFLVConverter` reports it.
public struct TSToFLVDiscontinuity: Sendable, Equatable {
    /// How far the new clock's first DTS lies from the furthest DTS of the old one, ms (negative: it went back).
    public var jump: Int64
    /// A discontinuity_indicator on the PCR PID announced it (otherwise only the timestamps did).
    public var indicated: Bool

    /// A discontinuity from its fields.
    /// - Parameters:
    ///   - jump: the new clock's first DTS minus the old clock's furthest DTS, ms.
    ///   - indicated: whether a discontinuity_indicator announced it.
    public init(jump: Int64, indicated: Bool) {
        self.jump = jump
        self.indicated = indicated
    }
}

/// Turns a transport stream, fed in pieces of any size (1,316-byte SRT messages, single bytes, garbage in between),
/// into FLV tags: legacy AVC and AAC tags, Enhanced RTMP hvc1 and Opus tags.
///
/// - Video: a sequence header (avcC, hvcC) built from the stream's parameter sets before the first frame and again
///   when they change; frames with 4-byte NAL unit lengths and without parameter sets or delimiters; nothing before
///   the first keyframe whose parameter sets are known.
/// - Audio: the AudioSpecificConfig of the ADTS header (or the OpusHead of the PMT's Opus descriptor) before the first
///   frame and when it changes; one tag per AAC frame or Opus packet (ADTS headers and Opus control headers removed,
///   so Opus trims are not carried).
/// - Time: milliseconds from the earliest DTS of the streams' first access units (held until each stream delivered
///   one, at most 1 s of clock), the 33-bit clock unwrapped; composition time = PTS − DTS. A restart of the clock
///   (`TSToFLVEvent.discontinuity`) starts again at 0, from its first DTS (an earlier one is clamped to 0).
/// - A PMT that changes a stream's codec gets a new sequence header for the new codec, then its first keyframe.
///
/// No I/O, no clock; bad input is counted in `statistics`, never thrown. Bytes fed one at a time give the same events
/// as the same bytes fed at once.
public struct TSToFLVConverter: Sendable {
    /// 3 s: a DTS this far from where the clock had got to is a new clock, not jitter or a gap.
    public static let defaultJumpThreshold: Int64 = 3000
    /// 0.5 s: after a discontinuity_indicator on the PCR PID, a DTS this far off is a new clock.
    public static let indicatedJumpThreshold: Int64 = 500
    /// 1 s of 90 kHz clock: the first access units are held at most this long for every stream to deliver one.
    static let startupSpan: Int64 = 90000
    /// Access units held at most at the start (a stream of tiny audio frames with a video that never comes).
    static let maxStartupAccessUnits = 256

    /// What was dropped or recovered from, by kind.
    public struct Statistics: Sendable, Equatable, EdgeDamageCounting {
        /// The demuxer's own: packets, skipped bytes, continuity errors, truncated or malformed PES …
        public var demuxer = TSDemuxer.Statistics()
        /// Video frames skipped before the first keyframe with known parameter sets (or after a codec change).
        public var framesBeforeKeyframe = 0
        /// Access units of streams whose stream_type is not converted, by stream_type.
        public var unsupportedAccessUnits: [UInt8: Int] = [:]
        /// Access units of other programs, or of a second video or audio stream.
        public var ignoredAccessUnits = 0
        /// Access units whose NAL units, parameter sets, configuration or composition time could not be converted.
        public var malformedAccessUnits = 0
        /// Access units whose PES carried no PTS.
        public var accessUnitsWithoutTimestamp = 0
        /// Access units timed before the first DTS of their clock segment (clamped to 0).
        public var timestampsClampedToOrigin = 0
        /// Restarts of the program's clock reported.
        public var discontinuities = 0
        /// discontinuity_indicator flags seen on the PCR PID.
        public var discontinuityIndicators = 0
        /// Access units still on the previous clock, completed after the new one had started: dropped.
        public var accessUnitsFromPreviousClock = 0
        /// PMTs that changed the program after its first one (streams added, removed or given another codec).
        public var programChanges = 0

        /// Nothing counted yet.
        public init() {}

        /// The counters that count damage, each with its name in the log: the one list `damage` and `damageCount` read.
        public static let damageCounters: [(name: String, counter: any KeyPath<Statistics, Int> & Sendable)] = [
            ("bytes out of sync", \.demuxer.bytesSkipped), ("continuity errors", \.demuxer.continuityErrors),
            ("PES over the size limit", \.demuxer.pesTooLarge), ("truncated PES", \.demuxer.truncatedPES),
            ("unterminated PES", \.demuxer.unterminatedPES), ("malformed PES", \.demuxer.malformedPES),
            ("malformed tables", \.demuxer.malformedSections), ("malformed packets", \.demuxer.malformedPackets),
            ("packets flagged in error", \.demuxer.transportErrors), ("malformed access units", \.malformedAccessUnits),
            ("access units without a PTS", \.accessUnitsWithoutTimestamp), ("program changes", \.programChanges),
        ]
    }

    /// A DTS this far (ms) from where the clock had got to starts a new segment.
    public let jumpThreshold: Int64
    /// Drops and recoveries so far.
    public var statistics: Statistics {
        var statistics = counters
        statistics.demuxer = demuxer.statistics
        // A run of garbage still going on is counted already: a publisher of nothing but garbage is damage now.
        statistics.demuxer.bytesSkipped += demuxer.bytesSkippedPending
        return statistics
    }

    private var demuxer: TSDemuxer
    private var counters = Statistics()
    /// Programs whose first PMT came: a later PMT of one is a change.
    private var seenProgram: Set<UInt16> = []
    private var timeline: TSToFLVTimeline
    private var programNumber: UInt16?
    private var pcrPID: UInt16?
    private var video: TSToFLVVideoTrack?
    private var audio: TSToFLVAudioTrack?
    /// The first access units, held until each stream has delivered one so the clock starts at the earliest DTS; nil
    /// once released.
    private var startup: [TSAccessUnit]? = []

    /// A converter.
    /// - Parameters:
    ///   - jumpThreshold: ms; a DTS this far back from its stream's last one, or this far past the furthest one, is a
    ///     new clock (at most 2^32 ticks apart are told apart from the 33-bit wrap).
    ///   - maxPESSize: the largest PES kept (see `TSDemuxer`).
    public init(jumpThreshold: Int64 = defaultJumpThreshold, maxPESSize: Int = TSDemuxer.defaultMaxPESSize) {
        self.jumpThreshold = jumpThreshold
        demuxer = TSDemuxer(maxPESSize: maxPESSize)
        timeline = TSToFLVTimeline(
            jumpThreshold: jumpThreshold.rescaledSaturating(from: 1000, to: 90000),
            indicatedJumpThreshold: Self.indicatedJumpThreshold.rescaledSaturating(from: 1000, to: 90000))
    }

    /// Reads `bytes` (any amount, any alignment) and returns what the packets they completed gave.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [TSToFLVEvent] {
        convert(demuxer.feed(bytes))
    }

    /// The end of the stream: converts the last access units the demuxer was holding.
    public mutating func flush() -> [TSToFLVEvent] {
        var output = convert(demuxer.flush())
        releaseStartup(into: &output)
        return output
    }

    /// Forgets everything (a new stream): program, streams, sequence headers sent, clock, counters.
    public mutating func reset() {
        self = TSToFLVConverter(jumpThreshold: jumpThreshold, maxPESSize: demuxer.maxPESSize)
    }

    private mutating func convert(_ events: [TSDemuxerEvent]) -> [TSToFLVEvent] {
        var output: [TSToFLVEvent] = []
        for event in events {
            switch event {
            case let .program(pmt):
                if seenProgram.contains(pmt.programNumber) { counters.programChanges += 1 }
                seenProgram.insert(pmt.programNumber)
                select(pmt)
            case let .streamRemoved(pid, _):
                if video?.pid == pid { video = nil }
                if audio?.pid == pid { audio = nil }
            case let .accessUnit(unit):
                convert(unit, into: &output)
            case let .discontinuity(pid) where pid == pcrPID:
                counters.discontinuityIndicators += 1
                timeline.noteIndicator()
            case .streamAdded, .codecChanged, .pcr, .discontinuity, .error:
                // A PMT event follows (or came first) for additions and changes; errors are in the demuxer's counts.
                break
            }
        }
        return output
    }

    /// Takes the first video and audio streams of the program (the first program whose PMT arrives, or another once a
    /// new PAT or PMT left it without streams); a stream whose PID or codec changed starts over (new sequence header,
    /// then its first keyframe).
    private mutating func select(_ pmt: ProgramMapTable) {
        guard programNumber == nil || programNumber == pmt.programNumber || (video == nil && audio == nil) else { return }
        programNumber = pmt.programNumber
        pcrPID = pmt.pcrPID
        let videoEntry = pmt.streams.first { $0.codec.isVideo }
        let audioEntry = pmt.streams.first { TSToFLVAudioTrack(pid: $0.pid, codec: $0.codec) != nil }
        if let videoEntry {
            if video?.pid != videoEntry.pid || video?.codec != videoEntry.codec {
                video = TSToFLVVideoTrack(pid: videoEntry.pid, codec: videoEntry.codec)
            }
        } else {
            video = nil
        }
        if let audioEntry {
            if audio?.pid != audioEntry.pid || audio?.codec != audioEntry.codec {
                audio = TSToFLVAudioTrack(pid: audioEntry.pid, codec: audioEntry.codec)
            }
        } else {
            audio = nil
        }
    }

    private mutating func convert(_ unit: TSAccessUnit, into output: inout [TSToFLVEvent]) {
        if case let .other(streamType) = unit.codec {
            counters.unsupportedAccessUnits[streamType, default: 0] += 1
            return
        }
        guard video?.pid == unit.pid || audio?.pid == unit.pid else {
            counters.ignoredAccessUnits += 1
            return
        }
        guard let pts = unit.pts else {
            counters.accessUnitsWithoutTimestamp += 1
            return
        }
        guard var held = startup else { return place(unit, pts: pts, into: &output) }
        held.append(unit)
        startup = held
        let pids = Set(held.map(\.pid))
        var unwrapper = TSTimestampUnwrapper()
        let times = held.compactMap { $0.dts ?? $0.pts }.map { unwrapper.unwrap($0) }
        let span = (times.max() ?? 0) - (times.min() ?? 0)
        if [video?.pid, audio?.pid].allSatisfy({ $0.map(pids.contains) ?? true }) || span > Self.startupSpan
            || held.count >= Self.maxStartupAccessUnits {
            releaseStartup(into: &output)
        }
    }

    /// Starts the clock at the earliest DTS held and converts what was held.
    private mutating func releaseStartup(into output: inout [TSToFLVEvent]) {
        guard let held = startup else { return }
        startup = nil
        timeline.start(rawDTSs: held.compactMap { $0.dts ?? $0.pts })
        for unit in held {
            guard let pts = unit.pts else { continue }
            place(unit, pts: pts, into: &output)
        }
    }

    private mutating func place(_ unit: TSAccessUnit, pts: Int64, into output: inout [TSToFLVEvent]) {
        let isVideo = video?.pid == unit.pid
        // A unit held at the start whose stream a new PMT has since replaced.
        guard isVideo || audio?.pid == unit.pid else {
            counters.ignoredAccessUnits += 1
            return
        }
        let placement = timeline.place(pid: unit.pid, pts: pts, dts: unit.dts ?? pts)
        guard case let .placed(dts, presentation, clamped, startsSegment) = placement else {
            counters.accessUnitsFromPreviousClock += 1
            return
        }
        if clamped { counters.timestampsClampedToOrigin += 1 }
        if let startsSegment {
            counters.discontinuities += 1
            output.append(.discontinuity(startsSegment))
        }
        do {
            if isVideo, var track = video {
                let compositionTime = Int32(clamping: presentation - dts)
                let result = try track.convert(unit.payload, compositionTime: compositionTime)
                video = track
                switch result {
                case let .tags(tags): output += tags.map { .tag(FLVStreamTag(type: .video, timestamp: dts, data: $0)) }
                case .beforeKeyframe: counters.framesBeforeKeyframe += 1
                case .empty: break
                }
            } else if var track = audio {
                let result = try track.convert(unit)
                audio = track
                switch result {
                case let .tags(tags): output += tags.map { .tag(FLVStreamTag(type: .audio, timestamp: dts, data: $0)) }
                case .unsupported: counters.unsupportedAccessUnits[unit.codec.streamType, default: 0] += 1
                }
            }
        } catch {
            counters.malformedAccessUnits += 1
        }
    }
}
