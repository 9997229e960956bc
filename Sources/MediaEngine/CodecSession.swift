import CFFmpeg
import Foundation
import MediaFormats
import MediaJob
import MediaSinks

/// The input-thread half of `CodecJob`: picks the streams, derives their configurations, normalizes
/// timestamps and hands each packet to the outputs that take its kind.
struct CodecSession {
    let input: any PacketSource
    let options: MediaJobOptions
    let interrupter: Interrupter
    let video: StreamInfo?
    let audio: StreamInfo?
    /// Which rendition of each kind every output takes (copy, or one encoder's settings).
    let plan: RenditionPlan
    /// The copied renditions' configurations (the input's); encoded ones come from their chains.
    var videoConfiguration: VideoConfiguration?
    var audioConfiguration: AudioConfiguration?
    /// Packets read ahead to learn every stream's first timestamp and configuration.
    private var lookahead: [DemuxedPacket] = []
    var videoClock = TimestampNormalizer()
    private var videoInference = DecodeTimeInference()
    var audioClock = TimestampNormalizer()
    /// A file's timeline made continuous where it restarts or jumps (`cat a.ts b.ts`, a restarted source);
    /// `nil` for live inputs, which splice their own.
    private var timeline: TimelineSplicer?
    /// Encode mode: a stream with encoded renditions also goes through its transcoder (one decode, a chain per
    /// rendition); a copied rendition of it takes the copy path beside.
    var videoTranscoder: VideoTranscoder?
    var audioTranscoder: AudioTranscoder?
    /// Per lane, orders encoded and copied packets by DTS across streams (encoders hold frames back).
    var interleavers: [PacketInterleaver?] = []
    /// Per lane, the outputs it feeds (set when `run` starts).
    var laneOutputs: [[any JobOutput]] = []
    /// The lanes whose packets progress counts (one rendition of each kind, so a ladder counts frames once).
    var countedVideoLane: Int?
    var countedAudioLane: Int?
    /// Raw Annex B input without timestamps gets them from picture order counts.
    private var rawTiming: RawVideoTiming?
    private var audioIsADTS = false
    private var endOfInput = false
    var realtimeStart: UInt64?
    var progress = MediaJobProgress()
    private(set) var cancelled = false
    var reachedMaxDuration = false

    /// Packets read before giving up on seeing every selected stream.
    static let maxLookaheadPackets = 500
    static let microseconds = AVRational(num: 1, den: 1_000_000)

    init(input: any PacketSource, options: MediaJobOptions, interrupter: Interrupter) throws {
        self.input = input
        self.options = options
        self.interrupter = interrupter
        let firstVideo = input.streams.first { $0.kind == .video && !$0.isAttachedPicture }
        let firstAudio = input.streams.first { $0.kind == .audio }
        plan = RenditionPlan(options)
        video = plan.video.isEmpty ? nil : firstVideo
        audio = plan.audio.isEmpty ? nil : firstAudio
        if let video, plan.copiedVideo != nil, !VideoBitstream.copiedCodecNames.contains(video.codecName) {
            throw MediaJobError.unsupportedCodec(kind: "video", stream: video.index, codec: video.codecName)
        }
        // Opus is copied with its OpusHead (the extradata of WebM, MP4, Ogg and a live sequence start).
        if let audio, plan.copiedAudio != nil, audio.codecName != "aac", audio.codecName != "opus" || audio.extradata.isEmpty {
            throw MediaJobError.unsupportedCodec(kind: "audio", stream: audio.index, codec: audio.codecName)
        }
        countedVideoLane = plan.lanes.firstIndex { $0.video != nil }
        countedAudioLane = plan.lanes.firstIndex { $0.audio != nil }
        guard video != nil || audio != nil else { throw MediaJobError.noStreams(name: options.inputName) }
        if let file = input as? MediaInput {
            // Backward jumps are spliced in any format; forward ones only where the format allows them.
            timeline = TimelineSplicer(.file(mayJump: file.timestampsMayJump))
        }
        try readLookahead()
        try deriveConfigurations()
    }

    // MARK: Start-up

