import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// A job's AAC made Opus for its WebRTC viewers, on the job's event loop: libavcodec's AAC decoder (with the stream's
/// AudioSpecificConfig), libswresample to 48 kHz interleaved float, and libopus in 20 ms frames (960 samples, what
/// every browser's Opus decoder expects of RFC 7587's default `ptime`), each frame timed by the samples counted since
/// the first AAC frame placed the run on the job's timeline.
final class AACToOpusTranscoder: AACToOpusTranscoding {
    let channels: Int
    private let decoder: CodecContext
    private let encoder: CodecContext
    private let packet: CodedPacket
    private let decoded: RawFrame
    private let converted: RawFrame
    private let block: RawFrame
    private let fifo: AudioSampleFIFO
    private var resampler: AudioResampler?
    /// The next block's first sample, in 48 kHz samples on the job's timeline; set by the first decoded frame.
    private var nextSample: Int64?
    private(set) var corruptFrames = 0

    static let sampleRate: Int32 = 48_000
    /// 20 ms at 48 kHz.
    static let frameSize = 960
    /// What a viewer gets a channel: speech and music both clear at 48 kb/s in Opus.
    static let bitrateKbpsPerChannel = 48

    init(audioSpecificConfig: [UInt8]) throws(EncodeError) {
        let config: AudioSpecificConfig
        do { config = try AudioSpecificConfig(parsing: audioSpecificConfig) } catch {
            throw .unsupportedSetting("the AAC stream's AudioSpecificConfig does not read: \(error)")
        }
        // Opus in WebRTC is stereo at most (RFC 7587 §7); more channels are mixed down to two.
        let channels = min(max(Int(config.channelConfiguration), 1), 2)
        self.channels = channels
        if let reason = CodecLibraries.load() { throw .unsupportedSetting(MediaJobError.codecLibraries(reason: reason).description) }
        LibraryLog.limitToErrors()
        guard let aac = avcodec_find_decoder(AV_CODEC_ID_AAC) else { throw .noDecoder(kind: "audio", codec: "aac") }
        guard let opus = avcodec_find_encoder_by_name("libopus") else { throw .noEncoder(name: "libopus") }
        do throws(FFmpegError) {
            decoder = try CodecContext(codec: aac)
            let padded = Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let bytes = av_mallocz(audioSpecificConfig.count + padded)?.assumingMemoryBound(to: UInt8.self) else {
                throw FFmpegError(function: "av_mallocz", code: sluice_averror(ENOMEM))
            }
            audioSpecificConfig.withUnsafeBufferPointer { if let base = $0.baseAddress { bytes.update(from: base, count: $0.count) } }
            decoder.pointer.pointee.extradata = bytes
            decoder.pointer.pointee.extradata_size = Int32(audioSpecificConfig.count)
            decoder.pointer.pointee.pkt_timebase = AVRational(num: 1, den: 1000)
            try decoder.open()
        } catch {
            throw .ffmpeg(stage: "opening the AAC decoder", error)
        }
        do {
            encoder = try CodecContext(codec: opus)
            let pointer = encoder.pointer
            pointer.pointee.sample_fmt = AV_SAMPLE_FMT_FLT
            pointer.pointee.sample_rate = Self.sampleRate
            pointer.pointee.time_base = AVRational(num: 1, den: Self.sampleRate)
            pointer.pointee.bit_rate = Int64(Self.bitrateKbpsPerChannel * channels) * 1000
            av_channel_layout_default(&pointer.pointee.ch_layout, Int32(channels))
            try encoder.open(options: ["application": "audio", "frame_duration": "20"])
            packet = try CodedPacket()
            decoded = try RawFrame()
            converted = try RawFrame()
            block = try RawFrame()
            fifo = try AudioSampleFIFO(format: AV_SAMPLE_FMT_FLT, channels: Int32(channels))
            let frame = block.pointer
            frame.pointee.format = AV_SAMPLE_FMT_FLT.rawValue
            frame.pointee.sample_rate = Self.sampleRate
            frame.pointee.nb_samples = Int32(Self.frameSize)
            try check(av_channel_layout_copy(&frame.pointee.ch_layout, &pointer.pointee.ch_layout), "av_channel_layout_copy")
            try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        } catch {
            throw .ffmpeg(stage: "opening the Opus encoder", error)
        }
    }

    func transcode(_ aac: [UInt8], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])] {
        guard !aac.isEmpty else { return [] }
        var out: [(milliseconds: Int64, frame: [UInt8])] = []
        do {
            corruptFrames += try decoder.decodeSkippingDamage(aac, milliseconds: milliseconds, packet: packet, frame: decoded) { frame in
                if nextSample == nil { nextSample = milliseconds * Int64(Self.sampleRate) / 1000 }
                if let current = resampler, !current.accepts(frame) { resampler = nil }
                let resampler = try resampler
                    ?? AudioResampler(from: frame, to: encoder.pointer.pointee.ch_layout, format: AV_SAMPLE_FMT_FLT, rate: Self.sampleRate)
                self.resampler = resampler
                try fifo.write(converted, samples: try resampler.convert(frame, into: converted))
                try encodeBlocks(into: &out)
            }
        } catch let error as FFmpegError {
            throw .ffmpeg(stage: "transcoding AAC to Opus", error)
        } catch {
            throw .unsupportedSetting("transcoding AAC to Opus failed: \(error)")
        }
        return out
    }

    /// Every whole 20 ms block waiting in the FIFO, encoded.
    private func encodeBlocks(into out: inout [(milliseconds: Int64, frame: [UInt8])]) throws(FFmpegError) {
        while fifo.count >= Self.frameSize {
            let frame = block.pointer
            try check(av_frame_make_writable(frame), "av_frame_make_writable")
            try fifo.read(into: block, samples: Self.frameSize)
            let pts = nextSample ?? 0
            frame.pointee.pts = pts
            nextSample = pts + Int64(Self.frameSize)
            try check(avcodec_send_frame(encoder.pointer, frame), "avcodec_send_frame")
            while true {
                let status = avcodec_receive_packet(encoder.pointer, packet.pointer)
                if status == sluice_averror_eagain() || status == sluice_averror_eof() { break }
                try check(status, "avcodec_receive_packet")
                defer { av_packet_unref(packet.pointer) }
                guard let data = packet.pointer.pointee.data, packet.pointer.pointee.size > 0 else { continue }
                let samples = packet.pointer.pointee.pts == sluice_nopts_value() ? pts : packet.pointer.pointee.pts
                out.append((samples * 1000 / Int64(Self.sampleRate), Array(UnsafeBufferPointer(start: data, count: Int(packet.pointer.pointee.size)))))
            }
        }
    }
}
