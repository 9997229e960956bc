// RFC 6184 (H.264 over RTP, packetization mode 1), RFC 7587 (Opus over RTP), RFC 3550 §6.4.1 (sender reports),
// RFC 4585 §6.2.1 and §6.3.1 (NACK and PLI, which a sender answers) and RFC 5104 §4.3.1 (FIR): a WHEP viewer's media,
// from the job's FLV tags to RTP, and what a sender owes its viewer.
import MediaFormats

/// The media of one WHEP viewer: the job's FLV tags in (legacy AVC or Enhanced avc1 video, Enhanced Opus audio), RTP out
/// before protection: H.264 in FU-A/STAP-A packets with the parameter sets before every keyframe (a browser joins and
/// recovers at any of them), Opus one packet a frame. Nothing is sent before the first keyframe whose parameter sets are
/// known. Every packet is kept in a short history, so a NACK is answered by sending the same bytes again; a PLI or FIR
/// sets `wantsKeyframe` for the session to ask the job's GOP cache or source for one. A sender report per track each
/// second ties its RTP clock to the wallclock, which a browser's lip sync needs. Times are milliseconds of the caller's
/// monotonic clock; the wallclock is NTP's.
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
        /// Video tags before the first keyframe (or before the parameter sets), not sent.
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
        var history = RTPPacketHistory()
        var packets: UInt32 = 0
        var octets: UInt32 = 0
        /// The RTP time of the last packet sent and when (caller's clock), for the sender report's RTP time.
        var last: (rtpTime: UInt32, at: Int64)?
        var nextReport: Int64?

        func rtpTime(milliseconds: Int64) -> UInt32 {
            UInt32(truncatingIfNeeded: milliseconds &* clockRate / 1000) &+ timestampOffset
        }

        /// Records a packet about to be sent.
        mutating func sent(_ packet: RTPPacket, bytes: [UInt8], now: Int64) {
            history.record(packet.sequenceNumber, bytes)
            packets &+= 1
            octets &+= UInt32(truncatingIfNeeded: packet.payload.count)
            last = (packet.timestamp, now)
        }
    }

    private var video: Sender?
    private var audio: Sender?
    private var packetizer: H264Packetizer?
    /// The parameter sets of the last AVC sequence header (SPS then PPS), and its NAL unit length size.
    private var parameterSets: [[UInt8]] = []
    private var lengthSize = 4
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
                let sender = Sender(payloadType: track.payloadType, ssrc: track.localSSRC ?? random(), clockRate: Int64(track.clockRate),
                                    timestampOffset: random(), sequenceNumber: UInt16(truncatingIfNeeded: random()))
                video = sender
                packetizer = H264Packetizer(payloadType: sender.payloadType, ssrc: sender.ssrc, sequenceNumber: sender.sequenceNumber)
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

    /// The RTP packets (unprotected) of one tag of the job, sent at `now`.
    public mutating func send(_ tag: FLVStreamTag, now: Int64) -> [[UInt8]] {
        switch tag.type {
        case .video: sendVideo(tag, now: now)
        case .audio: sendAudio(tag, now: now)
        case .scriptData: []
        }
    }

    private mutating func sendVideo(_ tag: FLVStreamTag, now: Int64) -> [[UInt8]] {
        guard let timing = video, var packetizer else { return [] }
        let data: FLVVideoData
        do { data = try FLVVideoData(parsing: tag.data) } catch {
            statistics.malformedTags += 1
            return []
        }
        guard let track = data.tracks.first, track.codec.fourCC == .avc1 else {
            statistics.tagsNotCarried += 1
            return []
        }
        if data.isSequenceStart {
            do {
                let record = try AVCDecoderConfigurationRecord(parsing: Array(track.payload))
                parameterSets = record.sequenceParameterSets + record.pictureParameterSets
                lengthSize = record.nalUnitLengthSize
            } catch {
                statistics.malformedTags += 1
            }
            return []
        }
        guard data.packetType == .codedFrames || data.packetType == .codedFramesX else { return [] }
        var nalUnits: [[UInt8]]
        do {
            nalUnits = try AVCC.nalUnits(in: Array(track.payload), lengthSize: lengthSize).map(Array.init)
        } catch {
            statistics.malformedTags += 1
            return []
        }
        let keyframe = data.isKeyframe && nalUnits.contains { $0.first.map { $0 & 0x1F == 5 } ?? false }
        guard startedVideo || (keyframe && !parameterSets.isEmpty) else {
            statistics.framesBeforeKeyframe += 1
            return []
        }
        startedVideo = true
        statistics.videoFramesSent += 1
        if keyframe {
            wantsKeyframe = false
            // In-band copies first, as a browser decodes an IDR only after its SPS and PPS.
            if !nalUnits.contains(where: { $0.first.map { $0 & 0x1F == 7 } ?? false }) { nalUnits = parameterSets + nalUnits }
        }
        let packets = packetizer.packetize(nalUnits, timestamp: timing.rtpTime(milliseconds: tag.timestamp + Int64(track.compositionTime)))
        self.packetizer = packetizer
        // Taken out of `video` while its history records: a copy left there would make each record copy the whole history.
        guard var sender = video.take() else { return [] }
        var out: [[UInt8]] = []
        for packet in packets {
            let bytes = packet.serialized
            sender.sent(packet, bytes: bytes, now: now)
            statistics.packetsSent += 1
            statistics.octetsSent += bytes.count
            out.append(bytes)
        }
        sender.sequenceNumber = packetizer.sequenceNumber
        video = sender
        return out
    }

    private mutating func sendAudio(_ tag: FLVStreamTag, now: Int64) -> [[UInt8]] {
        guard audio != nil else { return [] }
        let data: FLVAudioData
        do { data = try FLVAudioData(parsing: tag.data) } catch {
            statistics.malformedTags += 1
            return []
        }
        guard let track = data.tracks.first, track.codec.fourCC == .opus else {
            statistics.tagsNotCarried += 1
            return []
        }
        // The OpusHead says nothing RTP carries (RFC 7587 §4: the SDP does); empty frames are RTMP's silence.
        guard data.packetType == .codedFrames, !track.payload.isEmpty else { return [] }
        return sendOpus(Array(track.payload), milliseconds: tag.timestamp, now: now)
    }

    /// Whether the viewer takes audio (it offered Opus).
    public var carriesAudio: Bool { audio != nil }

    /// The RTP packet of one Opus frame at `milliseconds` on the job's timeline: what the job's Opus tags become, and
    /// what a job whose audio is AAC sends its viewers once the session has made the AAC Opus.
    public mutating func sendOpus(_ frame: [UInt8], milliseconds: Int64, now: Int64) -> [[UInt8]] {
        // Taken out of `audio` while its history records (see `sendVideo`).
        guard !frame.isEmpty, var sender = audio.take() else { return [] }
        let packet = RTPPacket(marker: false, payloadType: sender.payloadType, sequenceNumber: sender.sequenceNumber,
                               timestamp: sender.rtpTime(milliseconds: milliseconds), ssrc: sender.ssrc, payload: frame[...])
        let bytes = packet.serialized
        sender.sent(packet, bytes: bytes, now: now)
        sender.sequenceNumber &+= 1
        audio = sender
        statistics.audioFramesSent += 1
        statistics.packetsSent += 1
        statistics.octetsSent += bytes.count
        return [bytes]
    }

    /// RTCP from the viewer: the packets its NACKs name, sent again (the same bytes: RFC 4588's rtx is not used); a PLI
    /// or FIR for our video sets `wantsKeyframe`.
    public mutating func receiveRTCP(_ compound: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for message in RTCPFeedback.messages(in: compound) {
            switch message {
            case let .nack(_, mediaSSRC, items):
                let numbers = items.flatMap(\.sequenceNumbers)
                for number in numbers {
                    let found: [UInt8]? = if mediaSSRC == video?.ssrc { video?.history.packet(number.rawValue) }
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
