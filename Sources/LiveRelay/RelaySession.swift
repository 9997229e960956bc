import Foundation
import MediaEngine
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// One network output of a live job: a publish connection, reconnected with backoff, fed by the session.
/// `@unchecked Sendable`: touched only on the session's event loop.
final class OutputLink: @unchecked Sendable {
    /// Where a (re)started connection is in the stream.
    enum Position {
        /// Nothing sent since the connection became ready or since an overflow: waiting for a keyframe.
        case waitingForStart
        /// Relaying; `videoStarted` once a keyframe went out (audio may start first in a stream with no video yet).
        case running(videoStarted: Bool)
    }

    let index: Int
    let name: String
    let endpoint: RTMPEndpoint
    var handler: RTMPClientHandler?
    /// Bumped per connection: events of an abandoned connection are ignored.
    var generation = 0
    var ready = false
    var position = Position.waitingForStart
    var progress = OutputProgress()
    /// Failed connections in a row.
    var failures = 0
    var latency = LatencyHistogram()
    /// Chunks encoded since the last flush, written once per source read burst.
    var pending: ByteBuffer?
    var pendingFrames = 0
    var readyTimeout: Scheduled<Void>?
    var retry: Scheduled<Void>?
    /// When the connection's send buffer last filled up (monotonic ns), 0 while it drains.
    var unwritableSince: UInt64 = 0

    init(index: Int, name: String, endpoint: RTMPEndpoint) {
        self.index = index
        self.name = name
        self.endpoint = endpoint
        progress.status = .connecting
    }
}

/// One live job on one event loop: its source (a pull, or the publisher the ingest listener routes to it)
/// and every output, so nothing on the media path takes a lock or hops threads (an ingest publisher's
/// messages hop once per read burst when its connection landed on another loop).
///
/// `@unchecked Sendable`: every mutable property is touched on `loop` only (handlers and timers run there).
final class RelaySession: @unchecked Sendable {
    enum Source {
        case pull(RTMPEndpoint)
        case listen(RTMPEndpoint)
    }

    let loop: any EventLoop
    let engine: LiveEngine
    let options: PipelineOptions
    let interrupter: Interrupter
    let source: Source
    private let progressHandler: @Sendable (PipelineProgress) -> Void
    private let completion: @Sendable (Result<PipelineResult, PipelineError>) -> Void
    private let inputTimeout: Double
    private let networkTimeout: Double
    private let started: UInt64
    private let measuresLatency = LatencyReport.isEnabled

    private var outputs: [OutputLink] = []
    private var fileOutputs: [FileOutputLink] = []
    private var timeline = LiveTimeline()
    private var metadata: Message?
    private var videoHeader: Message?
    private var audioHeader: Message?
    private var sawVideo = false
    private var progress = PipelineProgress()
    private var lastData: UInt64
    private var lastProgress: UInt64
    private var everData = false
    private var lastEndClean = false
    private var refusals: [PublisherRefusal] = []
    private var ending = false
    private var completed = false
    private var cancelled = false
    private var reachedMaxDuration = false
    private var tick: RepeatedTask?
    private var scratch: [UInt8] = []
    /// The current group of pictures, kept only while an output waits to start (see `remember`).
    private var gop: [Message] = []
    private var gopBytes = 0
    /// A few seconds of a high-bitrate stream; a longer group is not kept (the output waits for the next keyframe).
    static let maxGOPBytes = 4 << 20

    // Pull source.
    private var sourceHandler: RTMPClientHandler?
    private var sourceGeneration = 0
    private var sourceFailures = 0
    /// Why the pull's latest connection failed or was refused (a TLS verification, a refused play), for the
    /// message when the input times out.
    private var lastSourceError: String?
    private var sourceConnections = 0
    private var sourceStalledClose = false
    private var sourceRetry: Scheduled<Void>?

    // Listen source.
    var route: IngestRoute?
    private var publisherChannel: (any Channel)?
    private var publisherToken = 0

