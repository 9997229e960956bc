import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// Encode mode inside the input thread's session: streams in encode mode go through a transcoder, whose
/// encoder also supplies the configuration the outputs open with.
extension CodecSession {
    /// The video encoder the job got, when video is encoded.
    var encoderSelection: EncoderSelection? { videoTranscoder?.selection }

    /// Opens the transcoders of the streams with encoded renditions (one decoder each, an encoder per rendition)
    /// and shifts the job's timeline by the longest encoder delay (B-frame reordering, AAC priming), so no
    /// stream's first timestamp is negative.
    mutating func openTranscoders() throws {
        let encodedVideo = plan.encodedVideo
        let encodedAudio = plan.encodedAudio
        if !encodedVideo.isEmpty || !encodedAudio.isEmpty { LibraryLog.limitToErrors() }
        if let video, !encodedVideo.isEmpty {
            videoTranscoder = try encoding(VideoTranscoder.self, video) {
                try VideoTranscoder(stream: video, parameters: try parameters(of: video), renditions: encodedVideo)
            }
        }
        if let audio, !encodedAudio.isEmpty {
            audioTranscoder = try encoding(AudioTranscoder.self, audio) {
                try AudioTranscoder(stream: audio, parameters: try parameters(of: audio), renditions: encodedAudio)
            }
        }
        interleavers = plan.lanes.map { lane in
            video != nil && audio != nil && plan.interleaves(lane) ? PacketInterleaver() : nil
        }
        guard videoTranscoder != nil || audioTranscoder != nil else { return }
        let delay = max(videoTranscoder?.encoderDelay ?? 0, audioTranscoder?.encoderDelay ?? 0)
        videoClock.offset -= delay
        audioClock.offset -= delay
        videoTranscoder?.timelineOffset = videoClock.offset
        audioTranscoder?.timelineOffset = audioClock.offset
    }

    /// One packet of an encoded stream through its transcoder: a packet per rendition it completes.
    func transcode<Chain>(_ packet: DemuxedPacket, with transcoder: StreamTranscoder<Chain>) throws -> [MediaPacket] {
        try encoding(StreamTranscoder<Chain>.self, transcoder.stream) { try transcoder.push(packet) }
    }

    /// End of input: drains both transcoders to the lanes, then whatever the interleavers still hold.
    mutating func finishTranscoders() throws {
        if let videoTranscoder { try route(try encoding(VideoTranscoder.self, videoTranscoder.stream) { try videoTranscoder.finish() }) }
        if let audioTranscoder { try route(try encoding(AudioTranscoder.self, audioTranscoder.stream) { try audioTranscoder.finish() }) }
        try flushInterleavers()
    }

    /// The demuxer's parameters of an encoded stream.
    private func parameters(of stream: StreamInfo) throws -> UnsafePointer<AVCodecParameters> {
        guard let parameters = (input as? any CodecParameterSource)?.codecParameters(ofStream: stream.index) else {
            throw MediaJobError.noStreams(name: options.inputName)
        }
        return parameters
    }

    /// Runs `body`, naming the stream's kind and index in the job's error when an encoder fails.
    private func encoding<Chain, Value>(_ kind: StreamTranscoder<Chain>.Type, _ stream: StreamInfo,
                                        _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as EncodeError {
            throw MediaJobError.encode(kind: Chain.kind, stream: stream.index, error)
        }
    }
}
