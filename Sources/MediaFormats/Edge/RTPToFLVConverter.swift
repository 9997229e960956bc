// RTP in (RFC 3550, the payload formats of RFC 6184, RFC 7798, RFC 3640 and RFC 7587), FLV tags out (Adobe FLV v10.1
// Annex E, Enhanced RTMP v2): an RTSP camera's streams turned into the live relay's currency, as `TSToFLVConverter`
// turns an SRT publisher's. One video and one audio stream: the first of each kind the edge converts.

/// Turns the RTP packets of a session's streams into FLV tags: legacy AVC and AAC tags, Enhanced RTMP hvc1 and Opus.
///
/// - Video: access units put back together by `H264Depacketizer`/`H265Depacketizer`, then made tags as the TS edge makes
///   them (`TSToFLVVideoTrack`): a sequence header from the parameter sets (the SDP's `sprop-*` before the first
///   keyframe, in band after), then frames. Nothing before the first keyframe; after an access unit lost to packet loss,
///   nothing until the next keyframe (the frames between refer to what was lost).
/// - Audio: a sequence header from the SDP's AudioSpecificConfig (or an OpusHead for the rtpmap's channels), then one
///   tag per AAC frame or Opus packet.
/// - Time: each stream's RTP clock in milliseconds. When every stream has the play range's start (RTP-Info), the
///   streams meet there; otherwise each starts at its first packet's arrival, measured from the session's first packet.
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

        public init() {}

        public static let damageCounters: [(name: String, counter: any KeyPath<Statistics, Int> & Sendable)] = [
            ("lost packets", \.lostPackets), ("dropped video access units", \.droppedAccessUnits),
            ("dropped audio frames", \.droppedAudioFrames), ("malformed packets", \.malformedPackets),
            ("malformed access units", \.malformedAccessUnits),
        ]
    }

    private enum Depacketizer: Sendable {
        case h264(H264Depacketizer)
        case hevc(H265Depacketizer)
        case aac(AACDepacketizer)
        case opus
    }

    /// One converted stream: its format, depacketizer, clock and what it has sent.
    private struct Stream: Sendable {
        let index: Int
        let format: RTPTrackFormat
        var depacketizer: Depacketizer
        var unwrapper = RTPTimestampUnwrapper()
        /// The extended RTP timestamp that is `anchorMilliseconds` on the timeline; nil before it is known.
        var anchorTicks: Int64?
        var anchorMilliseconds: Int64 = 0
        /// Video: the Annex B edge shared with the TS path; nil for audio.
        var video: TSToFLVVideoTrack?
        /// Audio: the sequence header was sent.
        var sentAudioConfiguration = false
        /// Video: the greatest PTS so far, how far the DTS runs behind the PTS, and the last DTS.
        var maxPTS: Int64?
        var reorderDelay: Int64 = 0
        var lastDTS: Int64?

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
            case let .aac(parameters):
                depacketizer = .aac(AACDepacketizer(parameters: parameters))
            case .opus:
                depacketizer = .opus
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

    public private(set) var statistics = Statistics()
    private var streams: [Stream]
    /// Whether every stream's clock meets the others' at the play range's start (RTP-Info), not at arrival.
    private let timedByPlayStart: Bool
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
            statistics.ignoredPackets += 1
            return []
        }
        let packet: RTPPacket
        do {
            packet = try RTPPacket(parsing: bytes)
        } catch {
            statistics.malformedPackets += 1
            return []
        }
        guard packet.payloadType == streams[position].format.payloadType else {
            statistics.ignoredPackets += 1
            return []
        }
        if firstArrival == nil { firstArrival = arrival }
        // Taken out of the array (and its depacketizer out of its case below) so the buffers it grows are held once: a
        // copy left behind would make every append copy the access unit so far.
        var stream = streams.remove(at: position)
        if stream.anchorTicks == nil {
            stream.anchorTicks = stream.unwrapper.unwrap(packet.timestamp)
            stream.anchorMilliseconds = max(0, arrival - (firstArrival ?? arrival))
        }
        var tags: [FLVStreamTag] = []
        switch stream.depacketizer {
        case var .h264(depacketizer):
            stream.depacketizer = .opus
            let outputs = depacketizer.depacketize(packet)
            stream.depacketizer = .h264(depacketizer)
            for output in outputs { convertVideo(output, of: &stream, awaitingKeyframe: depacketizer.awaitingKeyframe, into: &tags) }
        case var .hevc(depacketizer):
            stream.depacketizer = .opus
            let outputs = depacketizer.depacketize(packet)
            stream.depacketizer = .hevc(depacketizer)
            for output in outputs { convertVideo(output, of: &stream, awaitingKeyframe: depacketizer.awaitingKeyframe, into: &tags) }
        case var .aac(depacketizer):
            stream.depacketizer = .opus
            let outputs = depacketizer.depacketize(packet)
            stream.depacketizer = .aac(depacketizer)
            for output in outputs {
                switch output {
                case let .frame(frame): appendAudio(frame.bytes[...], rtpTimestamp: frame.rtpTimestamp, of: &stream, into: &tags)
                case let .dropped(_, reason):
                    statistics.droppedAudioFrames += 1
                    count(reason)
                }
            }
        case .opus:
            if !packet.payload.isEmpty { appendAudio(packet.payload, rtpTimestamp: packet.timestamp, of: &stream, into: &tags) }
        }
        streams.insert(stream, at: position)
        return tags
    }

    private mutating func count(_ reason: RTPDropReason) {
        if case let .packetLoss(lost) = reason { statistics.lostPackets += lost }
    }

    private mutating func convertVideo(_ output: RTPVideoDepacketizerOutput, of stream: inout Stream, awaitingKeyframe: Bool,
                                       into tags: inout [FLVStreamTag]) {
        let unit: RTPVideoAccessUnit
        switch output {
        case let .accessUnit(accessUnit): unit = accessUnit
        case let .dropped(_, reason):
            statistics.droppedAccessUnits += 1
            count(reason)
            return
        }
        // A keyframe delivered clears the depacketizer's wait; a frame before it refers to what was lost.
        if awaitingKeyframe && !unit.isKeyframe {
            statistics.framesAwaitingKeyframe += 1
            return
        }
        guard var track = stream.video.take() else { return }
        defer { stream.video = track }
        var annexB: [UInt8] = []
        annexB.reserveCapacity(unit.nalUnits.reduce(0) { $0 + $1.count + 4 })
        if unit.isKeyframe, case let .h264(sets) = stream.format.codec, !sets.isEmpty, !unit.nalUnits.contains(where: { $0.first.map { $0 & 0x1F == 7 } ?? false }) {
            for set in sets { annexB += [0, 0, 0, 1] + set }
        }
        if unit.isKeyframe, case let .hevc(sets) = stream.format.codec, !sets.isEmpty,
           !unit.nalUnits.contains(where: { $0.first.map { ($0 >> 1) & 0x3F == 33 } ?? false }) {
            for set in sets { annexB += [0, 0, 0, 1] + set }
        }
        for nalUnit in unit.nalUnits {
            annexB += [0, 0, 0, 1]
            annexB += nalUnit
        }
        let pts = place(stream.milliseconds(stream.unwrapper.unwrap(unit.rtpTimestamp)))
        if let maxPTS = stream.maxPTS, pts < maxPTS { stream.reorderDelay = max(stream.reorderDelay, maxPTS - pts) }
        stream.maxPTS = max(stream.maxPTS ?? pts, pts)
        var dts = max(0, pts - stream.reorderDelay)
        if let last = stream.lastDTS, dts < last { dts = last }
        do {
            let result = try track.convert(annexB, compositionTime: Int32(clamping: pts - dts))
            switch result {
            case let .tags(data):
                stream.lastDTS = dts
                tags += data.map { FLVStreamTag(type: .video, timestamp: dts, data: $0) }
            case .beforeKeyframe: statistics.framesAwaitingKeyframe += 1
            case .empty: break
            }
        } catch {
            statistics.malformedAccessUnits += 1
        }
    }

    private mutating func appendAudio(_ frame: ArraySlice<UInt8>, rtpTimestamp: UInt32, of stream: inout Stream, into tags: inout [FLVStreamTag]) {
        let time = place(stream.milliseconds(stream.unwrapper.unwrap(rtpTimestamp)))
        do {
            switch stream.format.codec {
            case let .aac(parameters):
                if !stream.sentAudioConfiguration {
                    tags.append(FLVStreamTag(type: .audio, timestamp: time, data: Self.aacData(.sequenceHeader, parameters.config.bytes[...])))
                    stream.sentAudioConfiguration = true
                }
                tags.append(FLVStreamTag(type: .audio, timestamp: time, data: Self.aacData(.raw, frame)))
            case let .opus(channels):
                if !stream.sentAudioConfiguration {
                    let head = try OpusIDHeader(channelCount: UInt8(channels), preSkip: 0, inputSampleRate: 48000).serialized()
                    tags.append(FLVStreamTag(type: .audio, timestamp: time,
                                             data: try FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: head[...]).serialized()))
                    stream.sentAudioConfiguration = true
                }
                tags.append(FLVStreamTag(type: .audio, timestamp: time,
                                         data: try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: frame).serialized()))
            case .h264, .hevc:
                return
            }
        } catch {
            statistics.malformedAccessUnits += 1
        }
    }

    /// A time before the timeline's start is clamped to it, and counted.
    private mutating func place(_ milliseconds: Int64) -> Int64 {
        guard milliseconds < 0 else { return milliseconds }
        statistics.timestampsClampedToOrigin += 1
        return 0
    }

    private static func aacData(_ type: FLVAACPacketType, _ payload: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 2)
        FLVAudioTagHeader(aacPacketType: type).write(into: &out)
        out += payload
        return out
    }
}