    init(engine: LiveEngine, loop: any EventLoop, options: PipelineOptions, source: Source, interrupter: Interrupter,
         progress: @escaping @Sendable (PipelineProgress) -> Void,
         completion: @escaping @Sendable (Result<PipelineResult, PipelineError>) -> Void) {
        self.engine = engine
        self.loop = loop
        self.options = options
        self.source = source
        self.interrupter = interrupter
        self.progressHandler = progress
        self.completion = completion
        inputTimeout = max(options.inputTimeout ?? 10, 0.1)
        networkTimeout = max(options.networkTimeout ?? 10, 0.1)
        started = NIODeadline.now().uptimeNanoseconds
        lastData = started
        lastProgress = started
        scratch.reserveCapacity(64 << 10)
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    // MARK: Start

    /// On `loop`: opens every output and the source, and starts the housekeeping tick.
    func begin(outputs endpoints: [(Int, String, RTMPEndpoint)], files: [(Int, String, String)] = []) {
        loop.preconditionInEventLoop()
        outputs = endpoints.map { OutputLink(index: $0.0, name: $0.1, endpoint: $0.2) }
        fileOutputs = files.map { index, name, path in
            FileOutputLink(index: index, name: name, path: path, root: options.fileRoots?.output, owner: options.partOwner,
                           hasAudio: options.audio != .drop, hasVideo: options.video != .drop, pool: engine.pool, loop: loop)
        }
        for output in outputs { connect(output) }
        if case .pull = source { connectSource() }
        // Cancel, stalls and dead destinations are looked at 4 times a second: each tick wakes the event loop, and
        // with hundreds of sessions per loop the ticks are a visible share of its wake-ups.
        tick = loop.scheduleRepeatedTask(initialDelay: RelaySession.housekeepingInterval, delay: RelaySession.housekeepingInterval) { [self] _ in housekeeping() }
    }

    /// How often `housekeeping` runs.
    static let housekeepingInterval = TimeAmount.milliseconds(250)

    /// The input sent nothing for the timeout: with the pull's last connection error when there was one.
    private func inputTimedOut() -> PipelineError {
        guard let lastSourceError else { return .inputTimedOut(name: options.inputName, seconds: inputTimeout) }
        return .inputLost(name: options.inputName, seconds: inputTimeout, lastError: lastSourceError)
    }

    private func housekeeping() {
        guard !ending else { return }
        if interrupter.isCancelled {
            cancelled = true
            finish(.success(()))
            return
        }
        if let broken = fileOutputs.first(where: { $0.failure != nil }), let error = broken.failure {
            finish(.failure(.output(index: broken.index, name: broken.name, error)))
            return
        }
        let now = RelaySession.now()
        let quiet = Double(now &- lastData) / 1e9
        if quiet >= inputTimeout {
            if !everData {
                if let refusal = refusals.last {
                    finish(.failure(.publisherRefused(name: options.inputName, refusal)))
                } else {
                    finish(.failure(inputTimedOut()))
                }
            } else if lastEndClean {
                finish(.success(()))
            } else {
                finish(.failure(inputTimedOut()))
            }
            return
        }
        // A pull that is connected but silent for half the timeout is dropped and opened again.
        if case .pull = source, quiet >= inputTimeout / 2, let handler = sourceHandler, !sourceStalledClose, everData || quiet >= networkTimeout {
            sourceStalledClose = true
            handler.channel?.close(promise: nil)
        }
        // A destination that takes nothing for the network timeout is lost (a dead peer behind a full window).
        for output in outputs where output.ready {
            guard let handler = output.handler, !handler.isWritable else {
                output.unwritableSince = 0
                continue
            }
            if output.unwritableSince == 0 {
                output.unwritableSince = now
            } else if Double(now &- output.unwritableSince) / 1e9 >= networkTimeout {
                output.unwritableSince = 0
                outputLost(output.index, output.generation, "the destination accepted no data for \(networkTimeout.formatted(.number.grouping(.never))) s")
            }
        }
        if Double(now &- lastProgress) / 1e9 >= 1 {
            lastProgress = now
            progressHandler(snapshot())
        }
    }

    private func snapshot() -> PipelineProgress {
        var snapshot = progress
        snapshot.elapsed = Double(RelaySession.now() &- started) / 1e9
        snapshot.outputs = (outputs.map { ($0.index, $0.progress) } + fileOutputs.map { ($0.index, $0.progress) })
            .sorted { $0.0 < $1.0 }.map(\.1)
        snapshot.inputReconnects = max(sourceConnections - 1, 0)
        return snapshot
    }

    // MARK: Bootstrap

    /// Connects `handler` to `endpoint` (through TLS for rtmps); the future fails when the connection cannot be made.
    private func open(_ endpoint: RTMPEndpoint, handler: RTMPClientHandler) -> EventLoopFuture<any Channel> {
        var tls: NIOSSLContext?
        if endpoint.secure {
            switch engine.tlsContext() {
            case let .success(context): tls = context
            case let .failure(error): return loop.makeFailedFuture(error)
            }
        }
        let bootstrap = bootstrap(endpoint, handler: handler, tls: tls)
        // An address literal needs no resolver (whose blocking lookups run on a thread pool of their own).
        if let address = try? SocketAddress(ipAddress: endpoint.host, port: endpoint.port) {
            return bootstrap.connect(to: address)
        }
        return bootstrap.connect(host: endpoint.host, port: endpoint.port)
    }

    private func bootstrap(_ endpoint: RTMPEndpoint, handler: RTMPClientHandler, tls: NIOSSLContext?) -> ClientBootstrap {
        let bound = NIOLoopBound(handler, eventLoop: loop)
        let host = endpoint.host
        return ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(Int64(ClockConversion.nanoseconds(networkTimeout))))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
            .channelInitializer { channel in
                do {
                    if let tls {
                        let context = tls
                        // SNI carries a name, never an address literal.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(bound.value)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
    }

    private var limits: Limits { Limits() }

    // MARK: Pull source

    private func connectSource() {
        guard case let .pull(endpoint) = source, !ending else { return }
        sourceGeneration += 1
        let generation = sourceGeneration
        sourceConnections += 1
        sourceStalledClose = false
        timeline.beginSegment()
        let connection = ClientConnection(mode: .play, app: endpoint.app, tcURL: endpoint.tcURL, streamKey: endpoint.streamKey, limits: limits)
        let handler = RTMPClientHandler(connection: connection) { [self] event in sourceEvent(generation, event) }
        sourceHandler = handler
        open(endpoint, handler: handler).whenFailure { [self] error in
            if generation == sourceGeneration { lastSourceError = describeNetworkError(error) }
            sourceLost(generation, clean: false)
        }
    }

    private func sourceEvent(_ generation: Int, _ event: ClientEvent) {
        guard generation == sourceGeneration else { return }
        switch event {
        case .ready: break
        case let .media(messages, receivedAt, bytes): deliver(messages, receivedAt: receivedAt, bytes: bytes)
        case let .refused(reason):
            lastSourceError = "the server refused to play: \(reason)"
            sourceHandler?.channel?.close(promise: nil)
        case .streamEnded:
            lastEndClean = true
            sourceHandler?.channel?.close(promise: nil)
        case let .closed(error):
            if !lastEndClean, let error, lastSourceError?.hasPrefix("the server refused") != true { lastSourceError = error }
            sourceLost(generation, clean: lastEndClean)
        }
    }

    private func sourceLost(_ generation: Int, clean: Bool) {
        guard generation == sourceGeneration, !ending else { return }
        sourceGeneration += 1
        sourceHandler = nil
        lastEndClean = clean
        sourceFailures += 1
        let delay = options.reconnect.delay(beforeAttempt: sourceFailures)
        sourceRetry = loop.scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(delay)))) { [self] in connectSource() }
    }

