import CFFmpeg
import MediaJob
import MediaSinks

/// Encode mode for one stream, run on the input thread: one decoder, whose frames feed every rendition's encode chain
/// (a ladder decodes once, as `ffmpeg -filter_complex split` does); a libav failure is named by its stage and stream.
final class StreamTranscoder<Chain: EncodeChain> {
    /// The chains, one per encoded rendition, in rendition order.
    let chains: [Chain]
    /// The order the chains take each decoded frame in (`EncodeChain.arrange`).
    private let takeOrder: [Int]
    /// Subtracted from input timestamps (microseconds) to place frames on the job's timeline.
    var timelineOffset: Int64 = 0

    let stream: StreamInfo
    let decoder: StreamDecoder
    private static var microseconds: AVRational { AVRational(num: 1, den: 1_000_000) }

    /// Opens the decoder for `stream` and one chain per rendition.
    init(stream: StreamInfo, parameters: UnsafePointer<AVCodecParameters>,
         renditions: [(rendition: Int, settings: Chain.Settings)]) throws(EncodeError) {
        self.stream = stream
        let timeBase = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
        decoder = try StreamDecoder(parameters: parameters, timeBase: timeBase, kind: Chain.kind)
        var chains: [Chain] = []
        for (rendition, settings) in renditions {
            chains.append(try Chain(rendition: rendition, stream: stream, settings: settings))
        }
        self.chains = chains
        takeOrder = Chain.arrange(chains)
    }

    /// The configuration outputs of `rendition` open with.
    func configuration(ofRendition rendition: Int) -> Chain.Configuration? {
        chains.first { $0.rendition == rendition }?.configuration
    }

    /// The longest encoder delay of the chains, microseconds: the job's timeline starts this much later so no
    /// timestamp is negative.
    var encoderDelay: Int64 { chains.map(\.encoderDelay).max() ?? 0 }

    /// Decodes one packet and encodes what it completes, in every rendition.
    func push(_ packet: DemuxedPacket) throws -> [MediaPacket] {
        try transcoding { output in try decoder.decode(packet) { frame in try take(frame, into: &output) } }
    }

    /// End of input: drains the decoder, then every chain.
    func finish() throws -> [MediaPacket] {
        try transcoding { output in
            try decoder.decode(nil) { frame in try take(frame, into: &output) }
            for index in takeOrder { try chains[index].finish(into: &output) }
        }
    }

    /// A decoded frame, with its time on the job's timeline and its duration, to every chain.
    private func take(_ frame: UnsafeMutablePointer<AVFrame>, into output: inout [MediaPacket]) throws {
        let nopts = sluice_nopts_value()
        let timeBase = decoder.timeBase
        let duration = frame.pointee.pkt_duration > 0 ? av_rescale_q(frame.pointee.pkt_duration, timeBase, Self.microseconds) : nil
        let time = frame.pointee.best_effort_timestamp == nopts ? nil
            : av_rescale_q(frame.pointee.best_effort_timestamp, timeBase, Self.microseconds).subtractingSaturating(timelineOffset)
        for index in takeOrder { try chains[index].take(frame, time: time, duration: duration, into: &output) }
    }

    private func transcoding(_ body: (inout [MediaPacket]) throws -> Void) throws -> [MediaPacket] {
        var output: [MediaPacket] = []
        do {
            try body(&output)
        } catch let error as FFmpegError {
            throw EncodeError.ffmpeg(stage: "\(Chain.kind) transcode (stream \(stream.index))", error)
        }
        return output
    }
}

/// Every audio rendition's `AudioEncodeChain`, fed by one decoder.
typealias AudioTranscoder = StreamTranscoder<AudioEncodeChain>
/// Every video rendition's `VideoEncodeChain`, fed by one decoder.
typealias VideoTranscoder = StreamTranscoder<VideoEncodeChain>

extension StreamTranscoder where Chain == VideoEncodeChain {
    /// The encoder the first rendition got (what a job with one rendition reports).
    var selection: EncoderSelection? { chains.first?.selection }
}

/// One rendition's encoder behind a `StreamTranscoder` (`AudioEncodeChain`, `VideoEncodeChain`).
protocol EncodeChain {
    associatedtype Settings
    associatedtype Configuration
    /// "audio" or "video", as failures name it.
    static var kind: String { get }
    /// Opens the rendition's encoder for frames decoded from `stream`.
    init(rendition: Int, stream: StreamInfo, settings: Settings) throws(EncodeError)
    /// The rendition its packets belong to.
    var rendition: Int { get }
    /// What outputs of this rendition open with.
    var configuration: Configuration { get }
    /// The encoder's delay (priming, reordering), microseconds.
    var encoderDelay: Int64 { get }
    /// A decoded frame at `time` (microseconds on the job's timeline; nil: unknown) lasting `duration` (nil: unknown).
    func take(_ frame: UnsafeMutablePointer<AVFrame>, time: Int64?, duration: Int64?, into output: inout [MediaPacket]) throws
    /// End of input: drains the encoder.
    func finish(into output: inout [MediaPacket]) throws
    /// Prepares the chains of one decoder to work together; returns the order they take each frame in.
    static func arrange(_ chains: [Self]) -> [Int]
}

extension EncodeChain {
    static func arrange(_ chains: [Self]) -> [Int] { Array(chains.indices) }
}