    private mutating func readLookahead() throws {
        // Until every stream has shown a DTS (Matroska leaves the first B-frame packets without one).
        var timed = Set<Int>()
        let wanted = Set([video?.index, audio?.index].compactMap { $0 })
        while timed != wanted && lookahead.count < CodecSession.maxLookaheadPackets {
            guard let packet = try read() else { break }
            guard wanted.contains(packet.streamIndex) else { continue }
            lookahead.append(packet)
            if packet.dts != nil || (packet.pts == nil && packet.dts == nil) { timed.insert(packet.streamIndex) }
        }
        // The earliest timestamp of the job becomes zero; streams keep their offsets to each other.
        var earliest: Int64?
        for stream in [video, audio].compactMap({ $0 }) {
            let packets = lookahead.filter { $0.streamIndex == stream.index }
            var first: Int64?
            if let known = packets.firstIndex(where: { $0.dts != nil }), let dts = packets[known].dts {
                // Packets before the first known DTS decode one frame duration apart before it.
                first = dts.subtractingSaturating(Int64(known).multipliedSaturating(by: DecodeTimeInference.frameDuration(packets[known].duration, stream)))
            } else {
                first = packets.compactMap(\.pts).min()
            }
            guard let first else { continue }
            let us = CodecSession.toMicroseconds(first, stream)
            earliest = min(earliest ?? us, us)
        }
        videoClock.offset = earliest ?? 0
        audioClock.offset = earliest ?? 0
    }

    private mutating func deriveConfigurations() throws {
        try openTranscoders()
        if let video, plan.copiedVideo != nil {
            let bitstream: VideoBitstream
            let firstVideo = lookahead.first { $0.streamIndex == video.index }
            do {
                if video.codecName == "vp9" || video.codecName == "vp8", video.extradata.isEmpty {
                    // libavformat gives a file's VP9 or VP8 no vpcC (WebM carries none): its first key frame says what
                    // it holds.
                    let isVP9 = video.codecName == "vp9"
                    guard let firstVideo,
                          let keyframe = try isVP9 ? VPXKeyframe(vp9: firstVideo.data[...]) : VPXKeyframe(vp8: firstVideo.data[...]) else {
                        throw MediaFormatError.invalid(structure: "\(video.codecName.uppercased()) stream",
                                                       reason: "its first frame is not a key frame, whose header gives the vpcC")
                    }
                    bitstream = isVP9 ? .vp9(keyframe.record) : .vp8(keyframe.record)
                } else {
                    bitstream = try VideoBitstream(codec: video.codecName, extradata: video.extradata)
                }
            } catch let error as MediaFormatError {
                throw MediaJobError.invalidStream(kind: "video", stream: video.index, error)
            }
            var frameRate = video.averageFrameRate
            if case .annexB = bitstream, let firstVideo, firstVideo.pts == nil, firstVideo.dts == nil {
                let rate = options.inputFrameRate ?? RawVideoTiming.frameRate(fromParameterSets: video.extradata, firstAccessUnit: firstVideo.data) ?? RawVideoTiming.defaultFrameRate
                rawTiming = RawVideoTiming(frameRate: rate)
                frameRate = rate
            }
            videoConfiguration = VideoConfiguration(bitstream: bitstream, width: video.width, height: video.height, frameRate: frameRate)
        }
        if let audio, plan.copiedAudio != nil, audio.codecName == "opus" {
            do {
                audioConfiguration = AudioConfiguration(opus: try OpusIDHeader(parsing: audio.extradata))
            } catch let error as MediaFormatError {
                throw MediaJobError.invalidStream(kind: "audio", stream: audio.index, error)
            }
        } else if let audio, plan.copiedAudio != nil {
            do {
                let config: AudioSpecificConfig
                if !audio.extradata.isEmpty {
                    config = try AudioSpecificConfig(parsing: audio.extradata)
                } else if let first = lookahead.first(where: { $0.streamIndex == audio.index }) {
                    config = try ADTSHeader(parsing: first.data).audioSpecificConfig
                    audioIsADTS = true
                } else {
                    throw MediaFormatError.invalid(structure: "AAC stream", reason: "no AudioSpecificConfig and no packets to read one from")
                }
                let priming = AudioPriming.aac(config, firstPacketSkipSamples: lookahead.first { $0.streamIndex == audio.index }?.skipSamples,
                                               initialPadding: audio.initialPadding)
                audioConfiguration = AudioConfiguration(audioSpecificConfig: config, sampleRate: audio.sampleRate > 0 ? audio.sampleRate : config.samplingFrequency,
                                                        channels: audio.channels, priming: priming)
            } catch let error as MediaFormatError {
                throw MediaJobError.invalidStream(kind: "audio", stream: audio.index, error)
            }
        }
    }

    // MARK: Running

