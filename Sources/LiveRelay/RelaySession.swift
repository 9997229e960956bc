import Foundation
import JobDocument
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP
import RTSP

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
        /// A camera pulled over RTSP.
        case rtspPull(RTSPURL)
        /// A WebRTC publisher posting its offer to the job's path on the shared WHIP port.
        case whipListen(WHIPURL)
        /// The codec engine's output: tags handed in through `inject` from its thread.
        case external
    }

    let loop: any EventLoop
    let engine: RelayEngine
    /// What the job asked for, where its progress and its end go, and when it began.
    let job: Job
    /// Where the media comes from, and the connection that brings it.
    var source: SourceState
    /// Every output and archive: what `apply` hands the core's decisions to.
    var links = Links()
    var timeline = LiveTimeline()
    /// What each output and archive gets of the stream: decided there, applied here (`apply`).
    var core = RelayCore(maxGOPBytes: RelaySession.maxGOPBytes)
    /// The core's actions for the message being relayed (kept to reuse its storage).
    var actions: [RelayCore.Action] = []
    var progress = MediaJobProgress()
    /// When progress was last reported (once a second, from `housekeeping`).
    var lastProgress: UInt64
    /// When the input last sent media, how its last connection ended, and what it said of its codecs.
    var input: InputActivity
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

    struct Job {
        let options: MediaJobOptions
        let interrupter: Interrupter
        let report: @Sendable (MediaJobProgress) -> Void
        let complete: @Sendable (Result<MediaJobResult, MediaJobError>) -> Void
        /// `NIODeadline`'s uptime when the session was made.
        let started: UInt64
    }

    struct SourceState {
        let kind: Source
        /// The pull's connection and its retries (a pull source).
        var pull = PullSource()
        /// The publisher the ingest listener routed here (a listen source).
        var publisher = ListenSource()
        /// The SRT connection of an SRT source (a pull or a routed publisher) and its TS edge.
        var srt = SRTSource()
        /// The RTSP connection of a camera and its RTP edge.
        var rtsp = RTSPSource()
        /// The WHIP route and publisher of a WHIP source.
        var whip = WHIPSource()
    }

    init(engine: RelayEngine, loop: any EventLoop, options: MediaJobOptions, source: Source, interrupter: Interrupter,
         progress: @escaping @Sendable (MediaJobProgress) -> Void,
         completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) {
        self.engine = engine
        self.loop = loop
        let started = NIODeadline.now().uptimeNanoseconds
        job = Job(options: options, interrupter: interrupter, report: progress, complete: completion, started: started)
        self.source = SourceState(kind: source)
        input = InputActivity(lastData: started)
        lastProgress = started
        fallback = options.fallback.map(FallbackState.init)
        chunkScratch = engine.chunkScratch.on(loop)
    }

    var options: MediaJobOptions { job.options }
    var interrupter: Interrupter { job.interrupter }

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
               srt srtEndpoints: [(Int, String, SRTURL)] = [], whep: [(Int, String, WHIPURL, String?)] = []) {
        loop.preconditionInEventLoop()
        links.whep = whep.map { WHEPOutputLink(index: $0.0, name: $0.1, url: $0.2, token: $0.3) }
        core.keepsGOP = !whep.isEmpty
        links.rtmp = endpoints.map { OutputLink(index: $0.0, name: $0.1, endpoint: $0.2) }
        links.srt = srtEndpoints.map { SRTOutputLink(index: $0.0, name: $0.1, url: $0.2, hasVideo: options.video != .drop, hasAudio: options.audio != .drop) }
        if !files.isEmpty { engine.startFilePool() }
        links.files = files.map { index, description -> any LiveFileOutput in
            // A plain FLV file keeps the tags as they came; every other format (and a recording in segments) is its sink's.
            if description.kind == .flv, description.segments == nil, case let .file(path) = description.target {
                return FileOutputLink(index: index, name: description.name, path: path, root: options.fileRoots?.output, owner: options.partOwner,
                                      hasAudio: options.audio != .drop, hasVideo: options.video != .drop, pool: engine.pool,
                                      backlog: engine.fileBacklog, loop: loop)
            }
            return SinkOutputLink(index: index, description: description, options: options, pool: engine.pool,
                                  backlog: engine.fileBacklog, loop: loop)
        }
        for output in links.rtmp { core.addOutput(output.index) }
        for output in links.srt { core.addOutput(output.index) }
        for file in links.files { core.addArchive(file.index) }
        for output in links.rtmp { connect(output) }
        for output in links.srt { connect(output) }
        if let error = registerWHEPOutputs() { return fail(error) }
        connectPull()
        armFallback()
        // Cancel, stalls and dead destinations are looked at 4 times a second, on the loop's one timer for all its sessions.
        engine.housekeeping.on(loop).value.add(self)
    }

    /// How often `housekeeping` runs.
    static let housekeepingInterval = TimeAmount.milliseconds(250)

    /// The input sent nothing for the timeout: with the pull's last connection error when there was one.
    func inputTimedOut() -> MediaJobError {
        guard let lastError = source.pull.lastError else { return .inputTimedOut(name: options.inputName, seconds: inputTimeout) }
        return .inputLost(name: options.inputName, seconds: inputTimeout, lastError: lastError)
    }

    func housekeeping() {
        guard !end.begun else { return }
        if interrupter.isCancelled {
            end.cancelled = true
            finish(.success(()))
            return
        }
        if let broken = links.files.first(where: { $0.failure != nil }), let error = broken.failure {
            // What the stream itself lacks (a codec the format cannot take) is the job's error as it is.
            finish(.failure(error as? MediaJobError ?? .output(index: broken.index, name: broken.name, error)))
            return
        }
        let now = RelaySession.now()
        let quiet = Double(now &- input.lastData) / 1e9
        // An external source (the codec job) ends by `stop`; its pace is its own.
        if case .external = source.kind {
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
        let connectionQuiet = Double(now &- max(input.lastData, source.pull.openedAt)) / 1e9
        if case .pull = source.kind, connectionQuiet >= inputTimeout / 2, let handler = source.pull.handler, !source.pull.stalledClose, input.everData || quiet >= networkTimeout {
            source.pull.stalledClose = true
            handler.channel?.close(promise: nil)
        }
        if case .srtPull = source.kind, connectionQuiet >= inputTimeout / 2, source.srt.connection != nil, !source.pull.stalledClose, input.everData || quiet >= networkTimeout {
            source.pull.stalledClose = true
            srtSourceClosed(source.pull.generation, reason: nil)
        }
        if case .rtspPull = source.kind { rtspHousekeeping() }
        if case .rtspPull = source.kind, connectionQuiet >= inputTimeout / 2, source.rtsp.handler != nil, !source.pull.stalledClose, input.everData || quiet >= networkTimeout {
            rtspSourceStalled()
        }
        for output in links.srt where output.ready && output.unwritableSince != 0 && Double(now &- output.unwritableSince) / 1e9 >= networkTimeout {
            output.unwritableSince = 0
            srtOutputLost(output.index, output.generation, "the destination accepted no data for \(networkTimeout.formatted(.number.grouping(.never))) s")
        }
        // A destination that takes nothing for the network timeout is lost (a dead peer behind a full window).
        for output in links.rtmp where output.ready {
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
            for output in links.srt { output.sampleLink() }
            job.report(snapshot())
        }
    }

    func snapshot() -> MediaJobProgress {
        var snapshot = progress
        snapshot.elapsed = Double(RelaySession.now() &- job.started) / 1e9
        var outputs: [(Int, OutputProgress)] = links.rtmp.map { ($0.index, $0.progress) }
        outputs += links.files.map { ($0.index, $0.progress) }
        outputs += links.srt.map { ($0.index, $0.progress) }
        outputs += links.whep.map { ($0.index, $0.progress(ended: end.begun)) }
        outputs += links.removedRTMP.map { ($0.index, $0.progress) }
        outputs += links.removedSRT.map { ($0.index, $0.progress) }
        snapshot.outputs = outputs.sorted { $0.0 < $1.0 }.map(\.1)
        snapshot.inputReconnects = max(input.connections - 1, 0)
        if let fallback {
            snapshot.slate = SlateProgress(onSlate: fallback.onSlate, switches: fallback.switches, seconds: fallback.seconds(now: RelaySession.now()))
        }
        return snapshot
    }

    /// How the job ends: `finish` ran to its completion, a cancel stopped it, or it reached `max_duration_s`.
    struct EndState {
        /// `finish` has begun: nothing new starts.
        var begun = false
        var completed = false
        var cancelled = false
        var reachedMaxDuration = false
    }

    /// The codec engine reading this input, and the messages of the current read burst it gets next.
    final class CodecTap {
        let consumer: any LiveTagConsumer
        var batch: [FLVStreamTag] = []

        init(consumer: any LiveTagConsumer) {
            self.consumer = consumer
        }
    }

    // MARK: Media path

    func deliver(_ messages: [Message], receivedAt: UInt64, bytes: Int) {
        progress.bytesIn += Int64(bytes)
        guard !messages.isEmpty, !end.begun else { return }
        input.lastData = RelaySession.now()
        input.everData = true
        input.lastEndClean = false
        source.pull.failures = 0
        source.pull.lastError = nil
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
            let kind = FLVTagHead(message)
            let raw = message.timestamp
            var time = timeline.map(typeID: message.typeID, timestamp: raw, isFrame: kind.isFrame)
            if kind.isFrame {
                time = timeline.strictlyAfter(time, typeID: message.typeID, track: UInt8(truncatingIfNeeded: kind.configurationKey >> 8))
                progress.dtsRepairs = timeline.repairs
            }
            message.timestamp = UInt32(truncatingIfNeeded: time)
            if let tap, let tag = message.tag(at: time) { tap.batch.append(tag) }
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
            if !links.whep.isEmpty {
                if kind.isFrame { links.whepAudio.sourceOffset = time - Int64(raw) }
                if kind.role == .audioFrame || kind.role == .audioHeader { whepAudio(message) }
            }
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
    func inject(_ tags: [FLVStreamTag]) {
        deliver(tags.map(Message.init(tag:)), receivedAt: measuresLatency ? RelaySession.now() : 0, bytes: 0)
    }

    /// Ends the job cleanly: the codec job finished, or its reader stopped.
    func stop() {
        finish(.success(()))
    }
}
