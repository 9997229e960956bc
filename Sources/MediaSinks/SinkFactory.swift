import MediaFormats
import MediaJob

/// Makes a file output's sink for its format (docs/ARCHITECTURE.md §7): what the format needs is checked before the
/// file is created, then the sink is made on the created file, or on the segments of a recording. The one place a
/// file output gets its writer, for the codec engine's output threads and the relay engine's file pool alike.
package struct SinkFactory: Sendable {
    /// The job's options: roots, the part owner, live playlists, segment reports, the multivariant playlist.
    package let options: MediaJobOptions

    package init(options: MediaJobOptions) {
        self.options = options
    }

    /// The job's multivariant playlist (its temporary file created), when it has one.
    package func openMultivariant() throws -> HLSMultivariantOutput? {
        guard let settings = options.multivariant else { return nil }
        let variants = settings.variants.compactMap { options.outputs.indices.contains($0.output) ? options.outputs[$0.output].hls : nil }
        // The media playlists print version 6 (EXT-X-MAP), 9 when Low-Latency parts offer delta updates.
        let lowLatency = variants.contains { $0.partSeconds != nil && !$0.isVOD }
        let target = variants.map { Int($0.segmentSeconds.rounded(.up)) }.max() ?? 1
        do {
            let served = options.livePlaylists.flatMap { registry in options.jobID.map { (registry: registry, jobID: $0) } }
            return try HLSMultivariantOutput(settings: settings, root: options.fileRoots?.output, owner: options.partOwner,
                                             targetDuration: target, version: lowLatency ? 9 : 6, live: options.liveInput,
                                             served: served)
        } catch {
            throw MediaJobError.multivariantPlaylist(name: settings.name, error)
        }
    }

    package func makeSink(_ description: OutputDescription, index: Int, video videoConfiguration: VideoConfiguration?,
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
            if let audioConfiguration { _ = try TSSink.audioStream(audioConfiguration, output: name) }
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
            // ADTS can carry this audio (AAC of types 1-4): checked on a header of no payload.
            _ = try ADTSSink.carried(audioConfiguration, output: name)
            make = { try ADTSSink(file: $0, name: name, audio: audioConfiguration) }
        }
        if let segments = description.segments {
            return try SegmentedSink(index: index, settings: segments, root: root, owner: owner, followsWallClock: options.liveInput,
                                     recordingClock: options.recordingClock, report: options.segmentReports ?? { _ in }, make: make)
        }
        let file = try FileWriter(path: try filePath(description), root: root, owner: owner,
                                  bufferSize: options.liveInput ? FileWriter.liveBufferSize : FileWriter.bufferSize)
        do {
            return try make(file)
        } catch {
            // A sink that cannot start leaves no temporary file.
            file.discard()
            throw error
        }
    }

    package func filePath(_ description: OutputDescription) throws -> String {
        guard case let .file(path) = description.target else {
            throw OutputError.unsupported(output: description.name, reason: "not a file")
        }
        return path
    }
}
