import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// Encode mode for one video stream, run on the input thread: one decoder, whose pictures feed every video
/// rendition's `VideoEncodeChain` (a ladder decodes once, as `ffmpeg -filter_complex split` does).
final class VideoTranscoder: StreamTranscoder {
    /// The chains, one per encoded rendition, in rendition order.
    let chains: [VideoEncodeChain]
    /// Subtracted from input timestamps (microseconds) to place frames on the job's timeline.
    var timelineOffset: Int64 = 0

    let stream: StreamInfo
    let decoder: StreamDecoder
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    /// Opens the decoder for `stream` and one encoder per rendition.
    init(stream: StreamInfo, parameters: UnsafePointer<AVCodecParameters>,
         renditions: [(rendition: Int, settings: VideoEncodeSettings)]) throws(EncodeError) {
        self.stream = stream
        let timeBase = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
        decoder = try StreamDecoder(parameters: parameters, timeBase: timeBase, kind: "video")
        var chains: [VideoEncodeChain] = []
        for (rendition, settings) in renditions {
            chains.append(try VideoEncodeChain(rendition: rendition, stream: stream, settings: settings))
        }
        self.chains = chains
    }

    /// The encoder the first rendition got (what a job with one rendition reports).
    var selection: EncoderSelection? { chains.first?.selection }

    /// The configuration outputs of `rendition` open with.
    func configuration(ofRendition rendition: Int) -> VideoConfiguration? {
        chains.first { $0.rendition == rendition }?.configuration
    }

    /// The output rate: the job's `fps`, else the input's average rate when it is plausible, else 25; as a
    /// fraction (29.97 = 30000/1001).
    static func outputRate(requested: Double?, input: Double?) -> AVRational {
        // Containers with millisecond time bases sometimes report 1000 fps; that is no rate to encode at.
        let plausible = input.flatMap { VideoTranscoder.plausibleRates.contains($0) ? $0 : nil }
        return av_d2q(requested ?? plausible ?? VideoTranscoder.defaultRate, 1_001_000)
    }

    static let plausibleRates = 1.0...120.0
    static let defaultRate = 25.0

    /// The longest encoder delay of the chains, microseconds: the job's timeline starts this much later so no
    /// timestamp is negative.
    var encoderDelay: Int64 { chains.map(\.encoderDelay).max() ?? 0 }

    static let kind = "video"

    func finishChains(into output: inout [MediaPacket]) throws {
        for chain in chains { try chain.finish(into: &output) }
    }

    /// A decoded picture, with its time on the job's timeline, to every chain.
    func take(_ frame: UnsafeMutablePointer<AVFrame>, into output: inout [MediaPacket]) throws {
        let nopts = sluice_nopts_value()
        let timeBase = decoder.timeBase
        let duration = frame.pointee.pkt_duration > 0
            ? av_rescale_q(frame.pointee.pkt_duration, timeBase, VideoTranscoder.microseconds) : nil
        let time = frame.pointee.best_effort_timestamp == nopts ? nil
            : av_rescale_q(frame.pointee.best_effort_timestamp, timeBase, VideoTranscoder.microseconds).subtractingSaturating(timelineOffset)
        for chain in chains { try chain.take(frame, time: time, duration: duration, into: &output) }
    }
}
