// The audio of a job's WHEP viewers (RFC 7587 Opus): the job's AAC made Opus once for all of them, or a WHIP
// publisher's own Opus passed through.
import MediaFormats
import MediaJob
import RTMP

/// A browser decodes no AAC: a job whose audio is AAC has it made Opus once for every viewer that takes audio, by the
/// job's `edgeAudioEncoder` on its loop. The transcoder is made at the first frame someone hears, and dropped when no one
/// listens (a new one starts its timeline afresh) or the AudioSpecificConfig changes; a job whose audio is Opus already
/// (an Enhanced RTMP publisher's) goes to its viewers through the core as it came.
///
/// A WHIP publisher's Opus is made AAC at the edge for the job's other outputs; its viewers get the publisher's own
/// Opus frames instead (`whepPublisherOpus`), not that AAC made Opus again: no second encode, no AAC encoder delay, and
/// the sound as it was sent. Those frames skip the job's timeline (two audio streams on one would break its duration
/// inference and order), so they are placed by the offset the timeline gave the publisher's last frame.
struct WHEPAudio {
    /// The latest AAC sequence header's AudioSpecificConfig.
    var config: [UInt8]?
    var transcoder: (any AACToOpusTranscoding)?
    /// Why the audio cannot be made, named once; the viewers go on with the picture alone.
    var failure: String?
    /// Opus frames made from the job's AAC.
    var frames = 0
    /// A WHIP publisher's Opus frames sent to the viewers as they came.
    var passedThrough = 0
    /// The job's timeline less the raw timestamp of the last frame delivered (`deliver`): where a WHIP publisher's Opus,
    /// on the raw clock, goes on the job's.
    var sourceOffset: Int64?
}

extension RelaySession {
    /// Whether the job's audio reaches its viewers as the WHIP publisher's own Opus (`whepPublisherOpus`), not through
    /// the AAC made of it.
    var whepHearsPublisherOpus: Bool { source.whip.publisher?.audio != nil }

    /// One Opus frame of the WHIP publisher (an Enhanced RTMP Opus tag of its edge, on the raw clock), sent as it came to
    /// every joined viewer that takes audio. Before the job placed any frame of the publisher, there is nowhere to put it.
    func whepPublisherOpus(_ tag: FLVStreamTag) {
        guard options.audio != .drop, let offset = links.whepAudio.sourceOffset,
              let data = try? FLVAudioData(parsing: tag.data[...]), data.packetType == .codedFrames,
              let track = data.tracks.first, track.codec.fourCC == .opus, !track.payload.isEmpty else { return }
        let listeners = links.whep.flatMap { $0.viewers.filter { $0.joined && $0.media.carriesAudio } }
        guard !listeners.isEmpty else { return }
        let milliseconds = Int64(UInt32(truncatingIfNeeded: tag.timestamp)) + offset
        let frame = Array(track.payload)
        let now = Int64(RelaySession.now() / 1_000_000)
        links.whepAudio.passedThrough += 1
        for viewer in listeners {
            for packet in viewer.media.sendOpus(frame, milliseconds: milliseconds, now: now) { seal(packet, for: viewer) }
        }
    }

    /// One audio tag of the job: an AAC frame made Opus for every joined viewer that takes audio.
    func whepAudio(_ message: Message) {
        guard !whepHearsPublisherOpus else { return }
        guard let data = try? FLVAudioData(parsing: message.payload), let track = data.tracks.first, track.codec.fourCC == .mp4a else { return }
        if data.isSequenceStart {
            let config = Array(track.payload)
            if links.whepAudio.config != config {
                links.whepAudio.config = config
                links.whepAudio.transcoder = nil
                links.whepAudio.failure = nil
            }
            return
        }
        let listeners = links.whep.flatMap { $0.viewers.filter { $0.joined && $0.media.carriesAudio } }
        guard !listeners.isEmpty else {
            links.whepAudio.transcoder = nil
            return
        }
        guard links.whepAudio.failure == nil, let config = links.whepAudio.config, !track.payload.isEmpty else { return }
        do {
            let transcoder: any AACToOpusTranscoding
            if let made = links.whepAudio.transcoder {
                transcoder = made
            } else {
                guard let maker = options.edgeAudioEncoder else { throw EncodeError.unsupportedSetting("this worker has no audio encoder") }
                transcoder = try maker.makeAACToOpus(audioSpecificConfig: config)
                links.whepAudio.transcoder = transcoder
            }
            let frames = try transcoder.transcode(Array(track.payload), milliseconds: Int64(message.timestamp))
            links.whepAudio.frames += frames.count
            let now = Int64(RelaySession.now() / 1_000_000)
            for frame in frames {
                for viewer in listeners {
                    for packet in viewer.media.sendOpus(frame.frame, milliseconds: frame.milliseconds, now: now) { seal(packet, for: viewer) }
                }
            }
        } catch {
            links.whepAudio.transcoder = nil
            links.whepAudio.failure = "\(error)"
            engine.report("\(jobLabel)the AAC audio cannot be made Opus for WHEP viewers (\(error)); they get the picture alone")
        }
    }
}
