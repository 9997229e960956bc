import MediaFormats
import MediaJob
import MediaSinks

/// A network output of the codec engine (RTMP/RTMPS, or SRT with MPEG-TS made at the relay's edge), published by the
/// relay engine: the input thread turns each
/// packet into FLV tags (`FLVMuxer`, the same tags a file gets) and hands them to the engine, which connects,
/// reconnects with backoff, drops to the next keyframe when the destination falls behind and replays the sequence
/// headers, as it does for live copy jobs. No thread of its own.
///
/// `@unchecked Sendable`: `muxer` and `tags` are touched by the input thread only (`start`, `submit`, `close`);
/// the publication is thread-safe.
final class RelayPublishOutput: JobOutput, @unchecked Sendable {
    let index: Int
    let name: String
    let wantsVideo: Bool
    let wantsAudio: Bool
    let isNetwork = true
    private let publication: any LivePublication
    private var muxer: FLVMuxer
    /// The tags of what was submitted, one message each, not yet handed to the engine.
    private var tags = FLVStreamTags()
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
            _ = try muxer.writeStart(into: &tags)
        } catch {
            failure = error
        }
        send()
    }

    func submit(_ packet: MediaPacket) -> Bool {
        guard failure == nil else { return true }
        do {
            try muxer.write(packet, into: &tags)
        } catch {
            // A packet FLV cannot carry (a composition time past 24 bits) is this output's failure, not the job's.
            failure = error
            tags.messages.removeAll(keepingCapacity: true)
            return true
        }
        send()
        return true
    }

    /// Hands the tags built so far to the engine.
    private func send() {
        guard !tags.messages.isEmpty else { return }
        publication.send(tags.messages)
        tags.messages.removeAll(keepingCapacity: true)
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

/// FLV tags as the engine's messages: an RTMP audio, video or data message carries an FLV tag's data as it is, so a
/// publish needs no FLV file bytes, only each tag's type, time and data, built once by `FLVWriter`.
struct FLVStreamTags: FLVTagDestination {
    var messages: [FLVStreamTag] = []

    mutating func appendTag(_ type: FLVTagType, timestamp: UInt32, dataSize: Int?,
                            _ writeData: (inout [UInt8]) throws -> Void) throws {
        var data: [UInt8] = []
        if let dataSize {
            try FLVLimits.checkTagDataSize(dataSize)
            data.reserveCapacity(dataSize)
        }
        try writeData(&data)
        try FLVLimits.checkTagDataSize(data.count)
        messages.append(FLVStreamTag(type: type, timestamp: Int64(timestamp), data: data))
    }
}
