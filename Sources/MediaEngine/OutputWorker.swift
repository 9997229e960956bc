import Foundation

/// Where an output is in its life.
public enum OutputStatus: String, Sendable, Equatable {
    /// A network output opening its first connection.
    case connecting
    case running
    /// A network output lost its connection and is waiting or trying again.
    case reconnecting
    /// Closed cleanly.
    case finished
    /// Failed: a file output fails the job; a network output that ran out of attempts is left behind.
    case failed
}

/// Counters of one output, readable from any thread.
public struct OutputProgress: Sendable, Equatable {
    public var packets: Int = 0
    public var videoFrames: Int = 0
    /// Bytes written, over every connection of a network output.
    public var bytes: Int64 = 0
    /// Packets never written: dropped on overflow, or while a network output reconnected.
    public var drops: Int = 0
    /// Connection attempts after the first (a network output).
    public var reconnects: Int = 0
    /// The latest error, even one the output recovered from.
    public var lastError: String?
    public var status: OutputStatus = .running
    public var failed: Bool { status == .failed }

    public init() {}
}

/// One output's thread and bounded queue: a slow or failing output never runs on the input thread.
///
/// A file output is opened up front and applies back-pressure (the input waits for a full queue); any
/// error fails the job. A network output connects on its own thread, never makes the input wait (on
/// overflow it drops to the next keyframe), and reconnects with backoff after an error: each new
/// connection gets a fresh sink (FLV header, metadata, current sequence headers) and starts at a keyframe.
/// `@unchecked Sendable`: the sink and connection state are touched only by the worker thread after
/// `start()`; what other threads read is in `lockedState` (under `stateLock`), and `gate` is touched only by
/// the input thread (`submit`).
final class OutputWorker: @unchecked Sendable {
    /// Opens a network target and makes its sink for the stream's current configuration.
    typealias Connector = (VideoConfiguration?, AudioConfiguration?) throws -> any PacketSink

    private enum Mode {
        case file(any PacketSink)
        /// `timeout`: seconds a connect or one write may block before the connection counts as lost.
        case network(Connector, ReconnectPolicy, Interrupter, timeout: Double?)
    }

    let index: Int
    let name: String
    let wantsVideo: Bool
    let wantsAudio: Bool
    private let mode: Mode
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
    /// The sink of the current (or last) connection; written by the worker thread, read once it has finished.
    private var currentSink: (any PacketSink)?
    /// The input thread's alone (`submit`): the worker thread reading it while `submit` drops was a data race.
    private var gate: KeyframeDropGate
    /// Touched by the worker thread only; read after it has finished.
    private(set) var latency = LatencyHistogram()
    private let measuresLatency: Bool

    /// A few seconds of 1080p at 6 Mb/s; more only costs memory, since files push back (a batch in flight
    /// can add as much again).
    static let maxQueuedPackets = 512
    static let maxQueuedBytes = 4 << 20

    /// A file output, its sink already opened by the caller.
    init(index: Int, name: String, sink: any PacketSink, measuresLatency: Bool = false) {
        self.index = index
        self.name = name
        self.wantsVideo = sink.wantsVideo
        self.wantsAudio = sink.wantsAudio
        self.mode = .file(sink)
        self.queue = OutputWorker.makeQueue()
        self.gate = KeyframeDropGate(hasVideo: sink.wantsVideo)
        self.measuresLatency = measuresLatency
        currentSink = sink
    }

    /// A network output: `connect` runs on the worker thread, again after every lost connection.
    /// - Parameters:
    ///   - video: the video configuration at the start (nil: the output takes no video).
    ///   - audio: the audio configuration at the start (nil: no audio).
    ///   - interrupter: this output's own (a dead destination must not stop the others); `close`
    ///     cancels it to abandon a connect in progress.
    ///   - timeout: seconds a connect or one write may block (nil: no limit).
    init(index: Int, name: String, video: VideoConfiguration?, audio: AudioConfiguration?, policy: ReconnectPolicy,
         interrupter: Interrupter, timeout: Double?, measuresLatency: Bool = false, connect: @escaping Connector) {
        self.index = index
        self.name = name
        self.wantsVideo = video != nil
        self.wantsAudio = audio != nil
        self.mode = .network(connect, policy, interrupter, timeout: timeout)
        self.queue = OutputWorker.makeQueue()
        self.gate = KeyframeDropGate(hasVideo: video != nil)
        self.measuresLatency = measuresLatency
        self.latestVideo = video
        self.latestAudio = audio
        withState { $0.progress.status = .connecting }
    }

