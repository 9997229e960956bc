import CFFmpeg
import Foundation
import MediaFormats
import MediaJob

/// The session's outputs at start-up: an RTMP or SRT output is published by the relay engine, a file output gets the sink of
/// its format on an output worker, each with its rendition's configuration; a failure closes what was opened.
extension CodecSession {
    /// The job's multivariant playlist (its temporary file created), when it has one.
    func openMultivariant() throws -> HLSMultivariantOutput? {
        guard let settings = options.multivariant else { return nil }
        let variants = settings.variants.compactMap { options.outputs.indices.contains($0.output) ? options.outputs[$0.output].hls : nil }
        // The media playlists print version 6 (EXT-X-MAP), 9 when Low-Latency parts offer delta updates.
        let lowLatency = variants.contains { $0.partSeconds != nil && !$0.isVOD }
        let target = variants.map { Int($0.segmentSeconds.rounded(.up)) }.max() ?? 1
        do {
            return try HLSMultivariantOutput(settings: settings, root: options.fileRoots?.output, owner: options.partOwner,
                                             targetDuration: target, version: lowLatency ? 9 : 6, live: options.liveInput)
        } catch {
            throw MediaJobError.multivariantPlaylist(name: settings.name, error)
        }
    }

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
                    sink = try makeSink(description, index: index, video: videoConfiguration(ofOutput: index), audio: audioConfiguration(ofOutput: index),
                                        variant: variant)
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
        // The relay engine takes FLV tags either way: RTMP carries them, SRT gets MPEG-TS made of them at its edge.
        guard description.kind == .flv || description.kind == .mpegts else {
            throw OutputError.unsupported(output: description.name, reason: "a network output carries FLV (RTMP) or MPEG-TS (SRT)")
        }
        guard videoConfiguration != nil || audioConfiguration != nil else {
            throw OutputError.missingStream(output: description.name, kind: "audio or video")
        }
        guard let transport = options.transport else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP and SRT outputs need the relay engine, and none runs here")
        }
        let destination = LiveDestination(index: index, name: description.name, url: url)
        return RelayPublishOutput(destination: destination, video: videoConfiguration, audio: audioConfiguration,
                                   publication: transport.publish(to: destination, options: options))
    }

    func makeSink(_ description: OutputDescription, index: Int, video videoConfiguration: VideoConfiguration?,
                  audio audioConfiguration: AudioConfiguration?,
                  variant: (playlist: HLSMultivariantOutput, index: Int)? = nil) throws -> any PacketSink {
        let name = description.name
        let root = options.fileRoots?.output, owner = options.partOwner
        let eitherStream = videoConfiguration != nil || audioConfiguration != nil
        // What each format needs is checked before its file is created; the sink is made on the created file.
        let make: (FileWriter) throws -> any PacketSink
        switch description.kind {
        case .flv where eitherStream:
            make = { FLVSink(file: $0, name: name, video: videoConfiguration, audio: audioConfiguration) }
        case .mp4 where eitherStream:
            make = { try MP4Sink(file: $0, name: name, video: videoConfiguration, audio: audioConfiguration) }
        case .mpegts where eitherStream:
            if let videoConfiguration { _ = try TSSink.videoStream(videoConfiguration, output: name) }
            make = { try TSSink(file: $0, name: name, video: videoConfiguration, audio: audioConfiguration) }
        case .hls where eitherStream:
            guard let settings = description.hls else {
                throw OutputError.unsupported(output: name, reason: "an HLS output needs its segment settings")
            }
            let live = options.livePlaylists.flatMap { registry in
                options.jobID.map { (registry: registry, key: LivePlaylistKey(jobID: $0, output: index)) }
            }
            make = { try HLSSink(file: $0, name: name, root: root, owner: owner, settings: settings,
                                 video: videoConfiguration, audio: audioConfiguration, live: live, variant: variant) }
        case .flv, .mp4, .mpegts, .hls:
            throw OutputError.missingStream(output: name, kind: "audio or video")
        case .annexB:
            guard let videoConfiguration else { throw OutputError.missingStream(output: name, kind: "video") }
            try AnnexBSink.checkCodec(videoConfiguration.bitstream, path: try filePath(description), output: name)
            make = { try AnnexBSink(file: $0, video: videoConfiguration) }
        case .adts:
            guard let audioConfiguration else { throw OutputError.missingStream(output: name, kind: "audio") }
            // ADTS can carry this AAC: checked on a header of no payload.
            _ = try ADTSHeader(audioSpecificConfig: audioConfiguration.audioSpecificConfig, payloadLength: 0)
            make = { try ADTSSink(file: $0, name: name, audio: audioConfiguration) }
        }
        if let segments = description.segments {
            return try SegmentedSink(index: index, settings: segments, root: root, owner: owner, followsWallClock: options.liveInput,
                                     report: options.segmentReports ?? { _ in }, make: make)
        }
        let file = try FileWriter(path: try filePath(description), root: root, owner: owner)
        do {
            return try make(file)
        } catch {
            // A sink that cannot start leaves no temporary file.
            file.discard()
            throw error
        }
    }

    func filePath(_ description: OutputDescription) throws -> String {
        guard case let .file(path) = description.target else {
            throw OutputError.unsupported(output: description.name, reason: "not a file")
        }
        return path
    }
}
