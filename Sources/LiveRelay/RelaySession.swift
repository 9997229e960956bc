import Foundation
import MediaPipeline
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// One live job on one event loop: its source (a pull, or the publisher the ingest listener routes to it)
/// and every output, so nothing on the media path takes a lock or hops threads (an ingest publisher's
/// messages hop once per read burst when its connection landed on another loop).
///
/// `@unchecked Sendable`: every mutable property is touched on `loop` only (handlers and timers run there).
final class RelaySession: @unchecked Sendable {
    enum Source {
        case pull(RTMPEndpoint)
        case listen(RTMPEndpoint)
        /// The file and codec pipeline's output: tags handed in through `inject` from its thread.
        case external
    }

    let loop: any EventLoop
    let engine: LiveEngine
    let options: PipelineOptions
    let interrupter: Interrupter
    let source: Source
    let progressHandler: @Sendable (PipelineProgress) -> Void
    let completion: @Sendable (Result<PipelineResult, PipelineError>) -> Void
    let inputTimeout: Double
    let networkTimeout: Double
    let started: UInt64
    let measuresLatency = LatencyReport.isEnabled

    var outputs: [OutputLink] = []
    /// RTMP outputs removed while the job ran (an output edit): closed, reported with their last counters.
    var removedOutputs: [OutputLink] = []
    var fileOutputs: [FileOutputLink] = []
    var timeline = LiveTimeline()
    /// What each output and archive gets of the stream: decided there, applied here (`apply`).
    var core = RelayCore(maxGOPBytes: RelaySession.maxGOPBytes)
    /// The core's actions for the message being relayed (kept to reuse its storage).
    var actions: [RelayCore.Action] = []
    /// The input's video and audio codecs as the messages name them ("hvc1 (HEVC)"), for messages.
    var videoCodec: String?
    var audioCodec: String?
    /// Why the first video or audio message the relay could not read was refused (an unknown FourCC, a cut header):
    /// a job whose video was all like that fails naming it instead of succeeding without video.
    var unreadableVideo: String?
    var unreadableAudio: String?
    /// "video"/"audio" once a multitrack message of that kind had a track that did not read (said once).
    var unreadableTracks: Set<String> = []
    /// The codec each video track's configuration named (`noteTrackCodecs`).
    var videoTrackCodecs: [UInt8: FLVVideoFourCC] = [:]
    var progress = PipelineProgress()
    var lastData: UInt64
    var lastProgress: UInt64
    var everData = false
    var lastEndClean = false
    var refusals: [PublisherRefusal] = []
    var ending = false
    var completed = false
    var cancelled = false
    var reachedMaxDuration = false
    var tick: RepeatedTask?
    /// One message's RTMP chunks, before they join an output's pending buffer.
    var chunkBuffer: [UInt8] = []
    /// The codec pipeline reading this input (encode, `.h264`/`.aac` outputs): every media and data message, on
    /// the job's timeline, once per read burst.
    var tap: (any LiveTagConsumer)?
    var tapBatch: [FLVTagMessage] = []
    /// The job's slate through input outages (`fallback`); nil without one.
    let fallback: FallbackState?
    /// A few seconds of a high-bitrate stream; a longer group is not kept (the output waits for the next keyframe).
    static let maxGOPBytes = 4 << 20

    // Pull source.
    var sourceHandler: RTMPClientHandler?
    var sourceGeneration = 0
    var sourceFailures = 0
    /// Why the pull's latest connection failed or was refused (a TLS verification, a refused play), for the
    /// message when the input times out.
    var lastSourceError: String?
    var sourceConnections = 0
    var sourceStalledClose = false
    /// When the pull's current connection was opened (uptime nanoseconds).
    var sourceOpenedAt: UInt64 = 0
    var sourceRetry: Scheduled<Void>?

