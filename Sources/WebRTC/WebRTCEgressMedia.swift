// RFC 3550 §5.1 and §6.4.1 (an RTP stream's numbering and sender reports), RFC 4585 §6.2.1 and §6.3.1 (NACK and PLI,
// which a sender answers) and RFC 5104 §4.3.1 (FIR): a WHEP viewer's media, from the job's units to RTP, and what a
// sender owes its viewer.
import MediaFormats

/// The media of one WHEP viewer: the job's units in (`WebRTCEgressPackager` makes them once for every viewer), RTP out
/// before protection, numbered with this viewer's SSRCs, sequence numbers and timestamp offsets: H.264 from the first
/// keyframe (each carries its parameter sets, so a browser joins and recovers at any of them), Opus one packet a frame.
/// Every packet is kept in a short history, so a NACK is answered by sending the same packet again; its payload's
/// storage is the unit's, shared by every viewer. A PLI or FIR sets `wantsKeyframe` for the session to ask the job's
/// GOP cache or source for one. A sender report per track each second ties its RTP clock to the wallclock, which a
/// browser's lip sync needs. Times are milliseconds of the caller's monotonic clock; the wallclock is NTP's.
public struct WebRTCEgressMedia: Sendable {
    /// Sender reports: each second, as the ingest's receiver reports.
    public static let reportInterval: Int64 = 1_000

    /// What was sent and answered.
    public struct Statistics: Sendable, Equatable {
        public var packetsSent = 0
        public var octetsSent = 0
        /// Video frames (access units) and Opus frames sent.
        public var videoFramesSent = 0
        public var audioFramesSent = 0
        /// Packets sent again for a NACK, and NACKed packets no longer in the history.
        public var retransmitted = 0
        public var notInHistory = 0
        /// PLIs and FIRs received.
        public var keyframeRequests = 0
        /// Video frames before the first keyframe (or before the parameter sets), not sent.
        public var framesBeforeKeyframe = 0
        /// Tags of a codec the viewer's tracks do not carry (AAC audio, HEVC video …), not sent.
        public var tagsNotCarried = 0
        public var malformedTags = 0

        public init() {}
    }

    private struct Sender: Sendable {
        let payloadType: UInt8
        let ssrc: UInt32
        let clockRate: Int64
        /// Added to every RTP timestamp (RFC 3550 §5.1: a random start).
        let timestampOffset: UInt32
        var sequenceNumber: UInt16
        var history = RTPPacketHistory<RTPPacket>()
        var packets: UInt32 = 0
        var octets: UInt32 = 0
        /// The RTP time of the last packet sent and when (caller's clock), for the sender report's RTP time.
        var last: (rtpTime: UInt32, at: Int64)?
        var nextReport: Int64?

        func rtpTime(milliseconds: Int64) -> UInt32 {
            UInt32(truncatingIfNeeded: milliseconds &* clockRate / 1000) &+ timestampOffset
        }

        /// The next packet of this stream, kept in the history.
        mutating func packet(_ payload: [UInt8], marker: Bool, timestamp: UInt32, now: Int64) -> RTPPacket {
            let packet = RTPPacket(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                                   ssrc: ssrc, payload: payload[...])
            history.record(sequenceNumber, packet)
            sequenceNumber &+= 1
            packets &+= 1
            octets &+= UInt32(truncatingIfNeeded: payload.count)
            last = (timestamp, now)
            return packet
        }
    }

    private var video: Sender?
    private var audio: Sender?
    private var startedVideo = false
    public private(set) var statistics = Statistics()
    /// A PLI or FIR came and no keyframe has been sent since.
    public private(set) var wantsKeyframe = false

    /// - Parameters:
    ///   - tracks: the answer's tracks: the first H.264 video and the first Opus audio are sent, each with its
    ///     `localSSRC` (or a random one).
    ///   - random: the source of SSRCs, sequence numbers and timestamp offsets (tests pass a fixed one).
    public init(tracks: [WebRTCNegotiatedTrack], random: () -> UInt32 = { UInt32.random(in: .min ... .max) }) throws {
        for track in tracks {
            switch (track.codec, track.kind) {
            case (.h264, .video) where video == nil:
                video = Sender(payloadType: track.payloadType, ssrc: track.localSSRC ?? random(), clockRate: Int64(track.clockRate),
                               timestampOffset: random(), sequenceNumber: UInt16(truncatingIfNeeded: random()))
            case (.opus, .audio) where audio == nil:
                audio = Sender(payloadType: track.payloadType, ssrc: track.localSSRC ?? random(), clockRate: Int64(track.clockRate),
                               timestampOffset: random(), sequenceNumber: UInt16(truncatingIfNeeded: random()))
            default:
                continue
            }
        }
        guard video != nil || audio != nil else {
            throw MediaFormatError.unsupported(structure: "WebRTC tracks", reason: "neither H.264 video nor Opus audio was negotiated")
        }
    }