    // MARK: Listen source (called by the ingest handler, hopped onto `loop`)

    /// A publisher was routed here and accepted; `token` names its connection in the calls that follow.
    func publisherAttached(_ token: Int, channel: any Channel) {
        publisherToken = token
        publisherChannel = channel
        sourceConnections += 1
        timeline.beginSegment()
        if ending { channel.close(promise: nil) }
    }

    /// Media from the publisher `token`, one read burst.
    func publisherMedia(_ token: Int, _ messages: [Message], receivedAt: UInt64, bytes: Int) {
        guard token == publisherToken else { return }
        deliver(messages, receivedAt: receivedAt, bytes: bytes)
    }

    /// The publisher `token` unpublished or disconnected.
    func publisherDetached(_ token: Int, clean: Bool) {
        guard token == publisherToken else { return }
        publisherToken = 0
        publisherChannel = nil
        lastEndClean = clean
    }

    /// The listener could not be opened, or another job holds the same application and key.
    func failToListen(_ reason: String) {
        fail(.liveInput(name: options.inputName, reason: reason))
    }

    /// Ends the job with `error` (outputs closed first).
    func fail(_ error: PipelineError) {
        finish(.failure(error))
    }

    /// A publisher asked for this job's port but another application or key.
    func recordRefusal(_ refusal: PublisherRefusal) {
        refusals.append(refusal)
        if refusals.count > 16 { refusals.removeFirst() }
    }

    // MARK: Media path

