import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// One audio rendition of encode mode: libswresample (rate, layout, `fltp`) → `AVAudioFifo` → AAC in
/// `frame_size` blocks, PTS from a running sample count → raw AAC `MediaPacket`s. Fed decoded frames by
/// `AudioTranscoder`, which decodes once for every chain.
final class AudioEncodeChain {
    /// The rendition its packets belong to (`RenditionPlan.audio`).
    let rendition: Int
    /// What the outputs are opened with: the encoder's AudioSpecificConfig, rate and channels.
    let configuration: AudioConfiguration
    /// The AAC the encoder writes (what `configuration` carries).
    let audioSpecificConfig: AudioSpecificConfig

    private let encoder: AACEncoder
    private var resampler: AudioResampler?
    private let fifo: AudioSampleFIFO
    private let converted: RawFrame
    /// The next block's first sample on the job's timeline, in output samples; set by the first decoded frame.
    private var nextSample: Int64?
    private var lastDTS: Int64?
    /// A live edge's chain (a camera's G.711, a WHIP publisher's Opus): its first packet, the encoder's priming, would
    /// fall before the run's first sample, and before the job's start when that is where the run begins. It is
    /// dropped there rather than squeezed to 0 and the next frame to 1 ms, two frames 20 ms apart in time a player
    /// would overlap; the decoder starts at the run's first frame.
    var dropsBeforeZero = false
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    init(rendition: Int, stream: StreamInfo, settings: AudioEncodeSettings) throws(EncodeError) {
        self.rendition = rendition
        encoder = try AACEncoder(settings: settings, inputSampleRate: stream.sampleRate, inputChannels: stream.channels)
        do {
            fifo = try AudioSampleFIFO(format: AV_SAMPLE_FMT_FLTP, channels: encoder.channels)
            converted = try RawFrame()
        } catch {
            throw .ffmpeg(stage: "allocating the audio FIFO", error)
        }
        let config: AudioSpecificConfig
        do {
            config = try AudioSpecificConfig(parsing: encoder.extradata)
        } catch {
            throw .unsupportedSetting("the AAC encoder wrote an AudioSpecificConfig MediaFormats cannot read: \(error)")
        }
        audioSpecificConfig = config
        configuration = AudioConfiguration(audioSpecificConfig: config, sampleRate: Int(encoder.sampleRate), channels: Int(encoder.channels),
                                           priming: max(0, encoder.initialPadding))
    }

    /// The encoder's priming in microseconds: its first packet starts this much before the first sample.
    var encoderDelay: Int64 {
        av_rescale_q(Int64(encoder.initialPadding), encoder.timeBase, AudioEncodeChain.microseconds)
    }

    /// A decoded frame starting at `time` (microseconds on the job's timeline; nil: unknown, taken as 0).
    func take(_ frame: UnsafeMutablePointer<AVFrame>, time: Int64?, into output: inout [MediaPacket]) throws {
        if nextSample == nil {
            nextSample = av_rescale_q(time ?? 0, AudioEncodeChain.microseconds, encoder.timeBase)
        }
        if let current = resampler, !current.accepts(frame) {
            // The decoded format changed: what the old resampler still holds is flushed first.
            try drainResampler(current)
            resampler = nil
        }
        let resampler = try resampler ?? AudioResampler(from: frame, to: encoder.channelLayout, format: AV_SAMPLE_FMT_FLTP, rate: encoder.sampleRate)
        self.resampler = resampler
        let count = try resampler.convert(frame, into: converted)
        try fifo.write(converted, samples: count)
        try encodeBlocks(final: false, into: &output)
    }

    /// End of input: drains the resampler, encodes the last short block, drains the encoder.
    func finish(into output: inout [MediaPacket]) throws {
        if let resampler { try drainResampler(resampler) }
        try encodeBlocks(final: true, into: &output)
        try encoder.drain { packet in emit(packet, into: &output) }
    }

    private func drainResampler(_ resampler: AudioResampler) throws {
        while true {
            let count = try resampler.convert(nil, into: converted)
            guard count > 0 else { break }
            try fifo.write(converted, samples: count)
        }
    }

    /// Encodes every whole block waiting in the FIFO; `final` also encodes the short remainder.
    private func encodeBlocks(final: Bool, into output: inout [MediaPacket]) throws {
        let frameSize = encoder.frameSize
        while fifo.count >= frameSize || (final && fifo.count > 0) {
            let samples = min(fifo.count, frameSize)
            let pts = nextSample ?? 0
            try encoder.encode(from: fifo, samples: samples, pts: pts) { packet in emit(packet, into: &output) }
            nextSample = pts + Int64(samples)
        }
    }

    private func emit(_ packet: UnsafeMutablePointer<AVPacket>, into output: inout [MediaPacket]) {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        let nopts = sluice_nopts_value()
        let raw = packet.pointee.pts != nopts ? packet.pointee.pts : packet.pointee.dts
        var dts = raw == nopts ? (lastDTS ?? 0) + 1 : av_rescale_q(raw, encoder.timeBase, AudioEncodeChain.microseconds)
        if dropsBeforeZero, dts < 0 { return }
        // The timeline was shifted by the priming; this keeps timestamps ≥ 0 and increasing regardless.
        dts = max(dts, 0)
        if let last = lastDTS, dts <= last { dts = last + 1 }
        lastDTS = dts
        var media = MediaPacket(kind: .audio, data: Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))),
                                pts: dts, dts: dts, isKeyframe: true)
        media.rendition = rendition
        output.append(media)
    }
}

extension AudioEncodeChain: EncodeChain {
    static var kind: String { "audio" }

    /// An audio frame's length is its sample count: the decoder's duration is not needed.
    func take(_ frame: UnsafeMutablePointer<AVFrame>, time: Int64?, duration _: Int64?, into output: inout [MediaPacket]) throws {
        try take(frame, time: time, into: &output)
    }
}