    // Listen source.
    var route: IngestRoute?
    var publisherChannel: (any Channel)?
    var publisherToken = 0

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
        fallback = options.fallback.map(FallbackState.init)
        chunkBuffer.reserveCapacity(64 << 10)
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
        for output in outputs { core.addOutput(output.index) }
        for file in fileOutputs { core.addArchive(file.index) }
        for output in outputs { connect(output) }
        if case .pull = source { connectSource() }
        armFallback()
        // Cancel, stalls and dead destinations are looked at 4 times a second: each tick wakes the event loop, and
        // with hundreds of sessions per loop the ticks are a visible share of its wake-ups.
        tick = loop.scheduleRepeatedTask(initialDelay: RelaySession.housekeepingInterval, delay: RelaySession.housekeepingInterval) { [self] _ in housekeeping() }
    }

    /// How often `housekeeping` runs.
    static let housekeepingInterval = TimeAmount.milliseconds(250)

    /// The input sent nothing for the timeout: with the pull's last connection error when there was one.
    func inputTimedOut() -> PipelineError {
        guard let lastSourceError else { return .inputTimedOut(name: options.inputName, seconds: inputTimeout) }
        return .inputLost(name: options.inputName, seconds: inputTimeout, lastError: lastSourceError)
    }

    func housekeeping() {
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
        // An external source (the pipeline) ends by `stop`; its pace is its own.
        if case .external = source {
        } else if quiet >= inputDeadline {
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
        // A pull that is connected but silent for half the timeout is dropped and opened again; each new connection gets
        // that long too (through a long outage bridged by a slate, a pull closed at once would never see the input return).
        let connectionQuiet = Double(now &- max(lastData, sourceOpenedAt)) / 1e9
        if case .pull = source, connectionQuiet >= inputTimeout / 2, let handler = sourceHandler, !sourceStalledClose, everData || quiet >= networkTimeout {
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

    func snapshot() -> PipelineProgress {
        var snapshot = progress
        snapshot.elapsed = Double(RelaySession.now() &- started) / 1e9
        snapshot.outputs = (outputs.map { ($0.index, $0.progress) } + fileOutputs.map { ($0.index, $0.progress) }
                            + removedOutputs.map { ($0.index, $0.progress) })
            .sorted { $0.0 < $1.0 }.map(\.1)
        snapshot.inputReconnects = max(sourceConnections - 1, 0)
        if let fallback {
            snapshot.slate = SlateProgress(onSlate: fallback.onSlate, switches: fallback.switches, seconds: fallback.seconds(now: RelaySession.now()))
        }
        return snapshot
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

    func deliver(_ messages: [Message], receivedAt: UInt64, bytes: Int) {
        progress.bytesIn += Int64(bytes)
        guard !messages.isEmpty, !ending else { return }
        lastData = RelaySession.now()
        everData = true
        lastEndClean = false
        sourceFailures = 0
        lastSourceError = nil
        // On slate, the input's messages wait for its first keyframe.
        let messages = fallback?.onSlate == true ? interceptForSlate(messages) : messages
        guard !messages.isEmpty else { return }
        let maxMilliseconds = options.maxDuration.map { ClockConversion.milliseconds($0) }
        noteWritability()
        for var message in messages {
            switch message.typeID {
            // An audio or video message whose FLV tag header (legacy or Enhanced RTMP) does not read — too short, an
            // unknown FourCC — is refused by readers (FFmpeg's and ours): never forwarded, and never silently
            // (`readable` keeps why, `silentMediaFailure` names it).
            case MessageType.audio.rawValue:
                guard options.audio != .drop, readable(message) else { continue }
                if let track = options.audioTrack, !select(track: track, of: &message) { continue }
            case MessageType.video.rawValue:
                guard options.video != .drop, readable(message) else { continue }
                if let track = options.videoTrack, !select(track: track, of: &message) { continue }
            case MessageType.dataAMF0.rawValue: break
            default: continue
            }
            let time = timeline.map(typeID: message.typeID, timestamp: message.timestamp)
            message.timestamp = UInt32(truncatingIfNeeded: time)
            let kind = RelayCore.Kind(message)
            if tap != nil { tapBatch.append(FLVTagMessage(typeID: message.typeID, timestamp: time, body: message.payload)) }
            if kind.isFrame, let maxMilliseconds, time >= maxMilliseconds {
                reachedMaxDuration = true
                flushOutputs()
                finish(.success(()))
                return
            }
            switch kind.role {
            case .videoFrame: progress.videoFrames += 1
            case .audioFrame: progress.audioFrames += 1
            default: break
            }
            if kind.isFrame { progress.mediaTime = Double(time) / 1000 }
            relay(message, kind)
            if fallback != nil { observeForFallback(message, kind) }
        }
        flushOutputs(receivedAt: receivedAt)
        if let tap {
            tap.receive(tapBatch, bytes: bytes)
            tapBatch.removeAll(keepingCapacity: true)
        }
    }

    // MARK: External source (the pipeline's thread hops here)

    /// Tags from the file and codec pipeline, in order, on its own timeline.
    func inject(_ tags: [FLVTagMessage]) {
        deliver(tags.map(Message.init(tag:)), receivedAt: measuresLatency ? RelaySession.now() : 0, bytes: 0)
    }

    /// Ends the job cleanly: the pipeline finished, or its reader stopped.
    func stop() {
        finish(.success(()))
    }
}