    private func deliver(_ messages: [Message], receivedAt: UInt64, bytes: Int) {
        progress.bytesIn += Int64(bytes)
        guard !messages.isEmpty, !ending else { return }
        lastData = RelaySession.now()
        everData = true
        lastEndClean = false
        sourceFailures = 0
        lastSourceError = nil
        let maxMilliseconds = options.maxDuration.map { ClockConversion.milliseconds($0) }
        for var message in messages {
            switch message.typeID {
            // An audio or video message too short for its FLV tag header carries no frame, and readers refuse the
            // tag (FFmpeg's and ours): never forwarded. AVC video needs 5 bytes (frame type/codec, packet type,
            // composition time), AAC audio 2.
            case MessageType.audio.rawValue: if options.audio == .drop || !message.hasAudioTagHeader { continue }
            case MessageType.video.rawValue: if options.video == .drop || !message.hasVideoTagHeader { continue }
            case MessageType.dataAMF0.rawValue: break
            default: continue
            }
            let time = timeline.map(typeID: message.typeID, timestamp: message.timestamp)
            message.timestamp = UInt32(truncatingIfNeeded: time)
            let isFrame = message.isVideoFrame || message.isAudioFrame
            if isFrame, let maxMilliseconds, time >= maxMilliseconds {
                reachedMaxDuration = true
                flushOutputs()
                finish(.success(()))
                return
            }
            if message.typeID == MessageType.dataAMF0.rawValue {
                guard let normalized = message.asSetDataFrame() else {
                    forward(message, receivedAt: receivedAt)
                    continue
                }
                metadata = normalized
                forward(normalized, receivedAt: receivedAt)
                continue
            }
            if message.isVideoSequenceHeader {
                videoHeader = message
                sawVideo = true
            } else if message.isAudioSequenceHeader {
                audioHeader = message
            } else if message.isVideoFrame {
                sawVideo = true
                progress.videoFrames += 1
            } else if message.isAudioFrame {
                progress.audioFrames += 1
            }
            if isFrame {
                progress.mediaTime = Double(time) / 1000
                remember(message)
            }
            forward(message, receivedAt: receivedAt)
        }
        flushOutputs(receivedAt: receivedAt)
    }

    private func forward(_ message: Message, receivedAt: UInt64) {
        for output in outputs where output.ready {
            offer(message, to: output, receivedAt: receivedAt)
        }
        for file in fileOutputs where file.failure == nil {
            if !file.started {
                guard sawVideo ? message.isVideoKeyframe : message.isAudioFrame else { continue }
                for header in [metadata, videoHeader, audioHeader] {
                    guard var header else { continue }
                    header.timestamp = message.timestamp
                    append(header, to: file)
                }
                file.started = true
            }
            append(message, to: file)
        }
    }

    /// A file takes onMetaData without the @setDataFrame a publish needs, and without the publisher's `duration`
    /// and `filesize`: they describe the publisher's source, not this archive (a 20 s publish archived for 6 s
    /// would read as 20 s), and players compute both from the file when they are absent.
    private func append(_ message: Message, to file: FileOutputLink) {
        guard message.typeID == MessageType.dataAMF0.rawValue else {
            file.append(message)
            return
        }
        let body = message.payload.starts(with: Message.setDataFrameName)
            ? message.payload.dropFirst(Message.setDataFrameName.count) : message.payload[...]
        file.append(message, body: RelaySession.archivedMetadata(body)[...])
    }

    /// An onMetaData body without the source's `duration` and `filesize`; any other data body as it is (also one
    /// that does not parse: it is the publisher's, and the archive keeps it).
    static func archivedMetadata(_ body: ArraySlice<UInt8>) -> [UInt8] {
        var reader = ByteReader(body)
        guard let name = try? AMF0Value(parsing: &reader), name == .string("onMetaData"),
              let value = try? AMF0Value(parsing: &reader), reader.isAtEnd else { return Array(body) }
        let dropped: Set<String> = ["duration", "filesize"]
        let kept: AMF0Value
        switch value {
        case let .ecmaArray(properties): kept = .ecmaArray(properties.filter { !dropped.contains($0.key) })
        case let .object(properties): kept = .object(properties.filter { !dropped.contains($0.key) })
        default: return Array(body)
        }
        var out: [UInt8] = []
        do {
            try name.write(into: &out)
            try kept.write(into: &out)
        } catch {
            return Array(body)
        }
        return out
    }

