import CFFmpeg
import MediaJob

/// Owns FFmpeg's native `aac` encoder (AAC-LC, planar float in), with its AudioSpecificConfig as extradata.
final class AACEncoder {
    private let context: CodecContext
    private let packet: CodedPacket
    /// The block of `frameSize` samples on its way in.
    private let block: RawFrame

    static let name = "aac"
    /// Used when the input's rate is one AAC cannot carry and the job names none.
    static let fallbackSampleRate: Int32 = 48000

    init(settings: AudioEncodeSettings, inputSampleRate: Int, inputChannels: Int) throws(EncodeError) {
        guard let codec = avcodec_find_encoder_by_name(AACEncoder.name) else { throw .noEncoder(name: AACEncoder.name) }
        let rates = AACEncoder.supportedRates(codec)
        let rate: Int32
        if let requested = settings.sampleRate {
            guard rates.isEmpty || rates.contains(Int32(requested)) else {
                throw .unsupportedSetting("AAC cannot encode at \(requested) Hz (rates: \(rates.map(String.init).joined(separator: ", ")))")
            }
            rate = Int32(requested)
        } else {
            rate = rates.isEmpty || rates.contains(Int32(inputSampleRate)) ? Int32(inputSampleRate) : AACEncoder.fallbackSampleRate
        }
        let channels = Int32(settings.channels ?? max(inputChannels, 1))
        do {
            context = try CodecContext(codec: codec)
            packet = try CodedPacket()
            block = try RawFrame()
        } catch {
            throw .ffmpeg(stage: "allocating the AAC encoder", error)
        }
        let pointer = context.pointer
        pointer.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        pointer.pointee.sample_rate = rate
        pointer.pointee.time_base = AVRational(num: 1, den: rate)
        pointer.pointee.bit_rate = Int64(settings.bitrateKbps) * 1000
        pointer.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        do {
            try AACEncoder.chooseLayout(codec, channels: channels, into: &pointer.pointee.ch_layout)
        } catch {
            throw .ffmpeg(stage: "choosing the AAC channel layout", error)
        }
        do { try context.open() } catch { throw .ffmpeg(stage: "opening the AAC encoder", error) }
        let frame = block.pointer
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = rate
        frame.pointee.nb_samples = pointer.pointee.frame_size
        do {
            try check(av_channel_layout_copy(&frame.pointee.ch_layout, &pointer.pointee.ch_layout), "av_channel_layout_copy")
            try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        } catch {
            throw .ffmpeg(stage: "allocating AAC frames", error)
        }
    }

    private static func supportedRates(_ codec: UnsafePointer<AVCodec>) -> [Int32] {
        guard var rate = codec.pointee.supported_samplerates else { return [] }
        var rates: [Int32] = []
        while rate.pointee != 0 {
            rates.append(rate.pointee)
            rate += 1
        }
        return rates
    }

    /// The encoder's own layout for `channels` (its list has 5.1 as 5.1(back)), else the default one.
    private static func chooseLayout(_ codec: UnsafePointer<AVCodec>, channels: Int32, into layout: inout AVChannelLayout) throws(FFmpegError) {
        if var candidate = codec.pointee.ch_layouts {
            while candidate.pointee.nb_channels != 0 {
                if candidate.pointee.nb_channels == channels {
                    try check(av_channel_layout_copy(&layout, candidate), "av_channel_layout_copy")
                    return
                }
                candidate += 1
            }
        }
        av_channel_layout_default(&layout, channels)
    }

    var sampleRate: Int32 { context.pointer.pointee.sample_rate }
    var channels: Int32 { context.pointer.pointee.ch_layout.nb_channels }
    /// The layout as the encoder holds it (a shallow copy: read it while the encoder lives).
    var channelLayout: AVChannelLayout { context.pointer.pointee.ch_layout }
    /// Samples per encoded frame (1024 for AAC-LC).
    var frameSize: Int { Int(context.pointer.pointee.frame_size) }
    /// Priming samples the encoder puts before the first input sample.
    var initialPadding: Int { Int(context.pointer.pointee.initial_padding) }
    var timeBase: AVRational { context.pointer.pointee.time_base }
    /// The AudioSpecificConfig.
    var extradata: [UInt8] { context.extradata }

    /// Encodes `samples` samples taken from `fifo` (at most `frameSize`; fewer only for the last block),
    /// stamped `pts` (in samples), and hands each packet to `body`.
    func encode(from fifo: AudioSampleFIFO, samples: Int, pts: Int64, _ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let frame = block.pointer
        // The encoder may still reference the previous block.
        try check(av_frame_make_writable(frame), "av_frame_make_writable")
        frame.pointee.nb_samples = Int32(samples)
        try fifo.read(into: block, samples: samples)
        frame.pointee.pts = pts
        try check(avcodec_send_frame(context.pointer, frame), "avcodec_send_frame")
        frame.pointee.nb_samples = Int32(frameSize)
        try receive(body)
    }

    /// End of stream: drains the encoder.
    func drain(_ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let status = avcodec_send_frame(context.pointer, nil)
        if status == sluice_averror_eof() { return }
        try check(status, "avcodec_send_frame")
        try receive(body)
    }

    private func receive(_ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        while true {
            let status = avcodec_receive_packet(context.pointer, packet.pointer)
            if status == sluice_averror_eagain() || status == sluice_averror_eof() { return }
            try check(status, "avcodec_receive_packet")
            defer { av_packet_unref(packet.pointer) }
            try body(packet.pointer)
        }
    }
}
