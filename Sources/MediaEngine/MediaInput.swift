import CFFmpeg
import MediaJob

/// One elementary stream of an opened input, described in Swift terms.
public struct StreamInfo: Sendable, Equatable {
    public enum Kind: String, Sendable { case video, audio, other }

    public let index: Int
    public let kind: Kind
    /// FFmpeg's codec name (`h264`, `aac`, `mpeg2video`, …).
    public let codecName: String
    /// Codec configuration as the container carries it: avcC or Annex B for H.264, an AudioSpecificConfig for AAC.
    public let extradata: [UInt8]
    public let timeBaseNumerator: Int32
    public let timeBaseDenominator: Int32
    public let width: Int
    public let height: Int
    public let sampleRate: Int
    public let channels: Int
    /// Average frame rate reported by the demuxer, when it knows one.
    public let averageFrameRate: Double?
    /// Cover art stored as a one-frame video stream: never the video to copy.
    public let isAttachedPicture: Bool
    /// Audio: `AVCodecParameters.initial_padding`, the encoder's priming in samples where the demuxer knows it.
    public var initialPadding = 0
}

/// A packet as demuxed, its timestamps in its stream's time base (`nil` where the container has none).
public struct DemuxedPacket: Sendable {
    public var streamIndex: Int
    public var data: [UInt8]
    public var pts: Int64?
    public var dts: Int64?
    public var duration: Int64
    public var isKeyframe: Bool
    /// Codec configuration that changed mid-stream (`AV_PKT_DATA_NEW_EXTRADATA`).
    public var newExtradata: [UInt8]?
    /// `AV_PKT_DATA_SKIP_SAMPLES` as the demuxer set it (MP4 priming to trim), passed on to an audio decoder.
    public var skipSamples: [UInt8]? = nil
    /// Monotonic nanoseconds when `av_read_frame` returned it.
    public var receivedAt: UInt64 = 0
}

/// Owns one `AVFormatContext` opened for reading. Used by one thread at a time (the input thread);
/// `@unchecked Sendable` so it can be created on one thread and handed to the thread that reads it.
public final class MediaInput: @unchecked Sendable {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let interrupter: Interrupter
    private let stallTimeout: Double?

    public let streams: [StreamInfo]
    /// The demuxer's short name (`mov,mp4,m4a,3gp,3g2,mj2`, `flv`, `mpegts`, `h264`, `aac`, …).
    public let formatName: String
    public let durationSeconds: Double?
    /// The format may carry timestamp discontinuities (libavformat's `AVFMT_TS_DISCONT`: MPEG-TS, …), so a
    /// forward jump is a new clock rather than a gap.
    public let timestampsMayJump: Bool
    /// Bytes read from the input so far.
    public var bytesRead: Int64 {
        guard let pb = context?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// Opens `url` and reads enough to describe its streams.
    /// - Parameters:
    ///   - url: a file path, `file:` URL or network URL that libavformat opens.
    ///   - options: demuxer/protocol options (`framerate`, `rw_timeout`, `listen`, `protocol_whitelist`, …).
    ///   - interrupter: cancels blocking calls; also carries the open/stall deadline.
    ///   - timeout: seconds the open and any later stall in reading may take (`nil`: no limit).
    public init(url: String, options: [String: String] = [:], interrupter: Interrupter, timeout: Double? = nil) throws {
        guard let packet = av_packet_alloc() else { throw FFmpegError(function: "av_packet_alloc", code: sluice_averror(ENOMEM)) }
        self.packet = packet
        self.interrupter = interrupter
        self.stallTimeout = timeout
        var context = avformat_alloc_context()
        guard context != nil else {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
            throw FFmpegError(function: "avformat_alloc_context", code: sluice_averror(ENOMEM))
        }
        context?.pointee.interrupt_callback = interrupter.callback
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        interrupter.arm(seconds: timeout)
        defer { interrupter.arm(seconds: nil) }
        do {
            // On failure avformat_open_input frees the context and sets it to nil.
            try check(avformat_open_input(&context, url, nil, &dictionary), "avformat_open_input")
            try check(avformat_find_stream_info(context, nil), "avformat_find_stream_info")
        } catch {
            avformat_close_input(&context)
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
            throw error
        }
        guard let opened = context else {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
            throw FFmpegError(function: "avformat_open_input", code: sluice_averror(EINVAL))
        }
        self.context = opened
        self.formatName = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        self.timestampsMayJump = opened.pointee.iformat.map { $0.pointee.flags & AVFMT_TS_DISCONT != 0 } ?? false
        let duration = opened.pointee.duration
        self.durationSeconds = duration == sluice_nopts_value() || duration <= 0 ? nil : Double(duration) / Double(AV_TIME_BASE)
        self.streams = (0..<Int(opened.pointee.nb_streams)).compactMap { index in
            guard let stream = opened.pointee.streams[index] else { return nil }
            return MediaInput.describe(stream: stream, index: index)
        }
    }

    deinit {
        avformat_close_input(&context)
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owned)
    }

    private static func describe(stream: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let kind: StreamInfo.Kind
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        default: kind = .other
        }
        var extradata: [UInt8] = []
        if let bytes = parameters.extradata, parameters.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.extradata_size)))
        }
        let rate = stream.pointee.avg_frame_rate
        return StreamInfo(
            index: index,
            kind: kind,
            codecName: String(cString: avcodec_get_name(parameters.codec_id)),
            extradata: extradata,
            timeBaseNumerator: stream.pointee.time_base.num,
            timeBaseDenominator: stream.pointee.time_base.den,
            width: Int(parameters.width),
            height: Int(parameters.height),
            sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            averageFrameRate: rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil,
            isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
            initialPadding: Int(parameters.initial_padding)
        )
    }

    /// The demuxer's codec parameters for stream `index`, which a decoder copies when it opens; valid while
    /// this input lives. Internal: C types stay inside MediaEngine.
    func codecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>? {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index] else { return nil }
        return UnsafePointer(stream.pointee.codecpar)
    }

    /// The next packet, or `nil` at the end of the input. A stall longer than the timeout throws.
    public func readPacket() throws -> DemuxedPacket? {
        guard let context else { return nil }
        interrupter.arm(seconds: stallTimeout)
        defer { interrupter.arm(seconds: nil) }
        let status = av_read_frame(context, packet)
        if status == sluice_averror_eof() { return nil }
        try check(status, "av_read_frame")
        defer { av_packet_unref(packet) }
        let p = packet.pointee
        let nopts = sluice_nopts_value()
        var data: [UInt8] = []
        if let bytes = p.data, p.size > 0 {
            data = Array(UnsafeBufferPointer(start: bytes, count: Int(p.size)))
        }
        var newExtradata: [UInt8]? = nil
        var sideSize: Int = 0
        if let side = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &sideSize), sideSize > 0 {
            newExtradata = Array(UnsafeBufferPointer(start: side, count: sideSize))
        }
        var skipSamples: [UInt8]? = nil
        if let side = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &sideSize), sideSize > 0 {
            skipSamples = Array(UnsafeBufferPointer(start: side, count: sideSize))
        }
        return DemuxedPacket(
            streamIndex: Int(p.stream_index),
            data: data,
            pts: p.pts == nopts ? nil : p.pts,
            dts: p.dts == nopts ? nil : p.dts,
            duration: p.duration,
            isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0,
            newExtradata: newExtradata,
            skipSamples: skipSamples,
            receivedAt: Interrupter.now()
        )
    }
}