    /// The SSRCs the viewer receives from.
    public var ssrcs: (video: UInt32?, audio: UInt32?) { (video?.ssrc, audio?.ssrc) }

    /// Whether the viewer takes audio (it offered Opus).
    public var carriesAudio: Bool { audio != nil }

    /// The RTP packets (unprotected) of one unit of the job, sent at `now`.
    public mutating func send(_ unit: WebRTCEgressUnit, now: Int64) -> [RTPPacket] {
        switch unit {
        case let .video(payloads, keyframe, milliseconds): return sendVideo(payloads, keyframe: keyframe, milliseconds: milliseconds, now: now)
        case let .opus(frame, milliseconds): return sendOpus(frame, milliseconds: milliseconds, now: now)
        case .notCarried:
            statistics.tagsNotCarried += 1
            return []
        case .malformed:
            statistics.malformedTags += 1
            return []
        case .videoConfiguration, .nothing: return []
        }
    }

    private mutating func sendVideo(_ payloads: [[UInt8]], keyframe: Bool, milliseconds: Int64, now: Int64) -> [RTPPacket] {
        // Taken out of `video` while its history records: a copy left there would make each record copy the whole history.
        guard var sender = video.take() else { return [] }
        defer { video = sender }
        guard startedVideo || keyframe else {
            statistics.framesBeforeKeyframe += 1
            return []
        }
        startedVideo = true
        if keyframe { wantsKeyframe = false }
        statistics.videoFramesSent += 1
        let timestamp = sender.rtpTime(milliseconds: milliseconds)
        var out: [RTPPacket] = []
        out.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            out.append(sender.packet(payload, marker: index == payloads.count - 1, timestamp: timestamp, now: now))
            statistics.octetsSent += RTPPacket.fixedHeaderSize + payload.count
        }
        statistics.packetsSent += out.count
        return out
    }

    /// The RTP packet of one Opus frame at `milliseconds` on the job's timeline: what the job's Opus tags become, and
    /// what a job whose audio is AAC sends its viewers once the session has made the AAC Opus.
    public mutating func sendOpus(_ frame: [UInt8], milliseconds: Int64, now: Int64) -> [RTPPacket] {
        // Taken out of `audio` while its history records (see `sendVideo`).
        guard !frame.isEmpty, var sender = audio.take() else { return [] }
        let packet = sender.packet(frame, marker: false, timestamp: sender.rtpTime(milliseconds: milliseconds), now: now)
        audio = sender
        statistics.audioFramesSent += 1
        statistics.packetsSent += 1
        statistics.octetsSent += RTPPacket.fixedHeaderSize + frame.count
        return [packet]
    }

    /// RTCP from the viewer: the packets its NACKs name, sent again (the same bytes: RFC 4588's rtx is not used); a PLI
    /// or FIR for our video sets `wantsKeyframe`.
    public mutating func receiveRTCP(_ compound: [UInt8]) -> [RTPPacket] {
        var out: [RTPPacket] = []
        for message in RTCPFeedback.messages(in: compound) {
            switch message {
            case let .nack(_, mediaSSRC, items):
                let numbers = items.flatMap(\.sequenceNumbers)
                for number in numbers {
                    let found: RTPPacket? = if mediaSSRC == video?.ssrc { video?.history.packet(number.rawValue) }
                        else if mediaSSRC == audio?.ssrc { audio?.history.packet(number.rawValue) } else { nil }
                    if let found {
                        out.append(found)
                        statistics.retransmitted += 1
                    } else {
                        statistics.notInHistory += 1
                    }
                }
            case let .pictureLoss(_, mediaSSRC), let .fullIntraRequest(_, mediaSSRC, _):
                guard mediaSSRC == video?.ssrc else { continue }
                statistics.keyframeRequests += 1
                wantsKeyframe = true
            }
        }
        return out
    }

    /// The sender reports due at `now` (one per track that has sent, each `reportInterval`), `wallclock` being now in
    /// NTP's 32.32 format: its RTP time is the last packet's, advanced by the time since it was sent.
    public mutating func senderReports(now: Int64, wallclock: UInt64) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for var sender in [video, audio].compactMap({ $0 }) {
            guard let last = sender.last, (sender.nextReport ?? now) <= now else { continue }
            sender.nextReport = now + Self.reportInterval
            let rtpTime = last.rtpTime &+ UInt32(truncatingIfNeeded: (now - last.at) &* sender.clockRate / 1000)
            out.append(RTCPCompound.senderReport(ssrc: sender.ssrc, ntpTime: wallclock, rtpTime: rtpTime,
                                                 packetCount: sender.packets, octetCount: sender.octets))
            if sender.ssrc == video?.ssrc { video = sender } else { audio = sender }
        }
        return out
    }
}