    /// One message for one output, through its keyframe gate.
    private func offer(_ message: Message, to output: OutputLink, receivedAt: UInt64) {
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
            for header in [metadata, videoHeader, audioHeader] {
                guard var header else { continue }
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
                if var header = videoHeader {
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
    private var someOutputWaits: Bool {
        outputs.contains { output in
            guard output.progress.status != .failed else { return false }
            if case .running = output.position, output.ready { return false }
            return true
        }
    }

    /// Keeps `message` in the current group of pictures (from its keyframe), bounded in bytes.
    private func remember(_ message: Message) {
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
    private func replayGOP(to output: OutputLink) {
        guard !gop.isEmpty else { return }
        for message in gop { offer(message, to: output, receivedAt: 0) }
        // Frames that waited for the connection are not the relay's latency.
        output.pendingFrames = 0
        flushOutputs(receivedAt: 0)
    }

    private func encode(_ message: Message, to output: OutputLink, handler: RTMPClientHandler, receivedAt: UInt64) {
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

    private func flushOutputs(receivedAt: UInt64 = 0) {
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

    private func connect(_ output: OutputLink) {
        guard !ending else { return }
        output.generation += 1
        let generation = output.generation
        output.ready = false
        output.position = .waitingForStart
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

    private func outputEvent(_ index: Int, _ generation: Int, _ event: ClientEvent) {
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

    private func outputLost(_ index: Int, _ generation: Int, _ error: String) {
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
        if output.failures > options.reconnect.attempts {
            output.progress.status = .failed
            if outputs.allSatisfy({ $0.progress.status == .failed }) {
                finish(.failure(.allOutputsFailed(name: options.inputName)))
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

    // MARK: End

    private func finish(_ outcome: Result<Void, PipelineError>) {
        guard !ending else { return }
        ending = true
        tick?.cancel()
        sourceRetry?.cancel()
        sourceHandler?.channel?.close(promise: nil)
        sourceHandler = nil
        publisherChannel?.close(promise: nil)
        publisherChannel = nil
        if let route { engine.ingest.unregister(route) }
        var closing: [EventLoopFuture<Void>] = []
        for output in outputs {
            output.retry?.cancel()
            output.readyTimeout?.cancel()
            if let handler = output.handler, output.ready {
                if let pending = output.pending {
                    output.progress.bytes += Int64(pending.readableBytes)
                    handler.write(pending)
                    output.pending = nil
                }
                output.progress.status = .finished
                if let channel = handler.channel { closing.append(channel.closeFuture) }
                handler.closePolitely()
            } else {
                if output.progress.status != .failed {
                    output.progress.status = .failed
                    if output.progress.lastError == nil { output.progress.lastError = "the job ended before the output connected" }
                }
                if let channel = output.handler?.channel {
                    closing.append(channel.closeFuture)
                    channel.close(promise: nil)
                }
            }
        }
        var outcome = outcome
        if case .success = outcome, !cancelled, let empty = fileOutputs.first(where: { $0.progress.packets == 0 && $0.failure == nil }) {
            outcome = .failure(.emptyOutput(index: empty.index, name: empty.name))
        }
        var commit = false
        if case .success = outcome { commit = true }
        // Files are finished whatever happens (published on success, removed otherwise) before the job completes.
        let files = fileOutputs.map { file in
            file.finish(commit: commit).flatMapErrorThrowing { error in
                throw PipelineError.output(index: file.index, name: file.name, error)
            }
        }
        let filesDone = EventLoopFuture.whenAllComplete(files, on: loop)
        // Give polite closes a moment to reach the servers, never longer than 2 s.
        let decided = outcome
        let networkDone = loop.makePromise(of: Void.self)
        let deadline = loop.scheduleTask(in: .seconds(2)) { networkDone.succeed() }
        EventLoopFuture.andAllComplete(closing, on: loop).whenComplete { _ in
            deadline.cancel()
            networkDone.succeed()
        }
        networkDone.futureResult.and(filesDone).whenSuccess { [self] _, results in
            var final = decided
            if case .success = decided {
                for result in results {
                    if case let .failure(error as PipelineError) = result {
                        final = .failure(error)
                        break
                    }
                }
            }
            complete(final)
        }
    }

    private func complete(_ outcome: Result<Void, PipelineError>) {
        guard !completed else { return }
        completed = true
        for output in outputs { output.handler = nil }
        engine.sessionEnded()
        switch outcome {
        case let .failure(error):
            completion(.failure(error))
        case .success:
            var result = PipelineResult(progress: snapshot())
            for file in fileOutputs where file.progress.status == .running { file.progress.status = .finished }
            result.cancelled = cancelled
            result.reachedMaxDuration = reachedMaxDuration
            if measuresLatency {
                for output in outputs where output.latency.count > 0 {
                    FileHandle.standardError.write(Data((LatencyReport.line(index: output.index, name: output.name, output.latency) + "\n").utf8))
                }
            }
            progressHandler(result.progress)
            completion(.success(result))
        }
    }
}
