// FLV tags in (Adobe FLV v10.1 Annex E, Enhanced RTMP v2), MPEG-TS out (ISO/IEC 13818-1, written by `TSMuxer`) in
// SRT-sized datagrams: the live relay's currency turned into an SRT output's bytes. H.264 and HEVC become Annex B with
// their parameter sets before every keyframe (ITU-T H.222.0 §2.14, §2.17), AAC gets ADTS headers, Opus its control
// headers; AV1 and the other codecs have no MPEG-TS mapping here and are refused by name.

/// Why an FLV stream cannot go on as MPEG-TS.
public enum FLVToTSError: Error, Sendable, Equatable {
    /// A video codec MPEG-TS does not carry here (AV1, VP9, VP8, VVC, the legacy FLV codecs), named by FourCC or CodecID.
    case unsupportedVideoCodec(String)
    /// An audio codec MPEG-TS does not carry here (MP3, AC-3, FLAC, the legacy FLV formats), named by FourCC or SoundFormat.
    case unsupportedAudioCodec(String)
}

/// Turns FLV tags (legacy AVC/AAC, Enhanced RTMP hvc1/Opus) into a single-program transport stream cut into datagrams
/// of whole packets (`TSDatagramQueue`: 7 × 188 = 1,316 bytes for SRT).
///
/// The program is made from the first sequence headers: with both `expectsVideo` and `expectsAudio` it waits for both,
/// holding the frames that came meanwhile, until `configurationWait` ms of media have passed without the other (then it
/// starts with what it has). A sequence header of another codec, or of a kind the program lacks, replaces the program
/// (next PMT version); a new record of the same codec only changes the parameter sets sent before the next keyframe.
/// Times: ms → 90 kHz from `startTicks` (composition time kept as PTS − DTS); PCR on the video PID.
///
/// No I/O, no clock. Malformed tags and frames without a configuration are counted in `statistics`; only a codec with no
/// MPEG-TS mapping throws.
public struct FLVToTSConverter: Sendable {
    /// How long (ms of media) to wait for the second sequence header before starting with one.
    public static let defaultConfigurationWait: Int64 = 1000
    /// Frames held at most while waiting for the configuration (about 10 s of 30 fps video with its audio).
    public static let maxHeldTags = 1024
    /// Where the timeline starts on the 90 kHz clock: 1.4 s, as FFmpeg's muxer and the file output's TS sink do, so a
    /// receiver that buffers before the first PCR never sees a time below zero.
    public static let defaultStartTicks: Int64 = 126_000

    /// What was dropped, by kind.
    public struct Statistics: Sendable, Equatable {
        /// Audio or video frames that came before any configuration of their kind (or when the wait ran out).
        public var framesWithoutConfiguration = 0
        /// Tags that did not parse, configurations that did not parse, frames the muxer refused.
        public var malformedTags = 0
        /// Script data, command frames, end-of-sequence tags, multichannel layouts, tracks other than the first.
        public var ignoredTags = 0
        /// Times the program was replaced (a codec added or changed).
        public var programChanges = 0

        /// Nothing counted yet.
        public init() {}
    }

    /// The program has a video stream; the muxer waits for its sequence header.
    public let expectsVideo: Bool
    /// The program has an audio stream; the muxer waits for its sequence header.
    public let expectsAudio: Bool
    /// ms of media to wait for the second sequence header.
    public let configurationWait: Int64
    /// The 90 kHz time of timestamp 0.
    public let startTicks: Int64
    /// Drops so far.
    public private(set) var statistics = Statistics()

    private var queue: TSDatagramQueue
    private var muxer: TSMuxer?
    private var video: FLVToTSVideo?
    private var audio: FLVToTSAudio?
    /// The codecs of the program the muxer writes (video, audio).
    private var program: (video: TSStreamCodec?, audio: TSStreamCodec?) = (nil, nil)
    /// Frames held until the program starts.
    private var held: [FLVToTSFrame] = []

    /// A converter.
    /// - Parameters:
    ///   - expectsVideo: wait for a video sequence header before starting.
    ///   - expectsAudio: wait for an audio sequence header before starting.
    ///   - configurationWait: ms of media after which the program starts with the headers it has.
    ///   - startTicks: the 90 kHz time of timestamp 0.
    ///   - packetsPerDatagram: TS packets per datagram (7 for SRT).
    public init(expectsVideo: Bool, expectsAudio: Bool, configurationWait: Int64 = defaultConfigurationWait,
                startTicks: Int64 = defaultStartTicks, packetsPerDatagram: Int = TSDatagramQueue.srtPacketsPerDatagram) {
        self.expectsVideo = expectsVideo
        self.expectsAudio = expectsAudio
        self.configurationWait = configurationWait
        self.startTicks = startTicks
        queue = TSDatagramQueue(packetsPerDatagram: packetsPerDatagram)
    }

    /// Takes one tag and returns the datagrams completed.
    /// - Throws: `FLVToTSError` for a sequence header of a codec MPEG-TS does not carry here.
    public mutating func feed(_ tag: FLVStreamTag) throws(FLVToTSError) -> [[UInt8]] {
        switch tag.type {
        case .video: try feedVideo(tag)
        case .audio: try feedAudio(tag)
        case .scriptData: statistics.ignoredTags += 1
        }
        return datagrams()
    }

    /// The end of the stream: starts a waiting program with what it has, and returns every datagram left (the last one
    /// possibly shorter).
    public mutating func flush() -> [[UInt8]] {
        if muxer == nil { startProgram() }
        var result = datagrams()
        if let rest = queue.flush() { result.append(rest) }
        return result
    }

