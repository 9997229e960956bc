// RFC 3550 §6.4.2 (receiver reports), RFC 4585 §3.5 and §6 (when a receiver sends NACK and PLI), RFC 8834 §5.1 (a
// WebRTC receiver's feedback) and RFC 8843 §9.2 (BUNDLE: payload types tell the m= sections apart): a WHIP session's
// media, from decrypted RTP to FLV tags, and the feedback its publisher is owed.
import MediaFormats

/// The media of one WHIP session: the decrypted RTP of its negotiated tracks in, FLV tags out (through the same
/// `RTPToFLVConverter` as an RTSP camera's), and the RTCP to send back: NACKs for what was lost (when negotiated), a PLI
/// when video cannot be completed or an output wants a keyframe, and a receiver report per track each second, which
/// a browser's loss-based bandwidth estimate lives on. Packets are put back in order with room for a retransmission to
/// arrive (`holdMilliseconds`). Times are milliseconds of the caller's monotonic clock.
public struct WebRTCIngestMedia: Sendable {
    /// How long a packet waits for the ones before it: several round trips, so a NACK's retransmission fills the gap
    /// before it is given up on. A restream can afford it; a viewer's latency is not at stake here.
    public static let holdMilliseconds: Int64 = 400
    /// Packets held at most per track: 400 ms of 20 Mb/s video in 1,200-byte packets.
    public static let holdCapacity = 1_024
    /// Receiver reports: each second (RFC 8834 §5.1.2 leaves the interval to the implementation; 1 s keeps a sender's
    /// loss estimate current).
    public static let reportInterval: Int64 = 1_000
    /// Keyframe requests at most this often: a keyframe takes a round trip and its own transmission time to come.
    public static let keyframeRequestInterval: Int64 = 500

    private struct Track: Sendable {
        let negotiated: WebRTCNegotiatedTrack
        /// The track's index in the converter.
        let index: Int
        var reorder = RTPReorderBuffer<[UInt8]>(capacity: WebRTCIngestMedia.holdCapacity, maxWait: WebRTCIngestMedia.holdMilliseconds)
        var nacks = RTPNackScheduler()
        var reception = RTPReceptionStatistics()
        var ssrc: UInt32?
    }

    /// Our SSRC as the sender of feedback (RFC 3550 §8: random).
    public let localSSRC: UInt32
    private var tracks: [Track]
    private var converter: RTPToFLVConverter
    private var nextReport: Int64?
    private var lastKeyframeRequest: Int64?
    private var keyframeWanted = false
    /// The converter's damage counters at the last tick: a rise means video waits for a keyframe.
    private var damageSeen = 0
    /// Packets whose payload type no negotiated track has.
    public private(set) var unknownPayloadType = 0

    /// - Parameters:
    ///   - tracks: the answer's tracks (`WebRTCAnswer.tracks`); H.264, H.265, AV1, VP9, VP8 and Opus are
    ///     converted, the rest refused.
    ///   - localSSRC: ours, for the RTCP we send.
    public init(tracks negotiated: [WebRTCNegotiatedTrack], localSSRC: UInt32) throws {
        var formats: [RTPTrackFormat?] = []
        var tracks: [Track] = []
        for track in negotiated {
            let codec: RTPTrackCodec
            switch track.codec {
            case .h264: codec = .h264(parameterSets: [])
            case .h265:
                // In band too (a WebRTC sender repeats them before each keyframe); the fmtp's, when given, start it.
                let sets = try MediaDescription.hevcParameterSets(track.formatParameters)
                codec = .hevc(parameterSets: sets.vps + sets.sps + sets.pps)
            case .av1: codec = .av1
            case .vp9: codec = .vp9
            case .vp8: codec = .vp8
            case .opus: codec = .opus(channels: track.channels ?? 2)
            default:
                throw MediaFormatError.unsupported(structure: "WebRTC track", reason: "mid \(track.mid) carries \(track.codec), which a WHIP ingest does not take")
            }
            tracks.append(Track(negotiated: track, index: formats.count))
            formats.append(RTPTrackFormat(payloadType: track.payloadType, clockRate: track.clockRate, codec: codec))
        }
        self.tracks = tracks
        converter = RTPToFLVConverter(tracks: formats)
        self.localSSRC = localSSRC
    }

    /// The edge's counters (lost packets, dropped access units, frames that waited for a keyframe).
    public var statistics: RTPToFLVConverter.Statistics { converter.statistics }

    /// NACKs sent, packets they brought back, gaps given up on: summed over the tracks.
    public var recovery: (recovered: Int, abandoned: Int) {
        tracks.reduce((0, 0)) { ($0.0 + $1.nacks.recovered, $0.1 + $1.nacks.abandoned) }
    }

