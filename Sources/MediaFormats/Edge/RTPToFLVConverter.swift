// RTP in (RFC 3550, the payload formats of RFC 6184, RFC 7798, RFC 3640, RFC 6416, RFC 7587 and RFC 3551), FLV tags out (Adobe FLV v10.1
// Annex E, Enhanced RTMP v2): an RTSP camera's streams turned into the live relay's currency, as `TSToFLVConverter`
// turns an SRT publisher's. One video and one audio stream: the first of each kind the edge converts.

/// Turns the RTP packets of a session's streams into FLV tags: legacy AVC and AAC tags, Enhanced RTMP hvc1 and Opus.
///
/// - Video: access units put back together by `H264Depacketizer`/`H265Depacketizer`, then made tags as the TS edge makes
///   them (`TSToFLVVideoTrack`): a sequence header from the parameter sets (the SDP's `sprop-*` before the first
///   keyframe, in band after), then frames. Nothing before the first keyframe; after an access unit lost to packet loss,
///   nothing until the next keyframe (the frames between refer to what was lost).
/// - Audio: a sequence header from the SDP's AudioSpecificConfig (mpeg4-generic's `config`, MP4A-LATM's StreamMuxConfig)
///   or an OpusHead for the rtpmap's channels, then one tag per AAC frame or Opus packet. G.711, which no output
///   carries, is decoded instead and handed out as `EdgePCMBlock`s (`takePCM`) for the caller to encode: one unbroken
///   run of samples, a gap of up to a second (a lost packet) filled with silence so the audio keeps its place.
/// - Time: each stream's RTP clock in milliseconds. When every stream has the play range's start (RTP-Info), the
///   streams meet there; otherwise each starts at its first packet's arrival, measured from the session's first packet,
///   until every stream's sender has reported (`senderReport`): then the streams are moved to where the reports' common
///   wallclock puts them against the video, once.
///   Video without B-frames keeps its RTP timestamps as DTS and PTS; with B-frames the DTS runs behind the PTS by the
///   largest step back seen so far.
///
/// Packets must come in sequence order (TCP interleaved gives it; a jitter buffer in front does for UDP). No I/O, no
/// clock: arrival times are the caller's. Bad input is counted in `statistics`, never thrown.
public struct RTPToFLVConverter: Sendable {
    /// What was dropped, by kind.
    public struct Statistics: Sendable, Equatable, EdgeDamageCounting {
        /// Packets whose RTP header could not be read.
        public var malformedPackets = 0
        /// Packets with a payload type the stream's section did not name (or of a stream not converted).
        public var ignoredPackets = 0
        /// Video access units dropped because a packet of theirs was lost, or could not be read.
        public var droppedAccessUnits = 0
        /// Audio frames dropped for the same reasons.
        public var droppedAudioFrames = 0
        /// Packets lost, by the gaps in sequence numbers.
        public var lostPackets = 0
        /// Video frames skipped before the first keyframe, or between a loss and the next keyframe.
        public var framesAwaitingKeyframe = 0
        /// Access units whose NAL units or parameter sets could not be made a tag.
        public var malformedAccessUnits = 0
        /// Frames timed before the start of the timeline (clamped to 0).
        public var timestampsClampedToOrigin = 0
        /// Streams the sender reports moved (placed by arrival before), and the frames dropped because a stream moved
        /// earlier than where it had got to.
        public var streamsMovedBySenderReports = 0
        public var framesDroppedByMove = 0

        public init() {}

        public static let damageCounters: [(name: String, counter: any KeyPath<Statistics, Int> & Sendable)] = [
            ("lost packets", \.lostPackets), ("dropped video access units", \.droppedAccessUnits),
            ("dropped audio frames", \.droppedAudioFrames), ("malformed packets", \.malformedPackets),
            ("malformed access units", \.malformedAccessUnits),
        ]
    }

    enum Depacketizer: Sendable {
        case h264(H264Depacketizer)
        case hevc(H265Depacketizer)
        case av1(AV1Depacketizer)
        case vp8(VP8Depacketizer)
        case vp9(VP9Depacketizer)
        case aac(AACDepacketizer)
        case latm(LATMDepacketizer)
        case opus
        case g711(RTPSequenceTracker)
    }

