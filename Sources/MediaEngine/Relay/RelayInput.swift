import CFFmpeg
import Foundation
import MediaFormats
import MediaJob
import MediaSinks

/// A live input (an RTMP pull, or a publisher on the shared ingest port) for the codec engine: the relay engine
/// delivers its FLV tags on an event loop (`LiveTagConsumer`), and the codec job's input thread reads them as
/// packets (`PacketSource`), with codec parameters for its decoders (`CodecParameterSource`).
///
/// The event loop never waits: when the codec job falls behind (a slow encoder) by more than `maxQueuedBytes`,
/// frames are dropped up to the next keyframe and counted, so the input's other work goes on.
///
/// `@unchecked Sendable`: the queue and end state are guarded by `condition`; everything else is the input thread's.
public final class RelayInput: PacketSource, LiveTagConsumer, @unchecked Sendable {
    public private(set) var streams: [StreamInfo] = []
    private let options: MediaJobOptions
    private var subscription: (any LiveSubscription)?
    private var parameters: [Int: CodecParameters] = [:]

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [FLVStreamTag] = []
    private var head = 0
    private var queuedBytes = 0
    private var ended = false
    private var endError: MediaJobError?
    private var dropping = false
    private var received: Int64 = 0
    private var droppedFrames = 0
    /// Whether the input has video (set once its streams are described): where a stream that dropped frames resumes.
    private var resumesAtVideoKeyframe = false

    // The input thread's.
    private var lookahead: [FLVStreamTag] = []
    private var videoIndex: Int?
    private var audioIndex: Int?
    private var videoCodec: LiveMediaTag.Codec?
    private var audioCodec: LiveMediaTag.Codec?
    private var videoExtradata: [UInt8] = []
    private var audioExtradata: [UInt8] = []
    private var pendingVideoExtradata: [UInt8]?
    private var pendingAudioExtradata: [UInt8]?
    private var audioFrameDuration: Int64 = 21

    /// Seconds of a 20 Mb/s stream: past it the codec job is not keeping up, and frames are dropped.
    static let maxQueuedBytes = 48 << 20

    public init(options: MediaJobOptions) {
        self.options = options
    }

    /// Starts the input on `transport` and waits until its streams are known (their sequence headers, or a few
    /// seconds of media without one).
    /// - Throws: the input's failure (nothing arrived within the timeout, a refused publisher), a codec the job
    ///   cannot take (named), or `noStreams`.
    public func open(on transport: any LiveTransport, interrupter: Interrupter) throws(MediaJobError) {
        subscription = transport.subscribe(options: options, interrupter: interrupter, consumer: self)
        do throws(MediaJobError) {
            try describeStreams()
        } catch {
            subscription?.stop()
            throw error
        }
    }

    /// Ends the input (the codec job stops reading).
    public func close() {
        subscription?.stop()
    }

    /// Connections after the first.
    public var reconnects: Int { subscription?.reconnects ?? 0 }

