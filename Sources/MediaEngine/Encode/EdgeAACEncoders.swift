import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// A camera's decoded G.711 made AAC on the job's event loop: each call's samples become one signed 16-bit frame, and
/// an `AudioEncodeChain` (the codec engine's, as an encode job's audio rendition) resamples it to 48 kHz and encodes it
/// in 1,024-sample blocks, timed by the samples it has counted since the run began.
final class PCMToAACEncoder: PCMAudioEncoding {
    let audioSpecificConfig: [UInt8]
    private let chain: AudioEncodeChain
    private let frame: RawFrame
    private let sampleRate: Int32
    private let channels: Int32

    /// What every encoded camera gets: 48 kHz (what platforms ask of an RTMP stream's AAC) at 64 kb/s a channel.
    static let outputSampleRate = 48_000
    static let bitrateKbpsPerChannel = 64

    init(sampleRate: Int, channels: Int) throws(EncodeError) {
        guard (1...8).contains(channels), (1...384_000).contains(sampleRate) else {
            throw .unsupportedSetting("cannot encode \(channels) channels at \(sampleRate) Hz to AAC")
        }
        if let reason = CodecLibraries.load() { throw .unsupportedSetting(MediaJobError.codecLibraries(reason: reason).description) }
        LibraryLog.limitToErrors()
        var settings = AudioEncodeSettings()
        settings.sampleRate = Self.outputSampleRate
        settings.bitrateKbps = Self.bitrateKbpsPerChannel * min(channels, 2)
        let stream = StreamInfo(index: 0, kind: .audio, codecName: "pcm_s16le", extradata: [], timeBaseNumerator: 1,
                                timeBaseDenominator: Int32(sampleRate), width: 0, height: 0, sampleRate: sampleRate, channels: channels,
                                averageFrameRate: nil, isAttachedPicture: false)
        chain = try AudioEncodeChain(rendition: 0, stream: stream, settings: settings)
        chain.dropsBeforeZero = true
        do { frame = try RawFrame() } catch { throw .ffmpeg(stage: "allocating the PCM frame", error) }
        self.sampleRate = Int32(sampleRate)
        self.channels = Int32(channels)
        audioSpecificConfig = chain.audioSpecificConfig.bytes
    }

    func encode(_ samples: [Int16], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])] {
        let count = samples.count / Int(channels)
        guard count > 0 else { return [] }
        let pointer = frame.pointer
        av_frame_unref(pointer)
        pointer.pointee.format = AV_SAMPLE_FMT_S16.rawValue
        pointer.pointee.sample_rate = sampleRate
        pointer.pointee.nb_samples = Int32(count)
        av_channel_layout_default(&pointer.pointee.ch_layout, channels)
        do {
            try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
        } catch {
            throw .ffmpeg(stage: "allocating the PCM frame", error)
        }
        guard let data = pointer.pointee.data.0 else {
            throw .ffmpeg(stage: "allocating the PCM frame", FFmpegError(function: "av_frame_get_buffer", code: sluice_averror(ENOMEM)))
        }
        samples.withUnsafeBytes { bytes in
            if let base = bytes.bindMemory(to: UInt8.self).baseAddress { data.update(from: base, count: count * Int(channels) * 2) }
        }
        var packets: [MediaPacket] = []
        try asEncodeError(stage: "encoding AAC") { try chain.take(pointer, time: milliseconds * 1000, into: &packets) }
        return packets.map { ($0.dts / 1000, $0.data) }
    }
}

/// A WHIP publisher's Opus made AAC on the job's event loop: libavcodec's Opus decoder (48 kHz, planar float) feeds
/// an `AudioEncodeChain` as `PCMToAACEncoder`'s samples do; each decoded frame is placed at its packet's time.
final class OpusToAACTranscoder: OpusAudioTranscoding {
    let audioSpecificConfig: [UInt8]
    private let decoder: CodecContext
    private let packet: CodedPacket
    private let decoded: RawFrame
    private let chain: AudioEncodeChain
    /// Packets the decoder refused (a damaged frame): skipped, as a player would.
    private(set) var corruptPackets = 0

