import Foundation
import MediaJob
import MediaFormats
import NIOCore
import NIOPosix
import RTMP

/// An FLV file output of a live job: tags assembled on the session's loop (an RTMP audio/video body is an
/// FLV tag body as is), written on the engine's thread pool in order, into `OutputFile`'s temporary file,
/// renamed into place only when the job succeeds. Touched on the session's loop only.
final class FileOutputLink: LiveFileOutput {
    let index: Int
    let name: String
    let path: String
    var started = false
    var progress = OutputProgress()
    /// The first error (opening, writing): it fails the job.
    var failure: (any Error)?
    private var file: OutputFile?
    private var pending: [UInt8] = []
    private var chain: EventLoopFuture<Void>
    private var inFlight = 0
    private let pool: NIOThreadPool
    private let backlog: FileBacklog?
    private let loop: any EventLoop

    /// Bytes written but not yet on disk beyond which the disk counts as too slow (the job fails, nothing is dropped).
    static let maxInFlight = 64 << 20

    init(index: Int, name: String, path: String, root: String?, owner: PartOwner?, hasAudio: Bool, hasVideo: Bool,
         pool: NIOThreadPool, backlog: FileBacklog? = nil, loop: any EventLoop) {
        self.index = index
        self.name = name
        self.path = path
        self.pool = pool
        self.backlog = backlog
        self.loop = loop
        takesVideo = hasVideo
        progress.status = .running
        FLVWriter().writeFileHeader(hasAudio: hasAudio, hasVideo: hasVideo, into: &pending)
        let opened = pool.runIfActive(eventLoop: loop) { try OutputFile.create(path: path, root: root, owner: owner) }
        chain = opened.map { _ in }
        opened.assumeIsolated().whenComplete { [self] result in
            switch result {
            case let .success(opened): file = opened
            case let .failure(error): fail(error)
            }
        }
    }

    private func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        progress.status = .failed
        progress.lastError = "\(error)"
    }

    /// Appends one message as an FLV tag (audio 8, video 9, script data 18; other types are no FLV tags). A body FLV
    /// cannot carry (over 2^24 bytes) fails the output, naming it: the archive would not be whole.
    func append(_ message: Message, _ head: FLVTagHead, body: ArraySlice<UInt8>? = nil) {
        guard failure == nil, let type = FLVTagType(rawValue: message.typeID) else { return }
        do {
            try FLVWriter().writeTag(type, timestamp: message.timestamp, data: body ?? message.payload[...], into: &pending)
        } catch {
            fail(FileAccessError(path: path, reason: "a \(type) message of \(message.payload.count) bytes at \(message.timestamp) ms: \(error)"))
            return
        }
        progress.count(head)
    }

    /// Hands what was appended to the thread pool (one write per source read burst).
    func flush() {
        guard !pending.isEmpty, failure == nil else { return }
        let bytes = pending
        pending = []
        pending.reserveCapacity(64 << 10)
        inFlight += bytes.count
        if inFlight > FileOutputLink.maxInFlight {
            fail(FileAccessError(path: path, reason: "the disk does not keep up with the live stream"))
            return
        }
        let pool = pool
        let loop = loop
        chain = chain.assumeIsolated().flatMap { [self] in
            let file = file
            return pool.runIfActive(eventLoop: loop) { try bytes.withUnsafeBytes { try file?.write($0) } }
        }.nonisolated()
        backlog?.add(bytes.count)
        chain.assumeIsolated().whenComplete { [self] result in
            inFlight -= bytes.count
            backlog?.remove(bytes.count)
            switch result {
            case .success: progress.bytes += Int64(bytes.count)
            case let .failure(error): fail(error)
            }
        }
    }

    /// Writes what is left and closes (`commit`; `commit` then moves it onto its name), or removes the temporary
    /// file. The future fails with the output's first error.
    func finish(commit: Bool) -> EventLoopFuture<Void> {
        flush()
        let pool = pool
        let loop = loop
        let finished = chain.assumeIsolated().flatMap { [self] () -> EventLoopFuture<Void> in
            let file = file
            let keep = commit && failure == nil
            return pool.runIfActive(eventLoop: loop) {
                if keep {
                    try file?.closeForWriting()
                } else {
                    file?.discard()
                }
            }
        }
        return finished.flatMapError { [self] error in
            file?.discard()
            return loop.makeFailedFuture(failure ?? error)
        }.flatMapThrowing { [self] in
            if let failure { throw failure }
            progress.status = commit ? .finished : .failed
        }.nonisolated()
    }

    var commit: any LiveFileCommit { ArchiveCommit(file: file) }
    /// FLV carries the slate's configurations like any other (a sequence header mid-file).
    var skipsSlate: Bool { false }
    let takesVideo: Bool

    /// Takes one archived message; metadata without the source's `duration` and `filesize` (`archivedMetadata`).
    func archive(_ message: Message, _ head: FLVTagHead) {
        guard message.typeID == MessageType.dataAMF0.rawValue else {
            append(message, head)
            return
        }
        let body = message.payload.starts(with: Message.setDataFrameName)
            ? message.payload.dropFirst(Message.setDataFrameName.count) : message.payload[...]
        append(message, head, body: RelaySession.archivedMetadata(body)[...])
    }
}

/// An archive's temporary file, committed or removed on the pool.
private struct ArchiveCommit: LiveFileCommit {
    let file: OutputFile?

    func rename() throws -> OutputFile? {
        try file?.rename()
        return file
    }

    func discard() { file?.discard() }
}