    private static func makeQueue() -> BoundedQueue<MediaPacket> {
        BoundedQueue(maxItems: maxQueuedPackets, maxBytes: maxQueuedBytes) { $0.data.count }
    }

    var progress: OutputProgress { withState { $0.progress } }
    var error: (any Error)? { withState { $0.error } }
    var isNetwork: Bool {
        if case .network = mode { return true }
        return false
    }
    /// A network output that ran out of attempts: it takes no more packets, and the job goes on.
    var hasGivenUp: Bool { isNetwork && progress.failed }

    /// Video packets the last sink skipped before its first SPS/PPS (read after `close`).
    var skippedBeforeConfiguration: Int {
        (currentSink as? FLVSink)?.skippedBeforeConfiguration ?? 0
    }

    func start() {
        let thread = Thread { [self] in
            switch mode {
            case let .file(sink): runFile(sink)
            case let .network(connect, policy, interrupter, timeout): runNetwork(connect, policy, interrupter, timeout)
            }
        }
        thread.name = "sluice-output-\(index)"
        thread.start()
    }

    // MARK: Input thread

    /// Hands a packet over. False only when a file output has failed (the job must stop); a network
    /// output that cannot take the packet drops it and counts the drop.
    @discardableResult
    func submit(_ packet: MediaPacket) -> Bool {
        guard isNetwork else { return queue.push(packet) }
        guard let admitted = gate.admit(packet) else {
            recordDrops()
            return true
        }
        if queue.offer(admitted) == .full {
            gate.overflowed(with: admitted)
            recordDrops()
        }
        return true
    }

    private var gateDrops = 0
    private func recordDrops() {
        let added = gate.drops - gateDrops
        gateDrops = gate.drops
        withState { $0.progress.drops += added }
    }

    /// Ends the stream: with `commit` the sink writes its trailer; without, it discards what it wrote.
    /// Waits for the thread and returns its error, if any (a network output that gave up returns nil:
    /// its failure is in `progress`).
    func close(commit: Bool) -> (any Error)? {
        let status = withState {
            $0.commit = commit
            return $0.progress.status
        }
        if commit { queue.close() } else { queue.cancel() }
        // A reconnect in progress (or its backoff) has nothing left to deliver: stop it now. A first
        // connect still carries the whole stream, so it may finish.
        if case let .network(_, _, interrupter, _) = mode, status == .reconnecting {
            interrupter.cancel()
        }
        done.wait()
        return error
    }

    /// Makes a closed file visible under its real name (nothing to do for a network output).
    func publish() throws {
        if case let .file(sink) = mode { try sink.writer.publish() }
    }

    /// Removes a file output's `.part` (a failed job).
    func discard() {
        if case let .file(sink) = mode { sink.writer.discard() }
    }

    // MARK: Worker thread

    private func runFile(_ sink: any PacketSink) {
        defer { done.signal() }
        do {
            try sink.open()
            // One queue round trip per batch: waking the thread per packet cost more than the writing.
            while case let batch = queue.popAll(), !batch.isEmpty {
                for packet in batch { try write(packet, to: sink, bytesBefore: 0) }
            }
            if withState({ $0.commit }) {
                try sink.finish()
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
                $0.progress.lastError = PipelineError.describe(error)
            }
            queue.cancel()
            sink.abandon()
        }
    }

    /// Configurations as of the newest packet the worker has seen, written or not: a new connection's
    /// sink starts with these.
    private var latestVideo: VideoConfiguration?
    private var latestAudio: AudioConfiguration?