    init(channels: Int) throws(EncodeError) {
        guard (1...2).contains(channels) else { throw .unsupportedSetting("cannot decode Opus with \(channels) channels (WebRTC's Opus is 1 or 2)") }
        if let reason = CodecLibraries.load() { throw .unsupportedSetting(MediaJobError.codecLibraries(reason: reason).description) }
        LibraryLog.limitToErrors()
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_OPUS) else { throw .noDecoder(kind: "audio", codec: "opus") }
        do {
            decoder = try CodecContext(codec: codec)
            packet = try CodedPacket()
            decoded = try RawFrame()
            decoder.pointer.pointee.sample_rate = Int32(PCMToAACEncoder.outputSampleRate)
            av_channel_layout_default(&decoder.pointer.pointee.ch_layout, Int32(channels))
            decoder.pointer.pointee.pkt_timebase = AVRational(num: 1, den: 1000)
            _ = try decoder.open()
        } catch {
            throw .ffmpeg(stage: "opening the Opus decoder", error)
        }
        var settings = AudioEncodeSettings()
        settings.sampleRate = PCMToAACEncoder.outputSampleRate
        settings.bitrateKbps = PCMToAACEncoder.bitrateKbpsPerChannel * channels
        let stream = StreamInfo(index: 0, kind: .audio, codecName: "opus", extradata: [], timeBaseNumerator: 1, timeBaseDenominator: 1000,
                                width: 0, height: 0, sampleRate: PCMToAACEncoder.outputSampleRate, channels: channels,
                                averageFrameRate: nil, isAttachedPicture: false)
        chain = try AudioEncodeChain(rendition: 0, stream: stream, settings: settings)
        chain.dropsBeforeZero = true
        audioSpecificConfig = chain.audioSpecificConfig.bytes
    }

    func transcode(_ opus: [UInt8], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])] {
        guard !opus.isEmpty else { return [] }
        var packets: [MediaPacket] = []
        try asEncodeError(stage: "transcoding Opus to AAC") {
            corruptPackets += try decoder.decodeSkippingDamage(opus, milliseconds: milliseconds, packet: packet, frame: decoded) { frame in
                try chain.take(frame, time: milliseconds * 1000, into: &packets)
            }
        }
        return packets.map { ($0.dts / 1000, $0.data) }
    }
}

/// Runs `body` with its errors as `EncodeError`: an encoder's own passed on, libav's named by `stage`, any other
/// described.
private func asEncodeError(stage: String, _ body: () throws -> Void) throws(EncodeError) {
    do {
        try body()
    } catch let error as EncodeError {
        throw error
    } catch let error as FFmpegError {
        throw .ffmpeg(stage: stage, error)
    } catch {
        throw .unsupportedSetting("\(stage) failed: \(error)")
    }
}

extension CodecContext {
    /// One packet of a live edge's audio decoded, `body` given each frame. A packet or frame the decoder calls invalid
    /// data is skipped, as a player would skip it; the result counts them.
    func decodeSkippingDamage(_ bytes: [UInt8], milliseconds: Int64, packet: CodedPacket, frame: RawFrame,
                              _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws -> Int {
        let pointer = packet.pointer
        av_packet_unref(pointer)
        try check(av_new_packet(pointer, Int32(clamping: bytes.count)), "av_new_packet")
        if let destination = pointer.pointee.data {
            bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { destination.update(from: base, count: bytes.count) } }
        }
        pointer.pointee.pts = milliseconds
        pointer.pointee.dts = milliseconds
        let status = avcodec_send_packet(self.pointer, pointer)
        av_packet_unref(pointer)
        if status == sluice_averror_invaliddata() { return 1 }
        try check(status, "avcodec_send_packet")
        var damaged = 0
        while true {
            let received = avcodec_receive_frame(self.pointer, frame.pointer)
            if received == sluice_averror_eagain() || received == sluice_averror_eof() { break }
            if received == sluice_averror_invaliddata() {
                damaged += 1
                continue
            }
            try check(received, "avcodec_receive_frame")
            defer { av_frame_unref(frame.pointer) }
            try body(frame.pointer)
        }
        return damaged
    }
}

/// The codec engine's `EdgeAudioEncoderMaking`, which `JobPlan` hands to every live job.
public struct EdgeAACEncoderMaker: EdgeAudioEncoderMaking {
    public init() {}

    public func makeEncoder(sampleRate: Int, channels: Int) throws(EncodeError) -> any PCMAudioEncoding {
        try PCMToAACEncoder(sampleRate: sampleRate, channels: channels)
    }

    public func makeOpusTranscoder(channels: Int) throws(EncodeError) -> any OpusAudioTranscoding {
        try OpusToAACTranscoder(channels: channels)
    }

    public func makeAACToOpus(audioSpecificConfig: [UInt8]) throws(EncodeError) -> any AACToOpusTranscoding {
        try AACToOpusTranscoder(audioSpecificConfig: audioSpecificConfig)
    }
}
