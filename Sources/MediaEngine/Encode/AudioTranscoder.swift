import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// Encode mode for one audio stream, run on the input thread: one decoder, whose frames feed every audio
/// rendition's `AudioEncodeChain`.
final class AudioTranscoder: StreamTranscoder {
    /// The chains, one per encoded rendition, in rendition order.
    let chains: [AudioEncodeChain]
    /// Subtracted from input timestamps (microseconds) to place samples on the job's timeline.
    var timelineOffset: Int64 = 0

    let stream: StreamInfo
    let decoder: StreamDecoder
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    init(stream: StreamInfo, parameters: UnsafePointer<AVCodecParameters>,
         renditions: [(rendition: Int, settings: AudioEncodeSettings)]) throws(EncodeError) {
        self.stream = stream
        let timeBase = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
        decoder = try StreamDecoder(parameters: parameters, timeBase: timeBase, kind: "audio")
        var chains: [AudioEncodeChain] = []
        for (rendition, settings) in renditions {
            chains.append(try AudioEncodeChain(rendition: rendition, stream: stream, settings: settings))
        }
        self.chains = chains
    }

    /// The configuration outputs of `rendition` open with.
    func configuration(ofRendition rendition: Int) -> AudioConfiguration? {
        chains.first { $0.rendition == rendition }?.configuration
    }

    /// The longest priming of the chains, microseconds: the job's timeline starts this much later.
    var encoderDelay: Int64 { chains.map(\.encoderDelay).max() ?? 0 }

    static let kind = "audio"

    func finishChains(into output: inout [MediaPacket]) throws {
        for chain in chains { try chain.finish(into: &output) }
    }

    func take(_ frame: UnsafeMutablePointer<AVFrame>, into output: inout [MediaPacket]) throws {
        let nopts = sluice_nopts_value()
        let time = frame.pointee.best_effort_timestamp == nopts ? nil
            : av_rescale_q(frame.pointee.best_effort_timestamp, decoder.timeBase, AudioTranscoder.microseconds).subtractingSaturating(timelineOffset)
        for chain in chains { try chain.take(frame, time: time, into: &output) }
    }
}
