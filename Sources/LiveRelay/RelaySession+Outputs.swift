import Foundation
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// The job's RTMP outputs: the core's actions applied (what each output gets is decided in `RelayCore`), one write
/// per read burst, and reconnects with backoff.
extension RelaySession {
    /// Hands one message of the stream to the core and applies what it decided.
    func relay(_ message: Message, _ kind: FLVTagHead? = nil) {
        core.receive(message, kind: kind, into: &actions)
        apply(actions)
        actions.removeAll(keepingCapacity: true)
    }

    /// Performs the core's actions: encodes for the outputs (written once per read burst, `flushOutputs`), appends to
    /// the archives, counts the drops.
    func apply(_ actions: [RelayCore.Action]) {
        for action in actions {
            switch action {
            case let .send(message, head, index):
                if let output = output(index) {
                    guard let handler = output.handler else { continue }
                    encode(message, head, to: output, handler: handler)
                } else if let output = srtOutput(index) {
                    encode(message, head, to: output)
                } else if let viewer = whepViewer(coreIndex: index) {
                    send(message, to: viewer)
                }
            case let .archive(message, head, index):
                guard let file = links.files.first(where: { $0.index == index }), file.failure == nil else { continue }
                if core.onSlate, file.skipsSlate { continue }
                file.archive(message, head)
            case let .dropped(index):
                output(index)?.progress.drops += 1
                srtOutput(index)?.progress.drops += 1
            }
        }
    }

    func output(_ index: Int) -> OutputLink? {
        links.rtmp.first { $0.index == index }
    }

    /// Tells the core which ready outputs' connections cannot take more now (before a read burst is relayed).
    func noteWritability() {
        for output in links.rtmp where output.ready {
            core.outputWritable(output.index, output.handler?.isWritable ?? false)
        }
        noteSRTWritability()
    }

    /// A ready output starts from the kept key frame instead of waiting for the next one.
    func replayGOP(to output: OutputLink) {
        let replay = core.outputReady(output.index)
        guard !replay.isEmpty else { return }
        apply(replay)
        // Frames that waited for the connection are not the relay's latency.
        output.pendingFrames = 0
        flushOutputs(receivedAt: 0)
    }

    func encode(_ message: Message, _ head: FLVTagHead, to output: OutputLink, handler: RTMPClientHandler) {
        // A codec the destination refused has failed the output (its handler is gone): nothing more is sent.
        guard output.handler === handler, let message = trackView(of: message, for: output, handler: handler),
              destinationTakes(message, output: output, handler: handler) else { return }
        let scratch = chunkScratch.value
        scratch.bytes.removeAll(keepingCapacity: true)
        handler.encode(message, into: &scratch.bytes)
        if output.pending == nil {
            output.pending = handler.channel?.allocator.buffer(capacity: max(scratch.bytes.count, 16 << 10))
        }
        output.pending?.writeBytes(scratch.bytes)
        if output.progress.count(head) { output.pendingFrames += 1 }
    }

    func flushOutputs(receivedAt: UInt64 = 0) {
        for file in links.files { file.flush() }
        flushSRTOutputs()
        if !links.whep.isEmpty { flushViewers() }
        let now = measuresLatency ? RelaySession.now() : 0
        for output in links.rtmp {
            guard let pending = output.pending, let handler = output.handler else { continue }
            output.pending = nil
            output.progress.bytes += Int64(pending.readableBytes)
            handler.write(pending)
            handler.flush()
            if measuresLatency, receivedAt > 0 {
                for _ in 0..<output.pendingFrames { output.latency.record(microseconds: (now &- receivedAt) / 1000) }
            }
            output.pendingFrames = 0
        }
    }

    // MARK: Outputs