    /// One converted stream: its format, depacketizer, clock and what it has sent.
    struct Stream: Sendable {
        let index: Int
        let format: RTPTrackFormat
        var depacketizer: Depacketizer
        var unwrapper = RTPTimestampUnwrapper()
        /// The extended RTP timestamp that is `anchorMilliseconds` on the timeline; nil before it is known.
        var anchorTicks: Int64?
        var anchorMilliseconds: Int64 = 0
        /// Video: the Annex B edge shared with the TS path; nil for audio.
        var video: TSToFLVVideoTrack?
        /// AV1 video's edge (OBUs to av01 tags); nil for the other codecs.
        var av1: RTPAV1Track?
        /// VP8 and VP9 video's edge (frames to vp08 and vp09 tags); nil for the other codecs.
        var vpx: RTPVPXTrack?
        /// Audio: the sequence header was sent.
        var sentAudioConfiguration = false
        /// Video: the greatest PTS so far, how far the DTS runs behind the PTS, and the last DTS.
        var maxPTS: Int64?
        var reorderDelay: Int64 = 0
        var lastDTS: Int64?
        /// G.711: the extended RTP timestamp the next sample is expected at (nil before the first).
        var nextPCMTicks: Int64?
        /// The last sender report: its wallclock (NTP, in seconds) and the extended RTP time that stood for it.
        var senderReport: (seconds: Double, ticks: Int64)?
        /// Where the stream's frames had got to when the sender reports moved it earlier: frames up to here are dropped.
        var resumeAfter: Int64?
        /// The time of the stream's last frame or block.
        var lastTime: Int64?

        init(index: Int, format: RTPTrackFormat) {
            self.index = index
            self.format = format
            switch format.codec {
            case .h264:
                depacketizer = .h264(H264Depacketizer())
                video = TSToFLVVideoTrack(pid: 0, codec: .h264)
            case .hevc:
                depacketizer = .hevc(H265Depacketizer())
                video = TSToFLVVideoTrack(pid: 0, codec: .hevc)
            case .av1:
                depacketizer = .av1(AV1Depacketizer())
                av1 = RTPAV1Track()
            case .vp8:
                depacketizer = .vp8(VP8Depacketizer())
                vpx = RTPVPXTrack(codec: .vp8)
            case .vp9:
                depacketizer = .vp9(VP9Depacketizer())
                vpx = RTPVPXTrack(codec: .vp9)
            case let .aac(parameters):
                depacketizer = .aac(AACDepacketizer(parameters: parameters))
            case let .aacLATM(config):
                depacketizer = .latm(LATMDepacketizer(config: config))
            case .opus:
                depacketizer = .opus
            case .g711:
                depacketizer = .g711(RTPSequenceTracker())
            }
        }

        /// Milliseconds on the timeline of an extended RTP timestamp (floor division: ticks before the anchor stay before).
        func milliseconds(_ ticks: Int64) -> Int64 {
            let delta = (ticks - (anchorTicks ?? ticks)).multipliedReportingOverflow(by: 1000)
            guard !delta.overflow else { return anchorMilliseconds }
            let rate = Int64(format.clockRate)
            let quotient = delta.partialValue / rate
            let floored = delta.partialValue % rate < 0 ? quotient - 1 : quotient
            return anchorMilliseconds + floored
        }
    }

    /// What the streams' work counts and the G.711 it decoded and not yet taken: apart from `streams`, so a stream is
    /// worked on in place.
    struct Work: Sendable {
        var statistics = Statistics()
        var pcm: [EdgePCMBlock] = []
    }

    private var work = Work()
    private var streams: [Stream]

    /// What was dropped, by kind.
    public var statistics: Statistics { work.statistics }
    /// Whether every stream's clock meets the others' at the play range's start (RTP-Info), not at arrival.
    private let timedByPlayStart: Bool
    /// The streams placed by arrival were moved to where the sender reports put them (done once).
    private var placedBySenderReports = false
    /// The arrival time of the session's first packet (ms, the caller's clock); nil before it.
    private var firstArrival: Int64?

