import CFFmpeg
import MediaFormats

extension StreamHandling {
    /// True for `.encode`.
    var isEncode: Bool {
        if case .encode = self { return true }
        return false
    }
}

/// Encode mode inside the input thread's session: streams in encode mode go through a transcoder, whose
/// encoder also supplies the configuration the outputs open with.
extension CopySession {
    /// The video encoder the job got, when video is encoded.
    var encoderSelection: EncoderSelection? { videoTranscoder?.selection }

    /// Opens the transcoders of the streams in encode mode and shifts the job's timeline by the longest
    /// encoder delay (B-frame reordering, AAC priming), so no stream's first timestamp is negative.
    mutating func openTranscoders() throws {
        if options.video.isEncode || options.audio.isEncode { LibraryLog.limitToErrors() }
        if let video, case let .encode(settings) = options.video {
            guard let parameters = (input as? any CodecParameterSource)?.codecParameters(ofStream: video.index) else {
                throw PipelineError.noStreams(name: options.inputName)
            }
            do {
                let transcoder = try VideoTranscoder(stream: video, parameters: parameters, settings: settings)
                videoTranscoder = transcoder
                videoConfiguration = transcoder.configuration
            } catch {
                throw PipelineError.encode(kind: "video", stream: video.index, error)
            }
        }
        if let audio, case let .encode(settings) = options.audio {
            guard let parameters = (input as? any CodecParameterSource)?.codecParameters(ofStream: audio.index) else {
                throw PipelineError.noStreams(name: options.inputName)
            }
            do {
                let transcoder = try AudioTranscoder(stream: audio, parameters: parameters, settings: settings)
                audioTranscoder = transcoder
                audioConfiguration = transcoder.configuration
            } catch {
                throw PipelineError.encode(kind: "audio", stream: audio.index, error)
            }
        }
        guard videoTranscoder != nil || audioTranscoder != nil else { return }
        let delay = max(videoTranscoder?.encoderDelay ?? 0, audioTranscoder?.encoderDelay ?? 0)
        videoClock.offset -= delay
        audioClock.offset -= delay
        videoTranscoder?.timelineOffset = videoClock.offset
        audioTranscoder?.timelineOffset = audioClock.offset
        if video != nil && audio != nil { interleaver = PacketInterleaver() }
    }

    /// One packet of an encoded stream through its transcoder.
    mutating func transcode(_ packet: DemuxedPacket, with transcoder: VideoTranscoder, stream: StreamInfo) throws -> [MediaPacket] {
        do { return try transcoder.push(packet) } catch let error as EncodeError {
            throw PipelineError.encode(kind: "video", stream: stream.index, error)
        }
    }

    mutating func transcode(_ packet: DemuxedPacket, with transcoder: AudioTranscoder, stream: StreamInfo) throws -> [MediaPacket] {
        do {
            let packets = try transcoder.push(packet)
            progress.audioFrames += packets.count
            return packets
        } catch let error as EncodeError {
            throw PipelineError.encode(kind: "audio", stream: stream.index, error)
        }
    }

    /// End of input: drains both encoders, then whatever the interleaver still holds, in DTS order.
    mutating func finishTranscoders() throws -> [MediaPacket] {
        var packets: [MediaPacket] = []
        if let videoTranscoder, let video {
            do { packets += interleave(try videoTranscoder.finish()) } catch let error as EncodeError {
                throw PipelineError.encode(kind: "video", stream: video.index, error)
            }
        }
        if let audioTranscoder, let audio {
            do {
                let drained = try audioTranscoder.finish()
                progress.audioFrames += drained.count
                packets += interleave(drained)
            } catch let error as EncodeError {
                throw PipelineError.encode(kind: "audio", stream: audio.index, error)
            }
        }
        if var interleaver {
            packets += interleaver.flush()
            self.interleaver = interleaver
        }
        return packets
    }

    /// Passes packets through the interleaver when one is in use.
    mutating func interleave(_ packets: [MediaPacket]) -> [MediaPacket] {
        guard var interleaver else { return packets }
        defer { self.interleaver = interleaver }
        var released: [MediaPacket] = []
        for packet in packets { released += interleaver.push(packet) }
        return released
    }
}
