import Foundation
import Synchronization

/// Counters of one output, readable from any thread.
public struct OutputProgress: Sendable, Equatable {
    public var packets: Int = 0
    public var videoFrames: Int = 0
    public var bytes: Int64 = 0
    public var failed = false
}

/// One output's thread and bounded queue: a slow or failing output never runs on the input thread.
/// `@unchecked Sendable`: `sink` is touched only by the worker thread after `start()`; shared state is in `state`.
final class OutputWorker: @unchecked Sendable {
    let index: Int
    let name: String
    let sink: any PacketSink
    private let queue: BoundedQueue<MediaPacket>
    private let done = DispatchSemaphore(value: 0)
    private struct State {
        var progress = OutputProgress()
        var error: (any Error)?
        var commit = true
    }
    private let state = Mutex(State())

    /// A few seconds of 1080p at 6 Mb/s; more only costs memory, since files push back (a batch in flight
    /// can add as much again).
    static let maxQueuedPackets = 512
    static let maxQueuedBytes = 4 << 20

    init(index: Int, name: String, sink: any PacketSink) {
        self.index = index
        self.name = name
        self.sink = sink
        self.queue = BoundedQueue(maxItems: OutputWorker.maxQueuedPackets, maxBytes: OutputWorker.maxQueuedBytes) { $0.data.count }
    }

    var progress: OutputProgress { state.withLock { $0.progress } }
    var error: (any Error)? { state.withLock { $0.error } }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "sluice-output-\(index)"
        thread.start()
    }

    private func run() {
        defer { done.signal() }
        do {
            try sink.open()
            while true {
                let batch = queue.popAll()
                if batch.isEmpty { break }
                var videoFrames = 0
                for packet in batch {
                    try sink.write(packet)
                    if packet.kind == .video { videoFrames += 1 }
                }
                let bytes = sink.bytesWritten
                state.withLock {
                    $0.progress.packets += batch.count
                    $0.progress.videoFrames += videoFrames
                    $0.progress.bytes = bytes
                }
            }
            if state.withLock({ $0.commit }) {
                try sink.finish()
                let bytes = sink.bytesWritten
                state.withLock { $0.progress.bytes = bytes }
            } else {
                sink.abandon()
            }
        } catch {
            state.withLock {
                $0.error = error
                $0.progress.failed = true
            }
            queue.cancel()
            sink.abandon()
        }
    }

    /// Hands a packet over; false once this output has failed (the packet is not queued).
    @discardableResult
    func submit(_ packet: MediaPacket) -> Bool { queue.push(packet) }

    /// Ends the stream: with `commit` the sink writes its trailer; without, it discards what it wrote.
    /// Waits for the thread and returns its error, if any.
    func close(commit: Bool) -> (any Error)? {
        state.withLock { $0.commit = commit }
        if commit { queue.close() } else { queue.cancel() }
        done.wait()
        return error
    }
}