    /// Forgets everything (a new stream): configurations, program, held frames, queued bytes, counters.
    public mutating func reset() {
        self = FLVToTSConverter(expectsVideo: expectsVideo, expectsAudio: expectsAudio, configurationWait: configurationWait,
                                startTicks: startTicks, packetsPerDatagram: queue.packetsPerDatagram)
    }

    private mutating func datagrams() -> [[UInt8]] {
        var result: [[UInt8]] = []
        while let datagram = queue.nextDatagram() { result.append(datagram) }
        return result
    }

    private mutating func feedVideo(_ tag: FLVStreamTag) throws(FLVToTSError) {
        guard let data = try? FLVVideoData(parsing: tag.data) else { return statistics.malformedTags += 1 }
        guard data.command == nil, data.packetType != .sequenceEnd, data.packetType != .metadata,
              let track = data.tracks.first(where: { $0.id == 0 }) ?? data.tracks.first else {
            return statistics.ignoredTags += 1
        }
        _ = try FLVToTSVideo.tsCodec(of: track.codec)
        guard !data.isSequenceStart else {
            guard let configuration = try? FLVToTSVideo(codec: track.codec, record: Array(track.payload)) else {
                return statistics.malformedTags += 1
            }
            video = configuration
            return configurationChanged()
        }
        guard video != nil else { return statistics.framesWithoutConfiguration += 1 }
        take(FLVToTSFrame(isVideo: true, timestamp: tag.timestamp, compositionTime: track.compositionTime,
                          isKeyframe: data.isKeyframe, payload: track.payload))
    }

    private mutating func feedAudio(_ tag: FLVStreamTag) throws(FLVToTSError) {
        guard let data = try? FLVAudioData(parsing: tag.data) else { return statistics.malformedTags += 1 }
        guard data.packetType == .sequenceStart || data.packetType == .codedFrames,
              let track = data.tracks.first(where: { $0.id == 0 }) ?? data.tracks.first else {
            return statistics.ignoredTags += 1
        }
        try FLVToTSAudio.checkSupported(track.codec)
        guard !data.isSequenceStart else {
            do {
                audio = try FLVToTSAudio(codec: track.codec, configuration: Array(track.payload))
            } catch let error as FLVToTSError {
                throw error
            } catch {
                return statistics.malformedTags += 1
            }
            return configurationChanged()
        }
        guard audio != nil else { return statistics.framesWithoutConfiguration += 1 }
        take(FLVToTSFrame(isVideo: false, timestamp: tag.timestamp, compositionTime: 0, isKeyframe: true,
                          payload: track.payload))
    }

    /// Writes a frame, or holds it while the program waits for its configuration.
    private mutating func take(_ frame: FLVToTSFrame) {
        guard muxer == nil else { return write(frame) }
        held.append(frame)
        if let first = held.first, frame.timestamp.subtractingSaturating(first.timestamp) >= configurationWait
            || held.count >= Self.maxHeldTags {
            startProgram()
        }
    }

    /// A sequence header arrived: start the program when it is complete, replace it when its codecs changed.
    private mutating func configurationChanged() {
        guard muxer != nil else {
            if (!expectsVideo || video != nil) && (!expectsAudio || audio != nil) { startProgram() }
            return
        }
        if program.video != video?.codec || program.audio != audio?.codec { startProgram() }
    }

    /// Makes (or replaces) the program from the configurations known, then writes the frames held.
    private mutating func startProgram() {
        var streams: [TSMuxer.Stream] = []
        if let video { streams.append(.video(video.codec, extradata: video.record)) }
        if let audio { streams.append(.audio(audio.codec)) }
        guard !streams.isEmpty else { return }
        do {
            if var muxer {
                try muxer.replaceProgram(with: TSMuxer.Configuration(streams: streams))
                self.muxer = muxer
                statistics.programChanges += 1
            } else {
                muxer = try TSMuxer(configuration: TSMuxer.Configuration(streams: streams))
            }
        } catch {
            // The default PIDs and two supported codecs always make a valid program; count it should that change.
            statistics.malformedTags += 1
            return
        }
        program = (video?.codec, audio?.codec)
        let waiting = held
        held = []
        for frame in waiting {
            if frame.isVideo ? video != nil : audio != nil { write(frame) } else { statistics.framesWithoutConfiguration += 1 }
        }
    }

    /// Writes one audio or video frame through the muxer.
    private mutating func write(_ frame: FLVToTSFrame) {
        guard var muxer else { return }
        let dts = ticks(frame.timestamp)
        var out: [UInt8] = []
        do {
            if frame.isVideo, var video {
                let pts = ticks(frame.timestamp.addingSaturating(Int64(frame.compositionTime)))
                try muxer.write(try video.accessUnit(frame, pid: TSMuxer.defaultVideoPID, dts: dts, pts: pts), into: &out)
                self.video = video
            } else if !frame.isVideo, let audio {
                try muxer.write(audio.accessUnit(frame, pid: TSMuxer.defaultAudioPID, pts: dts), into: &out)
            }
        } catch {
            return statistics.malformedTags += 1
        }
        self.muxer = muxer
        queue.append(out)
    }

    /// ms of the stream's timeline on the 90 kHz clock, from `startTicks`.
    private func ticks(_ milliseconds: Int64) -> Int64 {
        milliseconds.rescaledSaturating(from: 1000, to: 90000).addingSaturating(startTicks)
    }
}