    /// One decrypted RTP packet that arrived at `now`: the tags it completes and any RTCP to send at once (a NACK, or a PLI
    /// for a gap too wide to repair).
    public mutating func receive(_ packet: [UInt8], now: Int64) -> (tags: [FLVStreamTag], rtcp: [[UInt8]]) {
        guard let (payloadType, sequence, ssrc) = RTPPacket.peek(packet),
              let position = tracks.firstIndex(where: { $0.negotiated.payloadType == payloadType }) else {
            unknownPayloadType += 1
            return ([], [])
        }
        var rtcp: [[UInt8]] = []
        if tracks[position].ssrc != ssrc {
            // A new sender stream (the first, or a restart): nothing before it is owed.
            tracks[position].ssrc = ssrc
            tracks[position].nacks.reset()
        }
        tracks[position].reception.received(ssrc: ssrc, sequenceNumber: sequence)
        if tracks[position].negotiated.nack,
           case .gapTooWide = tracks[position].nacks.received(RTPSequenceNumber(sequence), now: now) {
            keyframeWanted = true
        }
        let released = tracks[position].reorder.push(packet, sequenceNumber: sequence, arrival: now)
        var tags: [FLVStreamTag] = []
        for bytes in released { tags += converter.feed(bytes, track: tracks[position].index, arrival: now) }
        rtcp += feedback(now: now)
        return (tags, rtcp)
    }

    /// A sender report from the publisher: the LSR and DLSR of our reports, and the streams placed on one wallclock
    /// (a browser sends no RTP-Info: until both have reported, the streams are placed by arrival).
    public mutating func receiveRTCP(_ compound: [UInt8], now: Int64) {
        for report in RTCPCompound.senderReports(compound) {
            for position in tracks.indices where tracks[position].ssrc == report.ssrc {
                tracks[position].reception.senderReport(ntpTime: report.ntpTime, arrival: now)
                converter.senderReport(track: tracks[position].index, ntpTime: report.ntpTime, rtpTime: report.rtpTime)
            }
        }
    }

    /// An output joined and wants to start at a keyframe: a PLI goes out at the next chance.
    public mutating func requestKeyframe() {
        keyframeWanted = true
    }

    /// As time passes (the session's housekeeping tick): packets whose gap was given up on, NACKs due again, PLI,
    /// and the receiver reports once a second.
    public mutating func tick(now: Int64) -> (tags: [FLVStreamTag], rtcp: [[UInt8]]) {
        var tags: [FLVStreamTag] = []
        for position in tracks.indices {
            for bytes in tracks[position].reorder.release(now: now) {
                tags += converter.feed(bytes, track: tracks[position].index, arrival: now)
            }
        }
        var rtcp = feedback(now: now)
        if nextReport.map({ now >= $0 }) ?? true {
            nextReport = now + Self.reportInterval
            let blocks = tracks.indices.compactMap { tracks[$0].reception.reportBlock(now: now) }
            if !blocks.isEmpty { rtcp.append(RTCPCompound.receiverReport(ssrc: localSSRC, blocks: blocks)) }
        }
        return (tags, rtcp)
    }

    /// The NACKs due now (one message per track) and a PLI when video needs a keyframe and none was asked for lately.
    private mutating func feedback(now: Int64) -> [[UInt8]] {
        var rtcp: [[UInt8]] = []
        for position in tracks.indices where tracks[position].negotiated.nack {
            guard let ssrc = tracks[position].ssrc else { continue }
            let lost = tracks[position].nacks.due(now: now)
            if !lost.isEmpty {
                rtcp.append(RTCPFeedback.nack(senderSSRC: localSSRC, mediaSSRC: ssrc, items: RTCPNackItem.items(naming: lost)).serialized())
            }
        }
        let damage = converter.statistics.droppedAccessUnits + converter.statistics.framesAwaitingKeyframe
        if damage > damageSeen {
            damageSeen = damage
            keyframeWanted = true
        }
        if keyframeWanted, lastKeyframeRequest.map({ now - $0 >= Self.keyframeRequestInterval }) ?? true,
           let video = tracks.first(where: { $0.negotiated.kind == .video && $0.negotiated.pictureLossIndication }),
           let ssrc = video.ssrc {
            keyframeWanted = false
            lastKeyframeRequest = now
            rtcp.append(RTCPFeedback.pictureLoss(senderSSRC: localSSRC, mediaSSRC: ssrc).serialized())
        }
        return rtcp
    }
}
