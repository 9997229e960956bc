import CFFmpeg
import Foundation
import MediaFormats
import MediaJob
import MediaSinks

/// The session's outputs at start-up: an RTMP, SRT or WHEP output is published by the relay engine, a file output gets the sink of
/// its format on an output worker (a live job's on the engine's file pool), each with its rendition's configuration; a
/// failure closes what was opened.
extension CodecSession {
    /// Opens every output's target and sink, then starts them. A failure closes what was opened.
    /// - Parameter multivariant: the multivariant playlist the HLS outputs it lists report to.
    func openOutputs(multivariant: HLSMultivariantOutput? = nil) throws -> [any JobOutput] {
        var workers: [any JobOutput] = []
        do {
            for (index, description) in options.outputs.enumerated() {
                if case let .network(url) = description.target {
                    // Published by the relay engine, which connects in the background: a dead destination never
                    // holds up the start.
                    do {
                        workers.append(try publishOutput(index: index, description: description, url: url,
                                                         video: videoConfiguration(ofOutput: index), audio: audioConfiguration(ofOutput: index)))
                    } catch {
                        throw MediaJobError.openOutput(index: index, name: description.name, error)
                    }
                    continue
                }
                let sink: any PacketSink
                do {
                    let variant = multivariant.flatMap { playlist in playlist.variant(ofOutput: index).map { (playlist: playlist, index: $0) } }
                    sink = try SinkFactory(options: options).makeSink(description, index: index, video: videoConfiguration(ofOutput: index), audio: audioConfiguration(ofOutput: index),
                                        variant: variant)
                } catch {
                    throw MediaJobError.openOutput(index: index, name: description.name, error)
                }
                // A live job's files write on the relay engine's shared file pool, a file job's on threads of their own
                // (it writes as fast as it reads, and would hold the pool's two threads from every live job's files).
                let lane = options.liveInput ? options.transport?.fileLane() : nil
                workers.append(FileOutput(index: index, name: description.name, sink: sink, lane: lane))
            }
        } catch {
            for worker in workers { worker.discard() }
            throw error
        }
        for worker in workers { worker.start() }
        return workers
    }

    /// The configuration `output` opens its video with: its rendition's (nil: it takes no video).
    func videoConfiguration(ofOutput output: Int) -> VideoConfiguration? {
        guard video != nil, let rendition = plan.lanes[plan.outputLanes[output]].video else { return nil }
        if rendition == plan.copiedVideo { return videoConfiguration }
        return videoTranscoder?.configuration(ofRendition: rendition)
    }

    func audioConfiguration(ofOutput output: Int) -> AudioConfiguration? {
        guard audio != nil, let rendition = plan.lanes[plan.outputLanes[output]].audio else { return nil }
        if rendition == plan.copiedAudio { return audioConfiguration }
        return audioTranscoder?.configuration(ofRendition: rendition)
    }

    func publishOutput(index: Int, description: OutputDescription, url: String,
                       video videoConfiguration: VideoConfiguration?, audio audioConfiguration: AudioConfiguration?) throws -> RelayPublishOutput {
        // The relay engine takes FLV tags either way: RTMP carries them, SRT gets MPEG-TS made of them at its edge.
        guard description.kind == .flv || description.kind == .mpegts else {
            throw OutputError.unsupported(output: description.name, reason: "a network output carries FLV (RTMP, WHEP) or MPEG-TS (SRT)")
        }
        guard videoConfiguration != nil || audioConfiguration != nil else {
            throw OutputError.missingStream(output: description.name, kind: "audio or video")
        }
        guard let transport = options.transport else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP, SRT and WHEP outputs need the relay engine, and none runs here")
        }
        let destination = LiveDestination(index: index, name: description.name, url: url, token: description.token)
        return RelayPublishOutput(destination: destination, video: videoConfiguration, audio: audioConfiguration,
                                   publication: transport.publish(to: destination, options: options))
    }
}
