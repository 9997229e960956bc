import MediaFormats
import MediaJob
import MediaSinks
import NIOCore
import NIOPosix
import RTMP

/// A file output of a live job in a format other than a plain FLV archive: fragmented MP4, MPEG-TS, HLS and
/// Low-Latency HLS, a recording in segments, Annex B, ADTS (docs/ARCHITECTURE.md §4, "File outputs on the engine").
/// It takes what an archive takes of the stream (the core's `archive` actions: from a key frame, configurations
/// first), reads it as media packets on the session's loop (`LivePacketReader`), and hands each read burst's packets
/// to the format's sink (`SinkFactory`, the codec engine's writers) on the engine's file pool, in order: no thread of
/// its own, and never a write on the loop. Loop-confined; the pool side is `SinkWriter`.
final class SinkOutputLink: LiveFileOutput {
    let index: Int
    let name: String
    var progress = OutputProgress()
    /// The first error (a codec the format cannot take, opening, writing): it fails the job.
    var failure: (any Error)?
    private var reader: LivePacketReader
    private var pending: [MediaPacket] = []
    private var pendingBytes = 0
    private var opened = false
    private var chain: EventLoopFuture<Void>
    private var inFlight = 0
    private let writer: SinkWriter
    private let description: OutputDescription
    private let factory: SinkFactory
    private let pool: NIOThreadPool
    private let backlog: FileBacklog?
    private let loop: any EventLoop

    /// Bytes handed to the pool but not yet written beyond which the disk counts as too slow (the job fails: a file
    /// output never drops).
    static let maxInFlight = 64 << 20

    init(index: Int, description: OutputDescription, options: MediaJobOptions, pool: NIOThreadPool,
         backlog: FileBacklog? = nil, loop: any EventLoop) {
        self.index = index
        self.name = description.name
        self.description = description
        self.pool = pool
        self.backlog = backlog
        self.loop = loop
        factory = SinkFactory(options: options)
        writer = SinkWriter()
        let video = description.carriesVideo && (description.video ?? options.video) != .drop
        let audio = description.carriesAudio && (description.audio ?? options.audio) != .drop
        (takesVideo, takesAudio) = (video, audio)
        reader = LivePacketReader(usesVideo: video, usesAudio: audio)
        skipsSlate = description.kind == .mp4 || description.kind == .hls
        chain = loop.makeSucceededVoidFuture()
        progress.status = .running
    }

    /// Takes one archived message: a data message without its `@setDataFrame` name, media as it is.
    func archive(_ message: Message, _ head: FLVTagHead) {
        guard failure == nil else { return }
        var body = message.payload
        if message.typeID == MessageType.dataAMF0.rawValue, body.starts(with: Message.setDataFrameName) {
            body.removeFirst(Message.setDataFrameName.count)
        }
        do {
            guard let tag = message.tag(at: Int64(message.timestamp), body: body) else { return }
            take(try reader.take(tag))
        } catch {
            fail(error)
            return
        }
        // Counted as taken, like an archive's frames: the job's end judges an output empty before the pool has written.
        if head.role == .videoFrame, takesVideo {
            progress.packets += 1
            progress.videoFrames += 1
        } else if head.role == .audioFrame, takesAudio {
            progress.packets += 1
        }
    }

    private func take(_ packets: [MediaPacket]) {
        for packet in packets {
            pending.append(packet)
            pendingBytes += packet.data.count
        }
    }

