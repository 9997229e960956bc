import CFFmpeg
import Foundation
import MediaFormats

/// The input-thread half of `CopyPipeline`: picks the streams, derives their configurations, normalizes
/// timestamps and hands each packet to the outputs that take its kind.
struct CopySession {
    let input: any PacketSource
    let options: PipelineOptions
    let interrupter: Interrupter
    let video: StreamInfo?
    let audio: StreamInfo?
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
    /// Encode mode: a stream being re-encoded goes through its transcoder instead of the copy path.
    var videoTranscoder: VideoTranscoder?
    var audioTranscoder: AudioTranscoder?
    /// Orders encoded and copied packets by DTS across streams (encoders hold frames back).
    var interleaver: PacketInterleaver?
    /// Raw Annex B input without timestamps gets them from picture order counts.
    private var rawTiming: RawVideoTiming?
    private var audioIsADTS = false
    private var endOfInput = false
    private var realtimeStart: UInt64?
    var progress = PipelineProgress()
    private(set) var cancelled = false
    private(set) var reachedMaxDuration = false

    /// Packets read before giving up on seeing every selected stream.
    static let maxLookaheadPackets = 500
    static let microseconds = AVRational(num: 1, den: 1_000_000)

    init(input: any PacketSource, options: PipelineOptions, interrupter: Interrupter) throws {
        self.input = input
        self.options = options
        self.interrupter = interrupter
        let firstVideo = input.streams.first { $0.kind == .video && !$0.isAttachedPicture }
        let firstAudio = input.streams.first { $0.kind == .audio }
        video = options.video == .drop ? nil : firstVideo
        audio = options.audio == .drop ? nil : firstAudio
        if let video, video.codecName != "h264", !options.video.isEncode {
            throw PipelineError.unsupportedCodec(kind: "video", stream: video.index, codec: video.codecName)
        }
        if let audio, audio.codecName != "aac", !options.audio.isEncode {
            throw PipelineError.unsupportedCodec(kind: "audio", stream: audio.index, codec: audio.codecName)
        }
        guard video != nil || audio != nil else { throw PipelineError.noStreams(name: options.inputName) }
        if let file = input as? MediaInput {
            // Backward jumps are spliced in any format; forward ones only where the format allows them.
            timeline = TimelineSplicer(backwardThreshold: TimelineSplicer.backwardJump,
                                       forwardThreshold: file.timestampsMayJump ? TimelineSplicer.fileForwardJump : nil)
        }
        try readLookahead()
        try deriveConfigurations()
    }

    // MARK: Start-up

    private mutating func readLookahead() throws {
        // Until every stream has shown a DTS (Matroska leaves the first B-frame packets without one).
        var timed = Set<Int>()
        let wanted = Set([video?.index, audio?.index].compactMap { $0 })
        while timed != wanted && lookahead.count < CopySession.maxLookaheadPackets {
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
            let us = CopySession.toMicroseconds(first, stream)
            earliest = min(earliest ?? us, us)
        }
        videoClock.offset = earliest ?? 0
        audioClock.offset = earliest ?? 0
    }

