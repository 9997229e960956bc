import Foundation
import MediaJob
import MediaSinks
import NamedThreads

/// One file output's bounded queue and where its sink writes: never on the input thread. A file job's output has a
/// thread of its own; a live job's writes on a lane of the relay engine's shared file pool (`FileWorkLane`), so a live
/// ladder costs no thread per output (docs/ARCHITECTURE.md §3).
///
/// The sink is opened by the caller; the queue applies back-pressure (the input waits for a full queue), and any
/// error fails the job. RTMP outputs are not workers: they run on the relay engine (`RelayPublishOutput`).
/// `@unchecked Sendable`: the sink is touched only by the output's thread, or by its lane's work, one piece after
/// another, after `start()`; what other threads read is in `lockedState` (under `stateLock`).
final class FileOutput: JobOutput, @unchecked Sendable {
    let index: Int
    let name: String
    let wantsVideo: Bool
    let wantsAudio: Bool
    let isNetwork = false
    private let sink: any PacketSink
    private let queue: BoundedQueue<MediaPacket>
    /// Where the sink writes when it has no thread of its own.
    private let lane: (any FileWorkLane)?
    private let done = DispatchSemaphore(value: 0)
    private struct State {
        var progress = OutputProgress()
        var error: (any Error)?
        var commit = true
        /// The end was asked for (`end`, or `close`'s own): the first decides, a later one changes nothing.
        var ended = false
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

    /// A file output, its sink already opened by the caller; with a `lane`, it writes there instead of on a thread.
    init(index: Int, name: String, sink: any PacketSink, lane: (any FileWorkLane)? = nil) {
        self.lane = lane
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
        if let lane {
            lane.submit { [self] in step { try sink.open() } }
            return
        }
        startNamedThread("sluice-out-\(index)") { [self] in run() }
    }

    // MARK: Input thread

    /// Hands a packet over, waiting while the queue is full. False when the output has failed (the job must stop).
    @discardableResult
    func submit(_ packet: MediaPacket) -> Bool {
        guard let lane else { return queue.push(packet) }
        // The lane writes a batch at a time, as the thread does: a piece of work per packet cost more than the writing.
        let (queued, drainDue) = queue.pushForDrain(packet)
        if drainDue { lane.submit { [self] in step { try writeQueued() } } }
        return queued
    }

    /// Ends the stream without waiting: with `commit` the sink writes its trailer, syncs and closes its file on its
    /// own thread (or lane); without, it discards what it wrote.
    func end(commit: Bool) {
        let first = withState { state in
            guard !state.ended else { return false }
            state.ended = true
            state.commit = commit
            return true
        }
        guard first else { return }
        if commit { queue.close() } else { queue.cancel() }
        if let lane {
            lane.submit { [self] in
                defer { done.signal() }
                step { try writeQueued() }
                complete()
            }
        }
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
        step {
            try sink.open()
            // One queue round trip per batch: waking the thread per packet cost more than the writing.
            while case let batch = queue.popAll(), !batch.isEmpty {
                for packet in batch { try write(packet) }
            }
        }
        complete()
    }

    /// Runs one piece of the output's work, unless an earlier one failed; a failure stops the output: the input's next
    /// `submit` is refused and what was written is removed.
    private func step(_ work: () throws -> Void) {
        guard withState({ $0.error == nil }) else { return }
        do {
            try work()
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

    /// Writes what is queued now (the lane's batch).
    private func writeQueued() throws {
        for packet in queue.drain() { try write(packet) }
    }

    /// The stream has ended: with `commit`, the trailer, the close and the file's sync; without, what was written is
    /// removed.
    private func complete() {
        step {
            guard withState({ $0.commit }) else {
                sink.abandon()
                return
            }
            try sink.finish()
            // Synced here, beside the job's other outputs, rather than one after another when they are published.
            try sink.file.sync()
            let bytes = sink.bytesWritten
            withState {
                $0.progress.bytes = bytes
                $0.progress.status = .finished
            }
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