    private func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        progress.status = .failed
        progress.lastError = MediaJobError.describe(error)
    }

    /// Hands what was read to the pool (once per source read burst): the sink is made first, once the streams are known.
    func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        let packets = pending
        let bytes = pendingBytes
        pending = []
        pendingBytes = 0
        inFlight += bytes
        guard inFlight <= SinkOutputLink.maxInFlight else {
            fail(FileAccessError(path: name, reason: "the disk does not keep up with the live stream"))
            return
        }
        let (writer, pool, loop) = (writer, pool, loop)
        if !opened, let streams = reader.streams {
            opened = true
            let (factory, description, index) = (factory, description, index)
            chain = chain.flatMap {
                pool.runIfActive(eventLoop: loop) { try writer.open(factory: factory, description, index: index, streams: streams) }
            }
        }
        chain = chain.flatMap { pool.runIfActive(eventLoop: loop) { try writer.write(packets) } }
        backlog?.add(bytes)
        let bound = NIOLoopBound(self, eventLoop: loop)
        chain.whenComplete { [backlog] result in
            let link = bound.value
            link.inFlight -= bytes
            backlog?.remove(bytes)
            switch result {
            case .success:
                link.progress.bytes = writer.bytesWritten
            case let .failure(error):
                link.fail(error)
            }
        }
    }

    /// Writes what is left and finishes the sink (its trailer, its last segment or playlist), its file synced but
    /// not yet under its name (`publish`), or, without `commit`, removes everything it wrote. The future fails with
    /// the output's first error.
    func finish(commit: Bool) -> EventLoopFuture<Void> {
        if commit, failure == nil {
            do { take(try reader.finish()) } catch { fail(error) }
            // A stream that never got described (it ended within the probe time) still opens with what it had.
        }
        flush()
        let (writer, pool, loop) = (writer, pool, loop)
        let keep = commit && failure == nil
        let bound = NIOLoopBound(self, eventLoop: loop)
        return chain.flatMap {
            pool.runIfActive(eventLoop: loop) {
                if keep { try writer.finish() } else { writer.abandon() }
            }
        }.flatMapError { error in
            pool.runIfActive(eventLoop: loop) { writer.abandon() }.flatMapThrowing { throw bound.value.failure ?? error }
        }.flatMapThrowing {
            let link = bound.value
            if let failure = link.failure { throw failure }
            link.progress.bytes = writer.bytesWritten
            link.progress.status = commit ? .finished : .failed
        }
    }

    var commit: any LiveFileCommit { writer }
    let skipsSlate: Bool
    let takesVideo: Bool
    private let takesAudio: Bool
}

/// The pool's side of a `SinkOutputLink`: the format's sink, made once the streams are known, and every write to it.
/// `@unchecked Sendable`: it is touched only by its output's pool tasks, each chained on the completion of the one
/// before (one at a time, each after the last one's writes), and `bytesWritten` is read on the loop after such a
/// completion.
final class SinkWriter: LiveFileCommit, @unchecked Sendable {
    private var sink: (any PacketSink)?
    private(set) var bytesWritten: Int64 = 0

    func open(factory: SinkFactory, _ description: OutputDescription, index: Int, streams: LivePacketReader.Streams) throws {
        let sink: any PacketSink
        do {
            sink = try factory.makeSink(description, index: index, video: streams.video, audio: streams.audio)
            try sink.open()
        } catch {
            throw MediaJobError.openOutput(index: index, name: description.name, error)
        }
        self.sink = sink
    }

    /// Writes the packets of the kinds the sink takes.
    func write(_ packets: [MediaPacket]) throws {
        guard let sink else { return }
        for packet in packets where packet.kind == .video ? sink.wantsVideo : sink.wantsAudio {
            try sink.write(packet)
        }
        bytesWritten = sink.bytesWritten
    }

    /// The trailer written and the file synced; nothing to do for an output that never opened.
    func finish() throws {
        guard let sink else { return }
        try sink.finish()
        try sink.file.sync()
        bytesWritten = sink.bytesWritten
    }

    /// The finished file moved onto its name (its folder is synced with the job's other outputs').
    func rename() throws -> OutputFile? {
        try sink?.file.rename()
    }

    /// Everything the sink wrote, removed (a failed or discarded job).
    func discard() { abandon() }

    func abandon() {
        sink?.abandon()
        sink = nil
    }
}
