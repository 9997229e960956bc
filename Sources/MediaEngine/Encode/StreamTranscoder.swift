import CFFmpeg
import MediaJob
import MediaSinks

/// What the audio and video transcoders share: one decoder on the input thread, whose frames feed every rendition's
/// encode chain; a libav failure is named by its stage and stream.
protocol StreamTranscoder: AnyObject {
    var decoder: StreamDecoder { get }
    var stream: StreamInfo { get }
    /// "audio" or "video", as failures name it.
    static var kind: String { get }
    /// A decoded frame, on the job's timeline, to every chain.
    func take(_ frame: UnsafeMutablePointer<AVFrame>, into output: inout [MediaPacket]) throws
    /// End of input: every chain drains its encoder.
    func finishChains(into output: inout [MediaPacket]) throws
}

extension StreamTranscoder {
    /// Decodes one packet and encodes what it completes, in every rendition.
    func push(_ packet: DemuxedPacket) throws -> [MediaPacket] {
        try transcoding { output in try decoder.decode(packet) { frame in try take(frame, into: &output) } }
    }

    /// End of input: drains the decoder, then every chain.
    func finish() throws -> [MediaPacket] {
        try transcoding { output in
            try decoder.decode(nil) { frame in try take(frame, into: &output) }
            try finishChains(into: &output)
        }
    }

    private func transcoding(_ body: (inout [MediaPacket]) throws -> Void) throws -> [MediaPacket] {
        var output: [MediaPacket] = []
        do {
            try body(&output)
        } catch let error as FFmpegError {
            throw EncodeError.ffmpeg(stage: "\(Self.kind) transcode (stream \(stream.index))", error)
        }
        return output
    }
}
