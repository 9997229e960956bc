import CFFmpeg
import MediaFormats
import MediaPipeline

/// Encode mode inside the input thread's session: streams in encode mode go through a transcoder, whose
/// encoder also supplies the configuration the outputs open with.
extension CopySession {
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
            guard let parameters = (input as? any CodecParameterSource)?.codecParameters(ofStream: video.index) else {
                throw PipelineError.noStreams(name: options.inputName)
            }
            do {
                videoTranscoder = try VideoTranscoder(stream: video, parameters: parameters, renditions: encodedVideo)
            } catch {
                throw PipelineError.encode(kind: "video", stream: video.index, error)
            }
        }
        if let audio, !encodedAudio.isEmpty {
            guard let parameters = (input as? any CodecParameterSource)?.codecParameters(ofStream: audio.index) else {
                throw PipelineError.noStreams(name: options.inputName)
            }
            do {
                audioTranscoder = try AudioTranscoder(stream: audio, parameters: parameters, renditions: encodedAudio)
            } catch {
                throw PipelineError.encode(kind: "audio", stream: audio.index, error)
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
    mutating func transcode(_ packet: DemuxedPacket, with transcoder: VideoTranscoder, stream: StreamInfo) throws -> [MediaPacket] {
        do { return try transcoder.push(packet) } catch let error as EncodeError {
            throw PipelineError.encode(kind: "video", stream: stream.index, error)
        }
    }

    mutating func transcode(_ packet: DemuxedPacket, with transcoder: AudioTranscoder, stream: StreamInfo) throws -> [MediaPacket] {
        do { return try transcoder.push(packet) } catch let error as EncodeError {
            throw PipelineError.encode(kind: "audio", stream: stream.index, error)
        }
    }

    /// End of input: drains both transcoders to the lanes, then whatever the interleavers still hold.
    mutating func finishTranscoders() throws {
        if let videoTranscoder, let video {
            let drained: [MediaPacket]
            do { drained = try videoTranscoder.finish() } catch let error as EncodeError {
                throw PipelineError.encode(kind: "video", stream: video.index, error)
            }
            try route(drained)
        }
        if let audioTranscoder, let audio {
            let drained: [MediaPacket]
            do { drained = try audioTranscoder.finish() } catch let error as EncodeError {
                throw PipelineError.encode(kind: "audio", stream: audio.index, error)
            }
            try route(drained)
        }
        try flushInterleavers()
    }
}