    /// Frames dropped because the codec job fell behind.
    public var drops: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedFrames
    }

    public var bytesRead: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    // MARK: Event loop (LiveTagConsumer)

    public func receive(_ tags: [FLVStreamTag], bytes: Int) {
        condition.lock()
        defer { condition.unlock() }
        received += Int64(bytes)
        for tag in tags {
            let head = tag.head
            if queuedBytes > RelayInput.maxQueuedBytes { dropping = true }
            if dropping, head.isFrame {
                let resumes = queuedBytes < RelayInput.maxQueuedBytes / 2 && RelayInput.isResumePoint(head, hasVideo: resumesAtVideoKeyframe)
                guard resumes else {
                    droppedFrames += 1
                    continue
                }
                dropping = false
            }
            queue.append(tag)
            queuedBytes += tag.data.count
        }
        condition.signal()
    }

    public func end(_ error: MediaJobError?) {
        condition.lock()
        ended = true
        endError = error
        condition.broadcast()
        condition.unlock()
    }

    /// Where a stream that dropped frames can resume: a key frame of the default track, as where the relay starts an
    /// output, or any audio frame when there is no video.
    static func isResumePoint(_ head: FLVTagHead, hasVideo: Bool) -> Bool {
        hasVideo ? head.isKeyframe : head.role == .audioFrame
    }

    // MARK: Input thread

    /// The next tag: what `describeStreams` read ahead first. Nil at the end; the input's failure is thrown.
    private func nextTag() throws(MediaJobError) -> FLVStreamTag? {
        if !lookahead.isEmpty { return lookahead.removeFirst() }
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !ended { condition.wait() }
        guard head < queue.count else {
            if let endError { throw endError }
            return nil
        }
        let tag = queue[head]
        head += 1
        queuedBytes -= tag.data.count
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 {
            queue.removeFirst(head)
            head = 0
        }
        return tag
    }

    private func describeStreams() throws(MediaJobError) {
        let wantsVideo = options.usesVideo
        let wantsAudio = options.usesAudio
        var description = LiveStreamDescription()
        var read: [FLVStreamTag] = []
        while !description.isComplete(video: wantsVideo, audio: wantsAudio) {
            guard let tag = try nextTag() else { break }
            read.append(tag)
            try description.take(tag, video: wantsVideo, audio: wantsAudio)
        }
        lookahead = read
        if let codec = description.videoCodec, let record = description.videoConfiguration {
            let described = try LiveCodecStream.video(codec: codec, record: record, index: streams.count,
                                                      announcedFrameRate: description.announcedFrameRate, pictureSize: description.pictureSize)
            streams.append(described.stream)
            parameters[described.stream.index] = described.parameters
            videoIndex = described.stream.index
            videoCodec = codec
            videoExtradata = described.stream.extradata
        }
        if let codec = description.audioCodec, let record = description.audioConfiguration {
            let described = try LiveCodecStream.audio(codec: codec, record: record, index: streams.count)
            streams.append(described.stream)
            parameters[described.stream.index] = described.parameters
            audioIndex = described.stream.index
            audioCodec = codec
            audioExtradata = record
            audioFrameDuration = described.frameMilliseconds
        }
        guard !streams.isEmpty else {
            throw .noStreams(name: options.inputName)
        }
        // The event loop decides where dropping ends: it reads this under the lock, never the input thread's `videoIndex`.
        condition.lock()
        resumesAtVideoKeyframe = videoIndex != nil
        condition.unlock()
    }

    public func readPacket() throws -> DemuxedPacket? {
        while let tag = try nextTag() {
            if let packet = try packet(from: tag) { return packet }
        }
        return nil
    }

    private func packet(from tag: FLVStreamTag) throws(MediaJobError) -> DemuxedPacket? {
        let body = tag.data
        switch tag.type {
        case .video:
            guard let videoIndex, !body.isEmpty else { return nil }
            let media = try LiveMediaTag(video: body)
            guard media.codec == nil || media.codec == videoCodec else {
                throw .unsupportedLiveCodec(kind: "video", codec: "\(LiveStreamDescription.videoCodecName(body)) after \(videoCodec?.rawValue ?? "none") (a codec change mid-stream)")
            }
            switch media.content {
            case let .configuration(record):
                // VP9 decodes without extradata: its vpcC is not handed to the decoder.
                if !record.isEmpty, record != videoExtradata, videoCodec != .vp9, videoCodec != .vp8 {
                    videoExtradata = record
                    pendingVideoExtradata = record
                }
                return nil
            case let .frame(data, compositionTime, isKeyframe):
                defer { pendingVideoExtradata = nil }
                return DemuxedPacket(streamIndex: videoIndex, data: Array(data), pts: tag.timestamp + Int64(compositionTime),
                                     dts: tag.timestamp, duration: 0, isKeyframe: isKeyframe, newExtradata: pendingVideoExtradata)
            case .none:
                return nil
            }
        case .audio:
            guard let audioIndex, !body.isEmpty else { return nil }
            let media = try LiveMediaTag(audio: body)
            guard media.codec == audioCodec else {
                throw .unsupportedLiveCodec(kind: "audio", codec: "\(LiveStreamDescription.audioCodecName(body)) after \(audioCodec?.rawValue ?? "none") (a codec change mid-stream)")
            }
            switch media.content {
            case let .configuration(record):
                if !record.isEmpty, record != audioExtradata {
                    audioExtradata = record
                    pendingAudioExtradata = record
                }
                return nil
            case let .frame(data, _, _):
                defer { pendingAudioExtradata = nil }
                return DemuxedPacket(streamIndex: audioIndex, data: Array(data), pts: tag.timestamp, dts: tag.timestamp,
                                     duration: audioFrameDuration, isKeyframe: true, newExtradata: pendingAudioExtradata)
            case .none:
                return nil
            }
        default:
            return nil
        }
    }
}

extension RelayInput: CodecParameterSource {
    func codecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>? {
        parameters[index].map { UnsafePointer($0.pointer) }
    }
}

/// Owns one `AVCodecParameters` built from a live input's sequence header (`LiveCodecStream`), for a decoder.
final class CodecParameters {
    let pointer: UnsafeMutablePointer<AVCodecParameters>

    private init?(type: AVMediaType, codec: AVCodecID, extradata: [UInt8]) {
        guard let made = avcodec_parameters_alloc() else { return nil }
        pointer = made
        pointer.pointee.codec_type = type
        pointer.pointee.codec_id = codec
        // libavcodec reads extradata with padding past its end.
        let padded = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let bytes = av_mallocz(extradata.count + padded)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        extradata.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { bytes.update(from: base, count: source.count) }
        }
        pointer.pointee.extradata = bytes
        pointer.pointee.extradata_size = Int32(extradata.count)
    }

    convenience init?(video codec: AVCodecID, extradata: [UInt8], width: Int, height: Int) {
        self.init(type: AVMEDIA_TYPE_VIDEO, codec: codec, extradata: extradata)
        pointer.pointee.width = Int32(clamping: width)
        pointer.pointee.height = Int32(clamping: height)
    }

    convenience init?(audio codec: AVCodecID, extradata: [UInt8], sampleRate: Int, channels: Int) {
        self.init(type: AVMEDIA_TYPE_AUDIO, codec: codec, extradata: extradata)
        pointer.pointee.sample_rate = Int32(clamping: sampleRate)
        av_channel_layout_default(&pointer.pointee.ch_layout, Int32(clamping: channels))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&owned)
    }
}
