import Foundation
import JobDocument
import MediaJob
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
        /// An SRT caller reading the input's TS.
        case srtPull(SRTURL)
        /// The publisher sending the URL's streamid to the worker's shared SRT port.
        case srtListen(SRTURL)
        /// The codec engine's output: tags handed in through `inject` from its thread.
        case external
    }

    let loop: any EventLoop
    let engine: RelayEngine
    let options: MediaJobOptions
    let interrupter: Interrupter
    let source: Source
    let progressHandler: @Sendable (MediaJobProgress) -> Void
    let completion: @Sendable (Result<MediaJobResult, MediaJobError>) -> Void
    let started: UInt64

    var outputs: [OutputLink] = []
    /// RTMP outputs removed while the job ran (an output edit): closed, reported with their last counters.
    var removedOutputs: [OutputLink] = []
    /// FLV archives and every other file format (its sink on the file pool).
    var fileOutputs: [any LiveFileOutput] = []
    /// SRT outputs: MPEG-TS made at the edge, on SRT connections.
    var srtOutputs: [SRTOutputLink] = []
    /// SRT outputs removed while the job ran (an output edit): closed, reported with their last counters.
    var removedSRTOutputs: [SRTOutputLink] = []
    var timeline = LiveTimeline()
    /// What each output and archive gets of the stream: decided there, applied here (`apply`).
    var core = RelayCore(maxGOPBytes: RelaySession.maxGOPBytes)
    /// The core's actions for the message being relayed (kept to reuse its storage).
    var actions: [RelayCore.Action] = []
    /// What the input's messages said of their codecs, and what of them could not be read.
    var codecs = InputCodecs()
    var progress = MediaJobProgress()
    /// When the input last sent media, and how its last connection ended.
    var input: InputActivity
    var lastProgress: UInt64
    var ending = false
    /// How the job ends, once it does.
    var end = EndState()
    /// One message's RTMP chunks, before they join an output's pending buffer: the loop's, shared by its sessions.
    let chunkScratch: NIOLoopBoundBox<ChunkScratch>
    /// The codec engine reading this input (encode, renditions): every media and data message, on
    /// the job's timeline, once per read burst.
    var tap: CodecTap?
    /// The job's slate through input outages (`fallback`); nil without one.
    let fallback: FallbackState?
    /// A few seconds of a high-bitrate stream; a longer group is not kept (the output waits for the next keyframe).
    static let maxGOPBytes = 4 << 20

    /// The pull's connection and its retries (a pull source).
    var pullSource = PullSource()
    /// The publisher the ingest listener routed here (a listen source).
    var publisher = ListenSource()
    /// The SRT connection of an SRT source (a pull or a routed publisher) and its TS edge.
    var srt = SRTSource()

    init(engine: RelayEngine, loop: any EventLoop, options: MediaJobOptions, source: Source, interrupter: Interrupter,
         progress: @escaping @Sendable (MediaJobProgress) -> Void,
         completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) {
        self.engine = engine
        self.loop = loop
        self.options = options
        self.source = source
        self.interrupter = interrupter
        self.progressHandler = progress
        self.completion = completion
        started = NIODeadline.now().uptimeNanoseconds
        input = InputActivity(lastData: started)
        lastProgress = started
        fallback = options.fallback.map(FallbackState.init)
        chunkScratch = engine.chunkScratch.on(loop)
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    /// Seconds of input silence before the input counts as gone (at least 0.1).
    var inputTimeout: Double { max(options.inputTimeout ?? 10, 0.1) }
    /// Seconds a connection may take, or a destination may take nothing, before it counts as lost (at least 0.1).
    var networkTimeout: Double { max(options.networkTimeout ?? 10, 0.1) }
    /// Whether restream latency is measured (`LatencyReport`): the engine's setting.
    var measuresLatency: Bool { engine.settings.measuresLatency }

    // MARK: Start

    /// On `loop`: opens every output and the source, and starts the housekeeping tick.
    func begin(outputs endpoints: [(Int, String, RTMPEndpoint)], files: [(Int, OutputDescription)] = [],
               srt srtEndpoints: [(Int, String, SRTURL)] = []) {
        loop.preconditionInEventLoop()
        outputs = endpoints.map { OutputLink(index: $0.0, name: $0.1, endpoint: $0.2) }
        srtOutputs = srtEndpoints.map { SRTOutputLink(index: $0.0, name: $0.1, url: $0.2, hasVideo: options.video != .drop, hasAudio: options.audio != .drop) }
        fileOutputs = files.map { index, description -> any LiveFileOutput in
            // A plain FLV file keeps the tags as they came; every other format (and a recording in segments) is its sink's.
            if description.kind == .flv, description.segments == nil, case let .file(path) = description.target {
                return FileOutputLink(index: index, name: description.name, path: path, root: options.fileRoots?.output, owner: options.partOwner,
                                      hasAudio: options.audio != .drop, hasVideo: options.video != .drop, pool: engine.pool, loop: loop)
            }
            return SinkOutputLink(index: index, description: description, options: options, pool: engine.pool, loop: loop)
        }
        for output in outputs { core.addOutput(output.index) }
        for output in srtOutputs { core.addOutput(output.index) }
        for file in fileOutputs { core.addArchive(file.index) }
        for output in outputs { connect(output) }
        for output in srtOutputs { connect(output) }
        if case .pull = source { connectSource() }
        if case .srtPull = source { connectSRTSource() }
        armFallback()
        // Cancel, stalls and dead destinations are looked at 4 times a second, on the loop's one timer for all its sessions.
        engine.housekeeping.on(loop).value.add(self)
    }

    /// How often `housekeeping` runs.
    static let housekeepingInterval = TimeAmount.milliseconds(250)

    /// The input sent nothing for the timeout: with the pull's last connection error when there was one.
    func inputTimedOut() -> MediaJobError {
        guard let lastError = pullSource.lastError else { return .inputTimedOut(name: options.inputName, seconds: inputTimeout) }
        return .inputLost(name: options.inputName, seconds: inputTimeout, lastError: lastError)
    }

    func housekeeping() {
        guard !ending else { return }
        if interrupter.isCancelled {
            end.cancelled = true
            finish(.success(()))
            return
        }
        if let broken = fileOutputs.first(where: { $0.failure != nil }), let error = broken.failure {
            // What the stream itself lacks (a codec the format cannot take) is the job's error as it is.
            finish(.failure(error as? MediaJobError ?? .output(index: broken.index, name: broken.name, error)))
            return
        }
        let now = RelaySession.now()
        let quiet = Double(now &- input.lastData) / 1e9
        // An external source (the codec job) ends by `stop`; its pace is its own.
        if case .external = source {
        } else if quiet >= inputDeadline {
            if !input.everData {
                if let refusal = input.refusals.last {
                    finish(.failure(.publisherRefused(name: options.inputName, refusal)))
                } else {
                    finish(.failure(inputTimedOut()))
                }
            } else if input.lastEndClean {
                finish(.success(()))
            } else {
                finish(.failure(inputTimedOut()))
            }
            return
        }
        // A pull that is connected but silent for half the timeout is dropped and opened again; each new connection gets
        // that long too (through a long outage bridged by a slate, a pull closed at once would never see the input return).
        let connectionQuiet = Double(now &- max(input.lastData, pullSource.openedAt)) / 1e9
        if case .pull = source, connectionQuiet >= inputTimeout / 2, let handler = pullSource.handler, !pullSource.stalledClose, input.everData || quiet >= networkTimeout {
            pullSource.stalledClose = true
            handler.channel?.close(promise: nil)
        }
        if case .srtPull = source, connectionQuiet >= inputTimeout / 2, srt.connection != nil, !pullSource.stalledClose, input.everData || quiet >= networkTimeout {
            pullSource.stalledClose = true
            srtSourceClosed(pullSource.generation, reason: nil)
        }
        for output in srtOutputs where output.ready && output.unwritableSince != 0 && Double(now &- output.unwritableSince) / 1e9 >= networkTimeout {
            output.unwritableSince = 0
            srtOutputLost(output.index, output.generation, "the destination accepted no data for \(networkTimeout.formatted(.number.grouping(.never))) s")
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
            for output in srtOutputs { output.sampleLink() }
            progressHandler(snapshot())
        }
    }

    func snapshot() -> MediaJobProgress {
        var snapshot = progress
        snapshot.elapsed = Double(RelaySession.now() &- started) / 1e9
        snapshot.outputs = (outputs.map { ($0.index, $0.progress) } + fileOutputs.map { ($0.index, $0.progress) }
                            + srtOutputs.map { ($0.index, $0.progress) }
                            + removedOutputs.map { ($0.index, $0.progress) } + removedSRTOutputs.map { ($0.index, $0.progress) })
            .sorted { $0.0 < $1.0 }.map(\.1)
        snapshot.inputReconnects = max(input.connections - 1, 0)
        if let fallback {
            snapshot.slate = SlateProgress(onSlate: fallback.onSlate, switches: fallback.switches, seconds: fallback.seconds(now: RelaySession.now()))
        }
        return snapshot
    }

    /// How the job ends: `finish` ran to its completion, a cancel stopped it, or it reached `max_duration_s`.
    struct EndState {
        var completed = false
        var cancelled = false
        var reachedMaxDuration = false
    }

    /// The codec engine reading this input, and the messages of the current read burst it gets next.
    final class CodecTap {
        let consumer: any LiveTagConsumer
        var batch: [FLVTagMessage] = []

        init(consumer: any LiveTagConsumer) {
            self.consumer = consumer
        }
    }

    // MARK: Listen source (called by the ingest handler, hopped onto `loop`)

    /// The publisher a listen job has now: its route in the ingest listener, its connection and the token naming it.
    struct ListenSource {
        var route: IngestRoute?
        var channel: (any Channel)?
        var token = 0
    }

    /// When the input last sent media, whether it ever did, how its last connection ended, and the publishers
    /// refused on its port (a listen job that never got its publisher fails naming the last of them).
    struct InputActivity {
        var lastData: UInt64
        var everData = false
        var lastEndClean = false
        var refusals: [PublisherRefusal] = []
        /// Connections the input had (pulls opened, publishers attached): reconnects are one less.
        var connections = 0
    }

    /// A publisher was routed here and accepted; `token` names its connection in the calls that follow.
    func publisherAttached(_ token: Int, channel: any Channel) {
        publisher.token = token
        publisher.channel = channel
        input.connections += 1
        timeline.beginSegment()
        if ending { channel.close(promise: nil) }
    }

    /// Media from the publisher `token`, one read burst.
    func publisherMedia(_ token: Int, _ messages: [Message], receivedAt: UInt64, bytes: Int) {
        guard token == publisher.token else { return }
        deliver(messages, receivedAt: receivedAt, bytes: bytes)
    }

    /// The publisher `token` unpublished or disconnected.
    func publisherDetached(_ token: Int, clean: Bool) {
        guard token == publisher.token else { return }
        publisher.token = 0
        publisher.channel = nil
        input.lastEndClean = clean
    }

    /// The listener could not be opened, or another job holds the same application and key.
    func failToListen(_ reason: String) {
        fail(.liveInput(name: options.inputName, reason: reason))
    }

    /// Ends the job with `error` (outputs closed first).
    func fail(_ error: MediaJobError) {
        finish(.failure(error))
    }

    /// A publisher asked for this job's port but another application or key.
    func recordRefusal(_ refusal: PublisherRefusal) {
        input.refusals.append(refusal)
        if input.refusals.count > 16 { input.refusals.removeFirst() }
    }

    // MARK: Media path

    func deliver(_ messages: [Message], receivedAt: UInt64, bytes: Int) {
        progress.bytesIn += Int64(bytes)
        guard !messages.isEmpty, !ending else { return }
        input.lastData = RelaySession.now()
        input.everData = true
        input.lastEndClean = false
        pullSource.failures = 0
        pullSource.lastError = nil
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
            let kind = RelayCore.Kind(message)
            var time = timeline.map(typeID: message.typeID, timestamp: message.timestamp, isFrame: kind.isFrame)
            if kind.isFrame {
                time = timeline.strictlyAfter(time, typeID: message.typeID, track: UInt8(truncatingIfNeeded: kind.configurationKey >> 8))
                progress.dtsRepairs = timeline.repairs
            }
            message.timestamp = UInt32(truncatingIfNeeded: time)
            tap?.batch.append(FLVTagMessage(typeID: message.typeID, timestamp: time, body: message.payload))
            if kind.isFrame, let maxMilliseconds, time >= maxMilliseconds {
                end.reachedMaxDuration = true
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
            tap.consumer.receive(tap.batch, bytes: bytes)
            tap.batch.removeAll(keepingCapacity: true)
        }
    }

    // MARK: External source (the codec job's thread hops here)

    /// Tags from the codec engine, in order, on its own timeline.
    func inject(_ tags: [FLVTagMessage]) {
        deliver(tags.map(Message.init(tag:)), receivedAt: measuresLatency ? RelaySession.now() : 0, bytes: 0)
    }

    /// Ends the job cleanly: the codec job finished, or its reader stopped.
    func stop() {
        finish(.success(()))
    }
}