    mutating func run(outputs: [any JobOutput], report: (MediaJobProgress) -> Void) throws {
        laneOutputs = plan.lanes.indices.map { lane in outputs.filter { plan.outputLanes[$0.index] == lane } }
        var pending = lookahead
        lookahead = []
        pending.reverse()
        while !reachedMaxDuration {
            if interrupter.isCancelled {
                cancelled = true
                break
            }
            let next: DemuxedPacket?
            if let buffered = pending.popLast() { next = buffered } else { next = try read() }
            guard let packet = next else { break }
            var normalized = try normalize(packet)
            // Arrival time rides along for the restream latency histogram, through the interleaver too.
            for index in normalized.indices { normalized[index].receivedAt = packet.receivedAt }
            try route(normalized)
            progress.bytesIn = input.bytesRead
            progress.dtsRepairs = videoClock.repairs + audioClock.repairs
            report(progress)
            // Only network outputs give up without failing the job; with none left there is nothing to do.
            if outputs.allSatisfy(\.hasGivenUp) {
                throw MediaJobError.allOutputsFailed(name: options.inputName, lastError: outputs.last?.progress.lastError)
            }
        }
        // A live input ends its reads quietly when interrupted: that is a stop, not the end of the stream.
        if !reachedMaxDuration && interrupter.isCancelled { cancelled = true }
        if !reachedMaxDuration && !cancelled, var timing = rawTiming {
            try route(CodecSession.tagged(try timing.flush(), plan.copiedVideo))
            rawTiming = timing
        }
        if !reachedMaxDuration && !cancelled, let video {
            for packet in videoInference.flush() {
                try route(try normalizeVideo(packet, stream: video, inferred: true))
            }
        }
        // Encoders are drained even at max_duration_s or on cancel, so what was read reaches the outputs.
        try finishTranscoders()
        progress.bytesIn = input.bytesRead
    }

    /// Reads one packet, turning interrupts into timeout or cancellation.
    private mutating func read() throws -> DemuxedPacket? {
        guard !endOfInput else { return nil }
        do {
            guard let packet = try input.readPacket() else {
                endOfInput = true
                return nil
            }
            return packet
        } catch let error as FFmpegError {
            if error.isInterrupt {
                if interrupter.isCancelled {
                    endOfInput = true
                    return nil
                }
                throw MediaJobError.inputTimedOut(name: options.inputName, seconds: options.inputTimeout ?? 0)
            }
            throw MediaJobError.readInput(name: options.inputName, error)
        }
    }

    private mutating func normalize(_ packet: DemuxedPacket) throws -> [MediaPacket] {
        if let video, packet.streamIndex == video.index {
            return try normalizeVideo(packet, stream: video)
        }
        if let audio, packet.streamIndex == audio.index {
            return try normalizeAudio(packet, stream: audio)
        }
        return []
    }

    /// A video packet's renditions: encoded by the transcoder's chains (not for packets whose DTS was inferred:
    /// those come from the copy path's inference, after the decoder already had them) and copied.
    private mutating func normalizeVideo(_ packet: DemuxedPacket, stream: StreamInfo, inferred: Bool = false) throws -> [MediaPacket] {
        var encoded: [MediaPacket] = []
        if !inferred, let videoTranscoder {
            // A file's timeline splicer sees this packet twice when video is also copied; for one packet it answers
            // the same offset both times.
            encoded = try transcode(spliceForDecoder(packet, stream: stream), with: videoTranscoder)
        }
        guard plan.copiedVideo != nil else { return encoded }
        return encoded + CodecSession.tagged(try copyVideo(packet, stream: stream, inferred: inferred), plan.copiedVideo)
    }

    /// The copy path of a video packet: DTS inferred where missing, new avcC announced, timestamps normalized.
    private mutating func copyVideo(_ packet: DemuxedPacket, stream: StreamInfo, inferred: Bool) throws -> [MediaPacket] {
        if rawTiming == nil && !inferred {
            // Packets without a DTS wait for the next one that has it.
            var media: [MediaPacket] = []
            for ready in videoInference.push(packet, stream: stream) {
                media += try normalizeVideo(ready, stream: stream, inferred: true)
            }
            return media
        }
        var changed: VideoConfiguration?
        if let extradata = packet.newExtradata, var configuration = videoConfiguration {
            do {
                configuration.bitstream = try VideoBitstream(codec: stream.codecName, extradata: extradata)
            } catch let error as MediaFormatError {
                throw MediaJobError.invalidStream(kind: "video", stream: stream.index, error)
            }
            if configuration != videoConfiguration {
                videoConfiguration = configuration
                changed = configuration
            }
        }
        if var timing = rawTiming {
            defer { rawTiming = timing }
            do {
                return try timing.push(packet.data)
            } catch let error as MediaFormatError {
                throw MediaJobError.invalidStream(kind: "video", stream: stream.index, error)
            }
        }
        let spliced = splice(packet, stream: stream)
        let times = videoClock.normalize(pts: spliced.pts, dts: spliced.dts, duration: spliced.duration)
        return [MediaPacket(kind: .video, data: packet.data, pts: times.pts, dts: times.dts,
                            isKeyframe: packet.isKeyframe, videoConfiguration: changed)]
    }

