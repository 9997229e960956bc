import CFFmpeg
import MediaJob

// Owners of the libavcodec/libavutil objects every encode stage uses (docs/ARCHITECTURE.md §3): each holds exactly one
// C object and frees it in `deinit`, so a setup that throws halfway releases whatever it already made.
// None is Sendable: they live and die on the input thread that runs the session.

/// Owns one `AVCodecContext` (a decoder's or an encoder's).
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>

    init(codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(function: "avcodec_alloc_context3", code: sluice_averror(ENOMEM))
        }
        self.pointer = context
        self.codec = codec
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }

    /// Opens the codec with `options` (private options such as `preset`).
    /// - Returns: the names of options the codec did not take (a misspelt or foreign option).
    @discardableResult
    func open(options: [String: String] = [:]) throws(FFmpegError) -> [String] {
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        try check(avcodec_open2(pointer, codec, &dictionary), "avcodec_open2")
        var unused: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            unused.append(String(cString: next.pointee.key))
            entry = next
        }
        return unused
    }

    /// The codec configuration an encoder produced (`AV_CODEC_FLAG_GLOBAL_HEADER`), empty when it made none.
    var extradata: [UInt8] {
        guard let bytes = pointer.pointee.extradata, pointer.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(pointer.pointee.extradata_size)))
    }
}

/// Owns one `AVFrame`: a decoded picture or block of samples, or one on its way to an encoder.
final class RawFrame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else { throw FFmpegError(function: "av_frame_alloc", code: sluice_averror(ENOMEM)) }
        pointer = frame
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }

    /// True while the frame holds data (a reference to buffers).
    var hasData: Bool { pointer.pointee.buf.0 != nil }
}

/// Owns one `AVPacket`: a demuxed packet on its way to a decoder, or one an encoder produced.
final class CodedPacket {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else { throw FFmpegError(function: "av_packet_alloc", code: sluice_averror(ENOMEM)) }
        pointer = packet
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }

    /// Refills the packet from a demuxed one (timestamps in its stream's time base).
    func load(_ demuxed: DemuxedPacket) throws(FFmpegError) {
        av_packet_unref(pointer)
        try check(av_new_packet(pointer, Int32(clamping: demuxed.data.count)), "av_new_packet")
        if let destination = pointer.pointee.data, !demuxed.data.isEmpty {
            demuxed.data.withUnsafeBytes { source in
                if let base = source.baseAddress { destination.update(from: base.assumingMemoryBound(to: UInt8.self), count: source.count) }
            }
        }
        let nopts = sluice_nopts_value()
        pointer.pointee.pts = demuxed.pts ?? nopts
        pointer.pointee.dts = demuxed.dts ?? nopts
        pointer.pointee.duration = demuxed.duration
        pointer.pointee.flags = demuxed.isKeyframe ? AV_PKT_FLAG_KEY : 0
        if let skip = demuxed.skipSamples, !skip.isEmpty {
            // Priming and padding to trim (MP4 edit lists): the decoder drops these samples itself.
            guard let side = av_packet_new_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, skip.count) else {
                throw FFmpegError(function: "av_packet_new_side_data", code: sluice_averror(ENOMEM))
            }
            skip.withUnsafeBufferPointer { if let base = $0.baseAddress { side.update(from: base, count: skip.count) } }
        }
    }
}