    private mutating func deriveConfigurations() throws {
        try openTranscoders()
        if let video, videoTranscoder == nil {
            let bitstream: VideoBitstream
            do {
                if AVCDecoderConfigurationRecord.isAVCC(video.extradata) {
                    bitstream = .avcc(try AVCDecoderConfigurationRecord(parsing: video.extradata))
                } else {
                    bitstream = .annexB(extradata: video.extradata)
                }
            } catch let error as MediaFormatError {
                throw PipelineError.invalidStream(kind: "video", stream: video.index, error)
            }
            let firstVideo = lookahead.first { $0.streamIndex == video.index }
            var frameRate = video.averageFrameRate
            if case .annexB = bitstream, let firstVideo, firstVideo.pts == nil, firstVideo.dts == nil {
                let rate = options.inputFrameRate ?? RawVideoTiming.frameRate(fromParameterSets: video.extradata, firstAccessUnit: firstVideo.data) ?? RawVideoTiming.defaultFrameRate
                rawTiming = RawVideoTiming(frameRate: rate)
                frameRate = rate
            }
            videoConfiguration = VideoConfiguration(bitstream: bitstream, width: video.width, height: video.height, frameRate: frameRate)
        }
        if let audio, audioTranscoder == nil {
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
                audioConfiguration = AudioConfiguration(audioSpecificConfig: config, sampleRate: audio.sampleRate > 0 ? audio.sampleRate : config.samplingFrequency, channels: audio.channels)
            } catch let error as MediaFormatError {
                throw PipelineError.invalidStream(kind: "audio", stream: audio.index, error)
            }
        }
    }

    /// Opens every output's target and sink, then starts them. A failure closes what was opened.
    func openOutputs() throws -> [any PipelineOutput] {
        var workers: [any PipelineOutput] = []
        do {
            for (index, description) in options.outputs.enumerated() {
                if case let .network(url) = description.target {
                    // Published by the live engine, which connects in the background: a dead destination never
                    // holds up the start.
                    do {
                        workers.append(try publishOutput(index: index, description: description, url: url))
                    } catch {
                        throw PipelineError.openOutput(index: index, name: description.name, error)
                    }
                    continue
                }
                let sink: any PacketSink
                do {
                    sink = try makeSink(description)
                } catch {
                    throw PipelineError.openOutput(index: index, name: description.name, error)
                }
                workers.append(OutputWorker(index: index, name: description.name, sink: sink))
            }
        } catch {
            for worker in workers { worker.discard() }
            throw error
        }
        for worker in workers { worker.start() }
        return workers
    }

    private func publishOutput(index: Int, description: OutputDescription, url: String) throws -> EnginePublishOutput {
        guard description.kind == .flv else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP carries FLV only")
        }
        guard videoConfiguration != nil || audioConfiguration != nil else {
            throw OutputError.missingStream(output: description.name, kind: "audio or video")
        }
        guard let transport = options.transport else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP outputs need the live engine, and none runs here")
        }
        let destination = LiveDestination(index: index, name: description.name, url: url)
        return EnginePublishOutput(destination: destination, video: videoConfiguration, audio: audioConfiguration,
                                   publication: transport.publish(to: destination, options: options))
    }

    private func makeSink(_ description: OutputDescription) throws -> any PacketSink {
        switch description.kind {
        case .flv:
            guard videoConfiguration != nil || audioConfiguration != nil else {
                throw OutputError.missingStream(output: description.name, kind: "audio or video")
            }
            let writer = try TargetWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            return FLVSink(writer: writer, name: description.name, video: videoConfiguration, audio: audioConfiguration)
        case .annexB:
            guard let videoConfiguration else { throw OutputError.missingStream(output: description.name, kind: "video") }
            let writer = try TargetWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            do {
                return try AnnexBSink(writer: writer, video: videoConfiguration)
            } catch {
                writer.discard()
                throw error
            }
        case .adts:
            guard let audioConfiguration else { throw OutputError.missingStream(output: description.name, kind: "audio") }
            // Check ADTS can carry this AAC before creating the file.
            _ = try ADTSHeader(audioSpecificConfig: audioConfiguration.audioSpecificConfig, payloadLength: 0)
            let writer = try TargetWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            do {
                return try ADTSSink(writer: writer, name: description.name, audio: audioConfiguration)
            } catch {
                writer.discard()
                throw error
            }
        }
    }

    private func filePath(_ description: OutputDescription) throws -> String {
        guard case let .file(path) = description.target else {
            throw OutputError.unsupported(output: description.name, reason: "not a file")
        }
        return path
    }

    // MARK: Running

    mutating func run(workers: [any PipelineOutput], report: (PipelineProgress) -> Void) throws {
        let videoWorkers = workers.filter(\.wantsVideo)
        let audioWorkers = workers.filter(\.wantsAudio)
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
            for media in interleave(normalized) {
                try emit(media, to: media.kind == .video ? videoWorkers : audioWorkers)
                if reachedMaxDuration { break }
            }
            progress.bytesIn = input.bytesRead
            progress.dtsRepairs = videoClock.repairs + audioClock.repairs
            report(progress)
            // Only network outputs give up without failing the job; with none left there is nothing to do.
            if workers.allSatisfy(\.hasGivenUp) {
                throw PipelineError.allOutputsFailed(name: options.inputName, lastError: workers.last?.progress.lastError)
            }
        }
        // A live input ends its reads quietly when interrupted: that is a stop, not the end of the stream.
        if !reachedMaxDuration && interrupter.isCancelled { cancelled = true }
        if !reachedMaxDuration && !cancelled, var timing = rawTiming {
            for media in interleave(try timing.flush()) { try emit(media, to: videoWorkers) }
            rawTiming = timing
        }
        if !reachedMaxDuration && !cancelled, let video {
            for packet in videoInference.flush() {
                for media in interleave(try normalizeVideo(packet, stream: video, inferred: true)) { try emit(media, to: videoWorkers) }
            }
        }
        // Encoders are drained even at max_duration_s or on cancel, so what was read reaches the outputs.
        for media in try finishTranscoders() { try emit(media, to: media.kind == .video ? videoWorkers : audioWorkers) }
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
                throw PipelineError.inputTimedOut(name: options.inputName, seconds: options.inputTimeout ?? 0)
            }
            throw PipelineError.readInput(name: options.inputName, error)
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

    private mutating func normalizeVideo(_ packet: DemuxedPacket, stream: StreamInfo, inferred: Bool = false) throws -> [MediaPacket] {
        if let videoTranscoder { return try transcode(spliceForDecoder(packet, stream: stream), with: videoTranscoder, stream: stream) }
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
                if AVCDecoderConfigurationRecord.isAVCC(extradata) {
                    configuration.bitstream = .avcc(try AVCDecoderConfigurationRecord(parsing: extradata))
                } else {
                    configuration.bitstream = .annexB(extradata: extradata)
                }
            } catch let error as MediaFormatError {
                throw PipelineError.invalidStream(kind: "video", stream: stream.index, error)
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
                throw PipelineError.invalidStream(kind: "video", stream: stream.index, error)
            }
        }
        let spliced = splice(packet, stream: stream)
        let times = videoClock.normalize(pts: spliced.pts, dts: spliced.dts, duration: spliced.duration)
        return [MediaPacket(kind: .video, data: packet.data, pts: times.pts, dts: times.dts,
                            isKeyframe: packet.isKeyframe, videoConfiguration: changed)]
    }

    private mutating func normalizeAudio(_ packet: DemuxedPacket, stream: StreamInfo) throws -> [MediaPacket] {
        if let audioTranscoder { return try transcode(spliceForDecoder(packet, stream: stream), with: audioTranscoder, stream: stream) }
        let spliced = splice(packet, stream: stream)
        let times = audioClock.normalize(pts: spliced.pts, dts: spliced.dts, duration: spliced.duration)
        guard audioIsADTS else {
            var changed: AudioConfiguration?
            if let extradata = packet.newExtradata, var configuration = audioConfiguration {
                do { configuration.audioSpecificConfig = try AudioSpecificConfig(parsing: extradata) } catch let error as MediaFormatError {
                    throw PipelineError.invalidStream(kind: "audio", stream: stream.index, error)
                }
                if configuration != audioConfiguration {
                    audioConfiguration = configuration
                    changed = configuration
                }
            }
            progress.audioFrames += 1
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
                    configuration.audioSpecificConfig = config
                    configuration.sampleRate = config.samplingFrequency
                    audioConfiguration = configuration
                    changed = configuration
                }
                let payload = Array(packet.data[(offset + header.headerLength)..<(offset + frameLength)])
                packets.append(MediaPacket(kind: .audio, data: payload, pts: frameTime, dts: frameTime, isKeyframe: true, audioConfiguration: changed))
                progress.audioFrames += 1
                offset += frameLength
                // Further frames in one packet follow at 1024 samples each.
                frameTime = frameTime.addingSaturating(Int64(1024 * 1_000_000 / max(config.samplingFrequency, 1)))
            }
        } catch let error as MediaFormatError {
            throw PipelineError.invalidStream(kind: "audio", stream: stream.index, error)
        }
        return packets
    }

    private mutating func emit(_ packet: MediaPacket, to workers: [any PipelineOutput]) throws {
        if let limit = options.maxDuration, Double(packet.dts) / 1e6 >= limit {
            reachedMaxDuration = true
            return
        }
        if options.realtime { pace(until: packet.dts) }
        progress.mediaTime = max(progress.mediaTime, Double(packet.dts) / 1e6)
        if packet.kind == .video { progress.videoFrames += 1 }
        for worker in workers where !worker.submit(packet) {
            throw PipelineError.output(index: worker.index, name: worker.name, worker.error ?? OutputError.unsupported(output: worker.name, reason: "stopped"))
        }
    }

    /// Sleeps until the wall clock catches up with media time (like `ffmpeg -re`).
    private mutating func pace(until dts: Int64) {
        let now = Interrupter.now()
        let start = realtimeStart ?? now
        realtimeStart = start
        // Saturating: a DTS of centuries (crafted, or a clock offset) waits in 1 s steps instead of trapping.
        let (mediaNanoseconds, tooLong) = UInt64(max(dts, 0)).multipliedReportingOverflow(by: 1000)
        let (sum, pastEnd) = start.addingReportingOverflow(mediaNanoseconds)
        let due = tooLong || pastEnd ? UInt64.max : sum
        if due > now { usleep(UInt32(min((due - now) / 1000, 1_000_000))) }
    }

    /// A packet's times in microseconds, moved onto one continuous timeline when the file's clock jumps.
    private mutating func splice(_ packet: DemuxedPacket, stream: StreamInfo) -> (pts: Int64?, dts: Int64?, duration: Int64, offset: Int64) {
        let pts = packet.pts.map { CopySession.toMicroseconds($0, stream) }
        let dts = packet.dts.map { CopySession.toMicroseconds($0, stream) }
        let duration = CopySession.toMicroseconds(packet.duration, stream)
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
        moved.pts = spliced.pts.map { av_rescale_q($0, CopySession.microseconds, base) }
        moved.dts = spliced.dts.map { av_rescale_q($0, CopySession.microseconds, base) }
        return moved
    }

    /// Rescales with libavutil, which answers INT64_MIN (never a trap) when the result does not fit.
    static func toMicroseconds(_ value: Int64, _ stream: StreamInfo) -> Int64 {
        av_rescale_q(value, AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator), microseconds)
    }
}