    func connect(_ output: OutputLink) {
        guard !end.begun else { return }
        let generation = output.beginConnection()
        core.outputGone(output.index)
        output.checkedCodecs = []
        let endpoint = output.endpoint
        let connection = ClientConnection(mode: .publish, app: endpoint.app, tcURL: endpoint.tcURL, streamKey: endpoint.streamKey, limits: limits)
        let index = output.index
        let handler = RTMPClientHandler(connection: connection) { [self] event in outputEvent(index, generation, event) }
        output.handler = handler
        open(endpoint, handler: handler).whenFailure { [self] error in
            outputLost(index, generation, describeNetworkError(error))
        }
        output.readyTimeout = loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(networkTimeout)))) { [self] in
            guard output.generation == generation, !output.ready else { return }
            outputLost(index, generation, "the server did not start the publish within \(networkTimeout) s")
        }
    }

    func outputEvent(_ index: Int, _ generation: Int, _ event: ClientEvent) {
        guard let output = links.rtmp.first(where: { $0.index == index }), output.generation == generation else { return }
        switch event {
        case .ready:
            output.ready = true
            output.readyTimeout?.cancel()
            output.failures = 0
            output.progress.status = .running
            replayGOP(to: output)
        case .media, .streamEnded: break
        case let .refused(text):
            outputLost(index, generation, "the server refused the publish: \(text)")
        case let .closed(error):
            outputLost(index, generation, error ?? "the server closed the connection")
        }
    }

    /// The output's connection is gone; it reconnects with backoff unless `permanent` (a codec the server refused) or
    /// out of attempts.
    func outputLost(_ index: Int, _ generation: Int, _ error: String, permanent: Bool = false) {
        guard !end.begun, let output = links.rtmp.first(where: { $0.index == index }), output.generation == generation else { return }
        output.generation += 1
        output.readyTimeout?.cancel()
        let handler = output.handler
        output.handler = nil
        output.ready = false
        output.pending = nil
        output.pendingFrames = 0
        handler?.channel?.close(promise: nil)
        retryOrGiveUp(output, error, permanent: permanent) { [self] in connect(output) }
    }

    /// A network output (RTMP or SRT) lost its connection: it gives up when `permanent` (a codec the destination
    /// refused) or out of attempts, and the job fails once every network output gave up; otherwise it reconnects after
    /// its backoff.
    func retryOrGiveUp(_ output: any NetworkOutput, _ error: String, permanent: Bool, reconnect: @escaping () -> Void) {
        output.failures += 1
        output.progress.lastError = error
        if permanent || output.failures > options.reconnect.attempts {
            output.progress.status = .failed
            core.outputGone(output.index, failed: true)
            // A codec the destination refused does not end a job that still archives the stream (the archive is whole);
            // destinations that all gave up reconnecting do.
            if links.rtmp.allSatisfy({ $0.progress.status == .failed }), links.srt.allSatisfy({ $0.progress.status == .failed }),
               !permanent || links.files.isEmpty {
                finish(.failure(.allOutputsFailed(name: options.inputName, lastError: error)))
            }
            return
        }
        output.progress.status = .reconnecting
        core.outputGone(output.index)
        let delay = options.reconnect.delay(beforeAttempt: output.failures)
        output.retry = loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(delay)))) { [self] in
            guard !end.begun else { return }
            output.progress.reconnects += 1
            reconnect()
        }
    }
}

/// What the session's reconnect and give-up rules need of a network output, RTMP (`OutputLink`) or SRT
/// (`SRTOutputLink`). Touched on the session's loop only.
protocol NetworkOutput: AnyObject {
    var index: Int { get }
    var progress: OutputProgress { get set }
    /// Failed connections in a row.
    var failures: Int { get set }
    var retry: Scheduled<Void>? { get set }
}

extension OutputLink: NetworkOutput {}
extension SRTOutputLink: NetworkOutput {}

/// Where one message's chunks are encoded before they join an output's pending buffer. One per event loop, shared by
/// its sessions (they run one at a time there): a buffer per session held a keyframe's worth of bytes each.
final class ChunkScratch {
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(64 << 10)
    }
}
