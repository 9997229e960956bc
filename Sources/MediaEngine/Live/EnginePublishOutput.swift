import MediaFormats

/// An RTMP/RTMPS output of the file and codec pipeline, published by the live engine: the input thread turns each
/// packet into FLV tags (`FLVMuxer`, the same tags a file gets) and hands them to the engine, which connects,
/// reconnects with backoff, drops to the next keyframe when the destination falls behind and replays the sequence
/// headers, as it does for live copy jobs. No thread of its own.
///
/// `@unchecked Sendable`: `muxer` and `buffer` are touched by the input thread only (`start`, `submit`, `close`);
/// the publication is thread-safe.
final class EnginePublishOutput: PipelineOutput, @unchecked Sendable {
    let index: Int
    let name: String
    let wantsVideo: Bool
    let wantsAudio: Bool
    let isNetwork = true
    private let publication: any LivePublication
    private var muxer: FLVMuxer
    private var buffer: [UInt8] = []
    private var final: OutputProgress?
    private var failure: (any Error)?

    /// - Parameters:
    ///   - video: the video configuration at the start (nil: the output takes no video).
    ///   - audio: the audio configuration at the start (nil: no audio).
    init(destination: LiveDestination, video: VideoConfiguration?, audio: AudioConfiguration?, publication: any LivePublication) {
        index = destination.index
        name = destination.name
        wantsVideo = video != nil
        wantsAudio = audio != nil
        muxer = FLVMuxer(video: video, audio: audio)
        self.publication = publication
    }

    var progress: OutputProgress { final ?? publication.progress }
    var error: (any Error)? { failure }
    var skippedBeforeConfiguration: Int { muxer.skippedBeforeConfiguration }

    /// Sends `onMetaData` and the sequence headers: the engine keeps them for every (re)connection.
    func start() {
        do {
            _ = try muxer.writeStart(into: &buffer)
        } catch {
            failure = error
        }
        send()
    }

    func submit(_ packet: MediaPacket) -> Bool {
        guard failure == nil else { return true }
        do {
            try muxer.write(packet, into: &buffer)
        } catch {
            // A packet FLV cannot carry (a composition time past 24 bits) is this output's failure, not the job's.
            failure = error
            buffer.removeAll(keepingCapacity: true)
            return true
        }
        send()
        return true
    }

    /// Cuts the buffered FLV tags (header, body, PreviousTagSize) into messages for the engine.
    private func send() {
        guard !buffer.isEmpty else { return }
        var tags: [FLVTagMessage] = []
        var offset = 0
        while offset + FLVLimits.tagHeaderSize <= buffer.count {
            var reader = ByteReader(buffer[offset..<(offset + FLVLimits.tagHeaderSize)])
            // The muxer wrote these bytes: a header that does not parse cannot happen, and would end the cut.
            guard let header = try? FLVTagHeader(parsing: &reader) else { break }
            let bodyStart = offset + FLVLimits.tagHeaderSize
            let bodyEnd = bodyStart + header.dataSize
            guard bodyEnd + FLVLimits.previousTagSizeSize <= buffer.count else { break }
            tags.append(FLVTagMessage(typeID: header.tagType.rawValue, timestamp: Int64(header.timestamp),
                                      body: Array(buffer[bodyStart..<bodyEnd])))
            offset = bodyEnd + FLVLimits.previousTagSizeSize
        }
        buffer.removeAll(keepingCapacity: true)
        if !tags.isEmpty { publication.send(tags) }
    }

    /// Ends the publish (a publish cannot be taken back: committed or not, what was sent stays sent).
    func close(commit: Bool) -> (any Error)? {
        if final == nil { final = publication.finish() }
        return nil
    }

    /// Nothing to rename.
    func rename() throws -> OutputFile? { nil }

    /// Nothing to remove: the publish is only ended.
    func discard() { _ = close(commit: false) }
}