    /// A converter for a presentation's tracks, in its order (`tracks[n]` is what `feed(_:track: n …)` gets); nil where a
    /// track is not converted. Only the first video and the first audio track are.
    public init(tracks: [RTPTrackFormat?]) {
        var streams: [Stream] = []
        for (index, format) in tracks.enumerated() {
            guard let format, !streams.contains(where: { $0.format.codec.isVideo == format.codec.isVideo }) else { continue }
            streams.append(Stream(index: index, format: format))
        }
        self.streams = streams
        timedByPlayStart = !streams.isEmpty && streams.allSatisfy { $0.format.playStartRTPTime != nil }
        if timedByPlayStart {
            for position in self.streams.indices {
                let start = self.streams[position].format.playStartRTPTime ?? 0
                self.streams[position].anchorTicks = self.streams[position].unwrapper.unwrap(start)
            }
        }
    }

    /// The tracks converted: their indices in the presentation and formats.
    public var convertedTracks: [(index: Int, format: RTPTrackFormat)] { streams.map { ($0.index, $0.format) } }

    /// The tags one RTP packet of track `track` completes, in order; `arrival` is when it came, in ms of any clock.
    public mutating func feed(_ bytes: [UInt8], track: Int, arrival: Int64) -> [FLVStreamTag] {
        guard let position = streams.firstIndex(where: { $0.index == track }) else {
            work.statistics.ignoredPackets += 1
            return []
        }
        let packet: RTPPacket
        do {
            packet = try RTPPacket(parsing: bytes)
        } catch {
            work.statistics.malformedPackets += 1
            return []
        }
        guard packet.payloadType == streams[position].format.payloadType else {
            work.statistics.ignoredPackets += 1
            return []
        }
        if firstArrival == nil { firstArrival = arrival }
        if streams[position].anchorTicks == nil {
            streams[position].anchorTicks = streams[position].unwrapper.unwrap(packet.timestamp)
            streams[position].anchorMilliseconds = max(0, arrival - (firstArrival ?? arrival))
        }
        var tags: [FLVStreamTag] = []
        // The stream is worked on in place (`work` and `streams` are apart): its buffers are held once, so an append
        // never copies the access unit so far, and the stream is neither copied nor moved per packet.
        work.depacketize(packet, of: &streams[position], into: &tags)
        return tags
    }
}

extension RTPToFLVConverter {

    /// A sender report of track `track`'s source (RFC 3550 §6.4.1: `rtpTime` is the instant `ntpTime` names). The first
    /// time every converted stream has one (and has started), streams placed by arrival are moved to where the reports
    /// put them against the video's (the first stream's without video), by at most 5 s: one moved later leaves a gap, one
    /// moved earlier drops its frames until it is past where it had got to.
    public mutating func senderReport(track: Int, ntpTime: UInt64, rtpTime: UInt32) {
        guard let position = streams.firstIndex(where: { $0.index == track }) else { return }
        let seconds = Double(ntpTime >> 32) + Double(ntpTime & 0xFFFF_FFFF) / 4_294_967_296
        streams[position].senderReport = (seconds, streams[position].unwrapper.unwrap(rtpTime))
        guard !timedByPlayStart, !placedBySenderReports, streams.count > 1,
              streams.allSatisfy({ $0.senderReport != nil && $0.anchorTicks != nil }) else { return }
        placedBySenderReports = true
        /// The wallclock (seconds) of a stream's anchor, by its sender's report.
        func wallclock(_ stream: Stream) -> Double {
            guard let report = stream.senderReport, let anchor = stream.anchorTicks else { return 0 }
            return report.seconds + Double(anchor - report.ticks) / Double(stream.format.clockRate)
        }
        let reference = streams.firstIndex { $0.format.codec.isVideo } ?? 0
        let referenceClock = wallclock(streams[reference])
        for position in streams.indices where position != reference {
            let moved = streams[reference].anchorMilliseconds + Int64(((wallclock(streams[position]) - referenceClock) * 1000).rounded())
            let shift = moved - streams[position].anchorMilliseconds
            guard shift != 0, abs(shift) <= 5000 else { continue }
            if shift < 0 { streams[position].resumeAfter = streams[position].lastTime }
            streams[position].anchorMilliseconds = moved
            // A G.711 run starts again at its new place.
            streams[position].nextPCMTicks = nil
            work.statistics.streamsMovedBySenderReports += 1
        }
    }

    /// The G.711 decoded since the last call, in order.
    public mutating func takePCM() -> [EdgePCMBlock] {
        defer { work.pcm.removeAll(keepingCapacity: true) }
        return work.pcm
    }
}