    /// An audio packet's renditions: encoded by the transcoder's chains, and copied.
    private mutating func normalizeAudio(_ packet: DemuxedPacket, stream: StreamInfo) throws -> [MediaPacket] {
        var encoded: [MediaPacket] = []
        if let audioTranscoder { encoded = try transcode(spliceForDecoder(packet, stream: stream), with: audioTranscoder) }
        guard plan.copiedAudio != nil else { return encoded }
        return encoded + CodecSession.tagged(try copyAudio(packet, stream: stream), plan.copiedAudio)
    }

    private mutating func copyAudio(_ packet: DemuxedPacket, stream: StreamInfo) throws -> [MediaPacket] {
        let spliced = splice(packet, stream: stream)
        let times = audioClock.normalize(pts: spliced.pts, dts: spliced.dts, duration: spliced.duration)
        guard audioIsADTS else {
            var changed: AudioConfiguration?
            if let extradata = packet.newExtradata, var configuration = audioConfiguration {
                do {
                    switch configuration.bitstream {
                    case .aac: configuration.bitstream = .aac(try AudioSpecificConfig(parsing: extradata))
                    case .opus: configuration = AudioConfiguration(opus: try OpusIDHeader(parsing: extradata))
                    }
                } catch let error as MediaFormatError {
                    throw MediaJobError.invalidStream(kind: "audio", stream: stream.index, error)
                }
                if configuration != audioConfiguration {
                    audioConfiguration = configuration
                    changed = configuration
                }
            }
            return [MediaPacket(kind: .audio, data: packet.data, pts: times.pts, dts: times.dts, isKeyframe: true, audioConfiguration: changed)]
        }
        // ADTS input (MPEG-TS, .aac): strip each header; a new configuration is announced when it changes.
        var packets: [MediaPacket] = []
        var offset = 0
        var frameTime = times.dts
        do {
            while offset < packet.data.count {
                let header = try ADTSHeader(parsing: packet.data[offset...])
                let frameLength = Int(header.frameLength)
                guard offset + frameLength <= packet.data.count else {
                    throw MediaFormatError.truncated(needed: frameLength, available: packet.data.count - offset)
                }
                var changed: AudioConfiguration?
                let config = try header.audioSpecificConfig
                if var configuration = audioConfiguration, configuration.audioSpecificConfig != config {
                    configuration.bitstream = .aac(config)
                    configuration.sampleRate = config.samplingFrequency
                    audioConfiguration = configuration
                    changed = configuration
                }
                let payload = Array(packet.data[(offset + header.headerLength)..<(offset + frameLength)])
                packets.append(MediaPacket(kind: .audio, data: payload, pts: frameTime, dts: frameTime, isKeyframe: true, audioConfiguration: changed))
                offset += frameLength
                // Further frames in one packet follow at 1024 samples each.
                frameTime = frameTime.addingSaturating(Int64(1024 * 1_000_000 / max(config.samplingFrequency, 1)))
            }
        } catch let error as MediaFormatError {
            throw MediaJobError.invalidStream(kind: "audio", stream: stream.index, error)
        }
        return packets
    }

    /// A packet's times in microseconds, moved onto one continuous timeline when the file's clock jumps.
    private mutating func splice(_ packet: DemuxedPacket, stream: StreamInfo) -> (pts: Int64?, dts: Int64?, duration: Int64, offset: Int64) {
        let pts = packet.pts.map { CodecSession.toMicroseconds($0, stream) }
        let dts = packet.dts.map { CodecSession.toMicroseconds($0, stream) }
        let duration = CodecSession.toMicroseconds(packet.duration, stream)
        guard var splicer = timeline else { return (pts, dts, duration, 0) }
        let offset = splicer.offset(stream: stream.index, dts: dts ?? pts, pts: pts, duration: duration)
        timeline = splicer
        return (pts.map { $0.addingSaturating(offset) }, dts.map { $0.addingSaturating(offset) }, duration, offset)
    }

    /// Encode mode: the decoder sees the spliced timeline too, in the stream's own time base (untouched
    /// while nothing was spliced, so no rescaling rounds a time).
    private mutating func spliceForDecoder(_ packet: DemuxedPacket, stream: StreamInfo) -> DemuxedPacket {
        let spliced = splice(packet, stream: stream)
        guard spliced.offset != 0 else { return packet }
        let base = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
        var moved = packet
        moved.pts = spliced.pts.map { av_rescale_q($0, CodecSession.microseconds, base) }
        moved.dts = spliced.dts.map { av_rescale_q($0, CodecSession.microseconds, base) }
        return moved
    }

    /// Rescales with libavutil, which answers INT64_MIN (never a trap) when the result does not fit.
    static func toMicroseconds(_ value: Int64, _ stream: StreamInfo) -> Int64 {
        av_rescale_q(value, AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator), microseconds)
    }
}
