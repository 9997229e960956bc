import Foundation
import MediaPipeline
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// The job's RTMP outputs: each through its keyframe gate, the group of pictures kept for late joiners, one write
/// per read burst, and reconnects with backoff.
extension RelaySession {
    func offer(_ message: Message, to output: OutputLink, receivedAt: UInt64) {
        guard let handler = output.handler else { return }
        let isFrame = message.isVideoFrame || message.isAudioFrame
        // A destination that cannot keep up: drop to the next keyframe (and resend the headers there).
        if !handler.isWritable {
            output.position = .waitingForStart
            if isFrame { output.progress.drops += 1 }
            return
        }
        switch output.position {
        case .waitingForStart:
            guard isFrame else { return }
            let isStart = sawVideo ? message.isVideoKeyframe : message.isAudioFrame
            guard isStart else {
                output.progress.drops += 1
                return
            }
            for var header in [metadata].compactMap({ $0 }) + sequenceHeaders {
                header.timestamp = message.timestamp
                encode(header, to: output, handler: handler, receivedAt: receivedAt)
            }
            encode(message, to: output, handler: handler, receivedAt: receivedAt)
            output.position = .running(videoStarted: message.isVideoKeyframe)
        case let .running(videoStarted):
            if message.isVideoFrame && !videoStarted {
                guard message.isVideoKeyframe else {
                    output.progress.drops += 1
                    return
                }
                for var header in videoHeaders.sorted(by: { $0.key < $1.key }).map(\.value) {
                    header.timestamp = message.timestamp
                    encode(header, to: output, handler: handler, receivedAt: receivedAt)
                }
                output.position = .running(videoStarted: true)
            }
            encode(message, to: output, handler: handler, receivedAt: receivedAt)
        }
    }

    // MARK: Group of pictures for outputs that start late

    /// Whether an output is not relaying yet (connecting, reconnecting, or waiting for a keyframe): only then
    /// the current group of pictures is kept, so it can start at once from its keyframe.
    var someOutputWaits: Bool {
        outputs.contains { output in
            guard output.progress.status != .failed else { return false }
            if case .running = output.position, output.ready { return false }
            return true
        }
    }

    /// Keeps `message` in the current group of pictures (from its keyframe), bounded in bytes.
    func remember(_ message: Message) {
        guard someOutputWaits else {
            if !gop.isEmpty { gop.removeAll() }
            gopBytes = 0
            return
        }
        let isStart = sawVideo ? message.isVideoKeyframe : message.isAudioFrame
        if isStart {
            gop.removeAll(keepingCapacity: true)
            gopBytes = 0
        } else if gop.isEmpty {
            return
        }
        gopBytes += message.payload.count
        guard gopBytes <= RelaySession.maxGOPBytes else {
            gop.removeAll()
            gopBytes = 0
            return
        }
        gop.append(message)
    }

    /// A ready output starts from the kept keyframe instead of waiting for the next one.
    func replayGOP(to output: OutputLink) {
        guard !gop.isEmpty else { return }
        for message in gop { offer(message, to: output, receivedAt: 0) }
        // Frames that waited for the connection are not the relay's latency.
        output.pendingFrames = 0
        flushOutputs(receivedAt: 0)
    }

    func encode(_ message: Message, to output: OutputLink, handler: RTMPClientHandler, receivedAt: UInt64) {
        // A codec the destination refused has failed the output (its handler is gone): nothing more is sent.
        guard output.handler === handler, let message = trackView(of: message, for: output, handler: handler),
              destinationTakes(message, output: output, handler: handler) else { return }
        scratch.removeAll(keepingCapacity: true)
        handler.encode(message, into: &scratch)
        if output.pending == nil {
            output.pending = handler.channel?.allocator.buffer(capacity: max(scratch.count, 16 << 10))
        }
        output.pending?.writeBytes(scratch)
        if message.isVideoFrame || message.isAudioFrame {
            output.progress.packets += 1
            output.pendingFrames += 1
            if message.isVideoFrame { output.progress.videoFrames += 1 }
        }
        _ = receivedAt
    }

    func flushOutputs(receivedAt: UInt64 = 0) {
        for file in fileOutputs { file.flush() }
        let now = measuresLatency ? RelaySession.now() : 0
        for output in outputs {
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
        guard !ending else { return }
        output.generation += 1
        let generation = output.generation
        output.ready = false
        output.position = .waitingForStart
        output.checkedCodecs = []
        let endpoint = output.endpoint
        let connection = ClientConnection(mode: .publish, app: endpoint.app, tcURL: endpoint.tcURL, streamKey: endpoint.streamKey, limits: limits)
        let index = output.index
        let handler = RTMPClientHandler(connection: connection) { [self] event in outputEvent(index, generation, event) }
        output.handler = handler
        open(endpoint, handler: handler).whenFailure { [self] error in
            outputLost(index, generation, describeNetworkError(error))
        }
        output.readyTimeout = loop.scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(networkTimeout)))) { [self] in
            guard output.generation == generation, !output.ready else { return }
            outputLost(index, generation, "the server did not start the publish within \(networkTimeout) s")
        }
    }

    func outputEvent(_ index: Int, _ generation: Int, _ event: ClientEvent) {
        guard let output = outputs.first(where: { $0.index == index }), output.generation == generation else { return }
        switch event {
        case .ready:
            output.ready = true
            output.readyTimeout?.cancel()
            output.failures = 0
            output.position = .waitingForStart
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
        guard !ending, let output = outputs.first(where: { $0.index == index }), output.generation == generation else { return }
        output.generation += 1
        output.readyTimeout?.cancel()
        let handler = output.handler
        output.handler = nil
        output.ready = false
        output.pending = nil
        output.pendingFrames = 0
        handler?.channel?.close(promise: nil)
        output.failures += 1
        output.progress.lastError = error
        if permanent || output.failures > options.reconnect.attempts {
            output.progress.status = .failed
            // A codec the destination refused does not end a job that still archives the stream (the archive is whole);
            // destinations that all gave up reconnecting do.
            if outputs.allSatisfy({ $0.progress.status == .failed }), !permanent || fileOutputs.isEmpty {
                finish(.failure(.allOutputsFailed(name: options.inputName, lastError: error)))
            }
            return
        }
        output.progress.status = .reconnecting
        let delay = options.reconnect.delay(beforeAttempt: output.failures)
        output.retry = loop.scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(delay)))) { [self] in
            guard !ending else { return }
            output.progress.reconnects += 1
            connect(output)
        }
    }
}