    private func track(_ packet: MediaPacket) {
        if let changed = packet.videoConfiguration { latestVideo = changed }
        if let changed = packet.audioConfiguration { latestAudio = changed }
    }

    private func runNetwork(_ connect: Connector, _ policy: ReconnectPolicy, _ interrupter: Interrupter, _ timeout: Double?) {
        defer { done.signal() }
        var bytesBefore: Int64 = 0
        var failures = 0
        // After a loss, what was queued is stale: the new connection starts at the next keyframe.
        var awaitingKeyframe = false
        while true {
            var sink: (any PacketSink)?
            do {
                interrupter.arm(seconds: timeout)
                let opened = try connect(latestVideo, latestAudio)
                sink = opened
                currentSink = opened
                try opened.open()
                withState { $0.progress.status = .running }
                failures = 0
                // Latency is the steady state's: packets that waited for this connection to open are not counted.
                let connectedAt = Interrupter.now()
                // What this connection's sink has been told; newer configurations ride on the next packet.
                var sinkVideo = latestVideo
                var sinkAudio = latestAudio
                while var packet = queue.pop() {
                    track(packet)
                    if awaitingKeyframe {
                        guard KeyframeDropGate.isResumePoint(packet, hasVideo: wantsVideo) else {
                            withState { $0.progress.drops += 1 }
                            continue
                        }
                        awaitingKeyframe = false
                    }
                    if packet.kind == .video, latestVideo != sinkVideo {
                        packet.videoConfiguration = latestVideo
                        sinkVideo = latestVideo
                    }
                    if packet.kind == .audio, latestAudio != sinkAudio {
                        packet.audioConfiguration = latestAudio
                        sinkAudio = latestAudio
                    }
                    interrupter.arm(seconds: timeout)
                    try write(packet, to: opened, bytesBefore: bytesBefore, measuredSince: connectedAt)
                }
                interrupter.arm(seconds: timeout)
                if withState({ $0.commit }) {
                    try opened.finish()
                    let bytes = bytesBefore + opened.bytesWritten
                    withState {
                        $0.progress.bytes = bytes
                        $0.progress.status = .finished
                    }
                } else {
                    opened.abandon()
                }
                return
            } catch {
                if let sink {
                    bytesBefore += sink.bytesWritten
                    sink.abandon()
                }
                failures += 1
                // A job that has ended (or a cancelled connect) is not worth another try.
                let givesUp = failures > policy.attempts || queue.isClosed || interrupter.isCancelled
                withState {
                    $0.progress.lastError = PipelineError.describe(error)
                    $0.progress.bytes = bytesBefore
                    $0.progress.status = givesUp ? .failed : .reconnecting
                }
                if givesUp {
                    queue.cancel()
                    return
                }
                // Interruptible: a job that ends during the backoff stops it.
                let closed = queue.waitForClose(seconds: policy.delay(beforeAttempt: failures))
                discardQueued()
                awaitingKeyframe = true
                if closed {
                    withState { $0.progress.status = .failed }
                    return
                }
                withState { $0.progress.reconnects += 1 }
            }
        }
    }

    /// Drops what piled up during a backoff, keeping the configurations it carried.
    private func discardQueued() {
        let stale = queue.drain()
        for packet in stale { track(packet) }
        if !stale.isEmpty { withState { $0.progress.drops += stale.count } }
    }

    /// Writes one packet; its latency is recorded when it arrived at the input after `measuredSince`.
    private func write(_ packet: MediaPacket, to sink: any PacketSink, bytesBefore: Int64, measuredSince: UInt64 = 0) throws {
        try sink.write(packet)
        if measuresLatency && packet.receivedAt > 0 && packet.receivedAt >= measuredSince {
            latency.record(microseconds: (Interrupter.now() &- packet.receivedAt) / 1000)
        }
        let bytes = bytesBefore + sink.bytesWritten
        withState {
            $0.progress.packets += 1
            if packet.kind == .video { $0.progress.videoFrames += 1 }
            $0.progress.bytes = bytes
        }
    }
}
