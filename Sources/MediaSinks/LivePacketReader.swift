import MediaFormats
import MediaJob

/// A live input's FLV tags (RTMP messages, or SRT's TS made into tags at its edge) read as media packets for the file
/// sinks, without libav: the relay engine's file outputs take the job's stream this way, on its event loop.
///
/// The streams are described first (`LiveStreamDescription`: each kind's configuration record, or 3 s of media
/// without one), holding the tags read meanwhile; then every tag gives its packets, times in microseconds from the
/// tags' milliseconds, with a new configuration on the packet from which it applies. Codecs a file output cannot copy
/// are refused by name, as the codec engine refuses them. A stateful transform: no I/O.
package struct LivePacketReader {
    /// What the streams are, once described: the configurations the sink opens with (nil: that kind is absent).
    package struct Streams: Sendable, Equatable {
        package var video: VideoConfiguration?
        package var audio: AudioConfiguration?
    }

    private let usesVideo: Bool
    private let usesAudio: Bool
    private var description = LiveStreamDescription()
    private var held: [FLVStreamTag] = []
    package private(set) var streams: Streams?
    private var videoCodec: LiveMediaTag.Codec?
    private var audioCodec: LiveMediaTag.Codec?
    private var videoRecord: [UInt8] = []
    private var audioRecord: [UInt8] = []

    /// The video and audio stream indexes messages name (video first, as the codec engine numbers a live input's).
    private var videoIndex: Int { 0 }
    private var audioIndex: Int { streams?.video == nil ? 0 : 1 }

    /// - Parameters:
    ///   - usesVideo, usesAudio: the kinds the output takes; the other kind is never looked at.
    package init(usesVideo: Bool, usesAudio: Bool) {
        self.usesVideo = usesVideo
        self.usesAudio = usesAudio
    }

    /// Takes one tag (audio, video or script data, on the job's timeline); returns the packets it completes: none
    /// while the streams are being described, then what was held with it.
    /// - Throws: a codec the output cannot copy, a configuration that does not parse, a codec change mid-stream.
    package mutating func take(_ tag: FLVStreamTag) throws(MediaJobError) -> [MediaPacket] {
        guard streams != nil else {
            held.append(tag)
            try description.take(tag, video: usesVideo, audio: usesAudio)
            guard description.isComplete(video: usesVideo, audio: usesAudio) else { return [] }
            return try describe()
        }
        return try packets(from: tag)
    }

    /// The end of the stream: what is still held is described with what arrived and read.
    package mutating func finish() throws(MediaJobError) -> [MediaPacket] {
        guard streams == nil, !held.isEmpty else { return [] }
        return try describe()
    }

    /// Describes the streams from what arrived, then reads the tags held meanwhile.
    private mutating func describe() throws(MediaJobError) -> [MediaPacket] {
        var found = Streams()
        if let codec = description.videoCodec, let record = description.videoConfiguration {
            found.video = try LivePacketReader.videoConfiguration(codec: codec, record: record, announcedFrameRate: description.announcedFrameRate,
                                                                  pictureSize: description.pictureSize)
            (videoCodec, videoRecord) = (codec, record)
        }
        if let codec = description.audioCodec, let record = description.audioConfiguration {
            let index = found.video == nil ? 0 : 1
            found.audio = try LivePacketReader.audioConfiguration(codec: codec, record: record, index: index)
            (audioCodec, audioRecord) = (codec, record)
        }
        streams = found
        let tags = held
        held = []
        var packets: [MediaPacket] = []
        for tag in tags { packets += try self.packets(from: tag) }
        return packets
    }

    private mutating func packets(from tag: FLVStreamTag) throws(MediaJobError) -> [MediaPacket] {
        let body = tag.data
        let dts = tag.timestamp.multipliedSaturating(by: 1000)
        switch tag.type {
        case .video:
            guard let videoCodec, !body.isEmpty else { return [] }
            let media = try LiveMediaTag(video: body)
            guard media.codec == nil || media.codec == videoCodec else {
                throw .unsupportedLiveCodec(kind: "video", codec: "\(LiveStreamDescription.videoCodecName(body)) after \(videoCodec.rawValue) (a codec change mid-stream)")
            }
            switch media.content {
            case let .configuration(record):
                guard !record.isEmpty, record != videoRecord, var changed = streams?.video else { return [] }
                changed.bitstream = try LivePacketReader.bitstream(codec: videoCodec, record: record)
                videoRecord = record
                streams?.video = changed
                pendingVideo = changed
                return []
            case let .frame(data, compositionTime, isKeyframe):
                let pts = dts.addingSaturating(Int64(compositionTime).multipliedSaturating(by: 1000))
                defer { pendingVideo = nil }
                return [MediaPacket(kind: .video, data: Array(data), pts: pts, dts: dts, isKeyframe: isKeyframe, videoConfiguration: pendingVideo)]
            case .none:
                return []
            }
        case .audio:
            guard let audioCodec, !body.isEmpty else { return [] }
            let media = try LiveMediaTag(audio: body)
            guard media.codec == audioCodec else {
                throw .unsupportedLiveCodec(kind: "audio", codec: "\(LiveStreamDescription.audioCodecName(body)) after \(audioCodec.rawValue) (a codec change mid-stream)")
            }
            switch media.content {
            case let .configuration(record):
                guard !record.isEmpty, record != audioRecord, streams?.audio != nil else { return [] }
                let changed = try LivePacketReader.audioConfiguration(codec: audioCodec, record: record, index: audioIndex)
                audioRecord = record
                streams?.audio = changed
                pendingAudio = changed
                return []
            case let .frame(data, _, _):
                defer { pendingAudio = nil }
                return [MediaPacket(kind: .audio, data: Array(data), pts: dts, dts: dts, isKeyframe: true, audioConfiguration: pendingAudio)]
            case .none:
                return []
            }
        default:
            return []
        }
    }

    /// A configuration that changed, announced on the next frame of its kind.
    private var pendingVideo: VideoConfiguration?
    private var pendingAudio: AudioConfiguration?

    // MARK: Configurations

    /// The video as a file output opens it: the bitstream from its record, the size and rate from its SPS (or
    /// sequence header); the rate `onMetaData` announced when the stream's own is absent or implausible. VP9's vpcC
    /// says no size: `pictureSize` (the first key frame's, or `onMetaData`'s) does.
    static func videoConfiguration(codec: LiveMediaTag.Codec, record: [UInt8], announcedFrameRate: Double?,
                                   pictureSize: (width: Int, height: Int)? = nil) throws(MediaJobError) -> VideoConfiguration {
        let geometry = try LiveStreamDescription.videoGeometry(codec: codec, record: record, index: 0)
        let rate = geometry.frameRate.flatMap { LiveStreamDescription.plausibleFrameRates.contains($0) ? $0 : nil } ?? announcedFrameRate
        let size = geometry.width > 0 ? (width: geometry.width, height: geometry.height) : pictureSize ?? (0, 0)
        return VideoConfiguration(bitstream: try bitstream(codec: codec, record: record), width: size.width, height: size.height, frameRate: rate)
    }

    /// The copied bitstream: H.264, HEVC, AV1, VP9 and VP8.
    static func bitstream(codec: LiveMediaTag.Codec, record: [UInt8]) throws(MediaJobError) -> VideoBitstream {
        guard VideoBitstream.copiedCodecNames.contains(codec.rawValue) else {
            throw .unsupportedCodec(kind: "video", stream: 0, codec: codec.rawValue)
        }
        do {
            return try VideoBitstream(codec: codec.rawValue, extradata: record)
        } catch {
            throw .invalidStream(kind: "video", stream: 0, formatError(error, "\(codec.rawValue) configuration"))
        }
    }

    /// The audio as a file output opens it: AAC, or Opus (its OpusHead; MP4, HLS and FLV carry it, MPEG-TS and ADTS
    /// refuse it by name).
    static func audioConfiguration(codec: LiveMediaTag.Codec, record: [UInt8], index: Int) throws(MediaJobError) -> AudioConfiguration {
        if codec == .opus {
            do {
                return AudioConfiguration(opus: try OpusIDHeader(parsing: record))
            } catch {
                throw .invalidStream(kind: "audio", stream: index, formatError(error, "OpusHead"))
            }
        }
        guard codec == .aac else { throw .unsupportedCodec(kind: "audio", stream: index, codec: codec.rawValue) }
        let config: AudioSpecificConfig
        do {
            config = try AudioSpecificConfig(parsing: record)
        } catch {
            throw .invalidStream(kind: "audio", stream: index, formatError(error, "AAC configuration"))
        }
        // Table 1.19's count, at most 8; a program_config_element or a reserved configuration is taken as stereo.
        // FLV and MPEG-TS carry no priming: the codec's own (1,024 samples for AAC LC).
        return AudioConfiguration(audioSpecificConfig: config, sampleRate: config.outputSamplingFrequency,
                                  channels: min(config.channelCount ?? 2, 8),
                                  priming: AudioPriming.aac(config, firstPacketSkipSamples: nil, initialPadding: 0))
    }

    static func formatError(_ error: any Error, _ structure: String) -> MediaFormatError {
        (error as? MediaFormatError) ?? .invalid(structure: structure, reason: "\(error)")
    }
}
