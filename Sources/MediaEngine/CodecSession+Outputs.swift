import CFFmpeg
import Foundation
import MediaFormats
import MediaJob

/// The session's outputs at start-up: an RTMP output is published by the relay engine, a file output gets the sink of
/// its format on an output worker, each with its rendition's configuration; a failure closes what was opened.
extension CodecSession {
    /// Opens every output's target and sink, then starts them. A failure closes what was opened.
    func openOutputs() throws -> [any JobOutput] {
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
                    sink = try makeSink(description, video: videoConfiguration(ofOutput: index), audio: audioConfiguration(ofOutput: index))
                } catch {
                    throw MediaJobError.openOutput(index: index, name: description.name, error)
                }
                workers.append(FileOutput(index: index, name: description.name, sink: sink))
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
        guard description.kind == .flv else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP carries FLV only")
        }
        guard videoConfiguration != nil || audioConfiguration != nil else {
            throw OutputError.missingStream(output: description.name, kind: "audio or video")
        }
        guard let transport = options.transport else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP outputs need the relay engine, and none runs here")
        }
        let destination = LiveDestination(index: index, name: description.name, url: url)
        return RelayPublishOutput(destination: destination, video: videoConfiguration, audio: audioConfiguration,
                                   publication: transport.publish(to: destination, options: options))
    }

    func makeSink(_ description: OutputDescription, video videoConfiguration: VideoConfiguration?,
                  audio audioConfiguration: AudioConfiguration?) throws -> any PacketSink {
        switch description.kind {
        case .flv:
            guard videoConfiguration != nil || audioConfiguration != nil else {
                throw OutputError.missingStream(output: description.name, kind: "audio or video")
            }
            let file = try FileWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            return FLVSink(file: file, name: description.name, video: videoConfiguration, audio: audioConfiguration)
        case .annexB:
            guard let videoConfiguration else { throw OutputError.missingStream(output: description.name, kind: "video") }
            try AnnexBSink.checkCodec(videoConfiguration.bitstream, path: try filePath(description), output: description.name)
            let file = try FileWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            do {
                return try AnnexBSink(file: file, video: videoConfiguration)
            } catch {
                file.discard()
                throw error
            }
        case .hls:
            guard videoConfiguration != nil || audioConfiguration != nil else {
                throw OutputError.missingStream(output: description.name, kind: "audio or video")
            }
            let file = try FileWriter(path: try filePath(description), root: options.fileRoots?.output, owner: options.partOwner)
            do {
                return try HLSSink(file: file, name: description.name, root: options.fileRoots?.output, owner: options.partOwner,
                                   settings: description.hls ?? HLSSettings(segmentSeconds: 2, window: 0, isVOD: !options.liveInput),
                                   video: videoConfiguration, audio: audioConfiguration)
            } catch {
                file.discard()
                throw error
            }
        case .mp4, .mpegts:
            guard videoConfiguration != nil || audioConfiguration != nil else {
                throw OutputError.missingStream(output: description.name, kind: "audio or video")
            }
            if description.kind == .mpegts, case .av1 = videoConfiguration?.bitstream {
                throw OutputError.unsupported(output: description.name, reason: "the video is AV1, which MPEG-TS does not carry here (write it to .mp4 or .flv)")
            }
            let file = try FileWriter(path: try filePath(description), root: options.fileRoots?.output, owner: options.partOwner)
            do {
                return description.kind == .mp4
                    ? try MP4Sink(file: file, name: description.name, video: videoConfiguration, audio: audioConfiguration)
                    : try TSSink(file: file, name: description.name, video: videoConfiguration, audio: audioConfiguration)
            } catch {
                file.discard()
                throw error
            }
        case .adts:
            guard let audioConfiguration else { throw OutputError.missingStream(output: description.name, kind: "audio") }
            // Check ADTS can carry this AAC before creating the file.
            _ = try ADTSHeader(audioSpecificConfig: audioConfiguration.audioSpecificConfig, payloadLength: 0)
            let file = try FileWriter(path: try filePath(description), root: options.fileRoots?.output,
                                          owner: options.partOwner)
            do {
                return try ADTSSink(file: file, name: description.name, audio: audioConfiguration)
            } catch {
                file.discard()
                throw error
            }
        }
    }

    func filePath(_ description: OutputDescription) throws -> String {
        guard case let .file(path) = description.target else {
            throw OutputError.unsupported(output: description.name, reason: "not a file")
        }
        return path
    }
}
