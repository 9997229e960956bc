import Foundation
import MediaJob
import MediaSinks

/// One file output's thread and bounded queue: writing never runs on the input thread.
///
/// The sink is opened by the caller; the queue applies back-pressure (the input waits for a full queue), and any
/// error fails the job. RTMP outputs are not workers: they run on the relay engine (`RelayPublishOutput`).
/// `@unchecked Sendable`: the sink is touched only by the worker thread after `start()`; what other threads read is
/// in `lockedState` (under `stateLock`).
final class FileOutput: JobOutput, @unchecked Sendable {
    let index: Int
    let name: String
    let wantsVideo: Bool
    let wantsAudio: Bool
    let isNetwork = false
    private let sink: any PacketSink
    private let queue: BoundedQueue<MediaPacket>
    private let done = DispatchSemaphore(value: 0)
    private struct State {
        var progress = OutputProgress()
        var error: (any Error)?
        var commit = true
    }
    // An NSLock, not Synchronization.Mutex: ThreadSanitizer (a CI gate) cannot see Mutex's futex on Linux.
    private let stateLock = NSLock()
    private var lockedState = State()
    private func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body(&lockedState)
    }

    /// A few seconds of 1080p at 6 Mb/s; more only costs memory, since files push back (a batch in flight
    /// can add as much again).
    static let maxQueuedPackets = 512
    static let maxQueuedBytes = 4 << 20
    /// The writer wakes for this much (or after `BoundedQueue.batchWait`): about 2 s of 30 fps video and audio.
    static let batchPackets = 128
    static let batchBytes = 1 << 20

    /// A file output, its sink already opened by the caller.
    init(index: Int, name: String, sink: any PacketSink) {
        self.index = index
        self.name = name
        self.wantsVideo = sink.wantsVideo
        self.wantsAudio = sink.wantsAudio
        self.sink = sink
        self.queue = BoundedQueue(maxItems: FileOutput.maxQueuedPackets, maxBytes: FileOutput.maxQueuedBytes,
                                  wakeItems: FileOutput.batchPackets, wakeBytes: FileOutput.batchBytes) { $0.data.count }
    }

    var progress: OutputProgress { withState { $0.progress } }
    var error: (any Error)? { withState { $0.error } }

    /// Video packets the sink skipped before its first SPS/PPS (read after `close`).
    var skippedBeforeConfiguration: Int {
        sink.skippedBeforeConfiguration
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "sluice-output-\(index)"
        thread.start()
    }

    // MARK: Input thread

    /// Hands a packet over, waiting while the queue is full. False when the output has failed (the job must stop).
    @discardableResult
    func submit(_ packet: MediaPacket) -> Bool {
        queue.push(packet)
    }

    /// Ends the stream without waiting: with `commit` the sink writes its trailer, syncs and closes its file on its
    /// own thread; without, it discards what it wrote.
    func end(commit: Bool) {
        withState { $0.commit = commit }
        if commit { queue.close() } else { queue.cancel() }
    }

    /// Ends the stream (as `end`) and waits for the thread; returns its error, if any.
    func close(commit: Bool) -> (any Error)? {
        end(commit: commit)
        done.wait()
        return error
    }

    /// Makes a closed file visible under its real name; the codec job syncs its folder.
    func rename() throws -> OutputFile? {
        try sink.file.rename()
    }

    /// Removes what the output wrote (a failed job): its `.part`, and whatever else its format published (HLS segments).
    func discard() {
        sink.abandon()
    }

    // MARK: Worker thread

    private func run() {
        defer { done.signal() }
        do {
            try sink.open()
            // One queue round trip per batch: waking the thread per packet cost more than the writing.
            while case let batch = queue.popAll(), !batch.isEmpty {
                for packet in batch { try write(packet) }
            }
            if withState({ $0.commit }) {
                try sink.finish()
                // Synced here, beside the job's other outputs, rather than one after another when they are published.
                try sink.file.sync()
                let bytes = sink.bytesWritten
                withState {
                    $0.progress.bytes = bytes
                    $0.progress.status = .finished
                }
            } else {
                sink.abandon()
            }
        } catch {
            withState {
                $0.error = error
                $0.progress.status = .failed
                $0.progress.lastError = MediaJobError.describe(error)
            }
            queue.cancel()
            sink.abandon()
        }
    }

    private func write(_ packet: MediaPacket) throws {
        try sink.write(packet)
        let bytes = sink.bytesWritten
        withState {
            $0.progress.packets += 1
            if packet.kind == .video { $0.progress.videoFrames += 1 }
            $0.progress.bytes = bytes
        }
    }
}
