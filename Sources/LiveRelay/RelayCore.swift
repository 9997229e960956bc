import MediaFormats
import RTMP

/// What every output and archive of one live job gets of its stream (docs/ARCHITECTURE.md §4), decided from what
/// arrives and nothing else: no I/O, no clock, no event loop. The relay session tells it what happened (a message on
/// the job's timeline, an output ready, behind, gone, added or removed, the slate on or off) and applies the actions
/// it returns, in order: it writes, the core decides.
///
/// The decisions:
/// - **The keyframe gate:** an output starts at a key frame of the default track (0), or at an audio frame in a
///   stream that has had no video, with the metadata and every configuration before it, on that frame's time.
/// - **Video after audio:** an output that started on audio (no video yet) lets video in from its first key frame,
///   with the video configurations before it.
/// - **The group of pictures for late joiners:** while any output waits (connecting, reconnecting, behind or waiting
///   for a start), the frames since the latest key frame are kept (up to `maxGOPBytes`), and an output that becomes
///   ready starts from that key frame at once instead of waiting for the next one.
/// - **Configuration replay:** the latest configuration of each track (and its channel layout, its metadata) is
///   what a late joiner gets; a configuration that changes mid-stream goes to every running output as it arrives, and
///   the frames kept before it are forgotten (they need the configuration a late joiner no longer gets).
/// - **Drop to the key frame:** an output whose connection cannot take more is behind: its frames are dropped until
///   it can again, and it starts over at the next key frame with the configurations.
/// - **Archives** start like an output, with the metadata at time 0, and take no metadata after their start (in a
///   file, a script tag past the start reads as a third stream).
/// - **The slate** (`RelayCore+Slate.swift`): its configurations stand in for the input's while it runs; the
///   input's messages before its first key frame are held back (their configurations kept), and its configurations
///   go out again before that key frame.
struct RelayCore {
    /// What the session must do, in order.
    enum Action: Equatable {
        /// Send `message` (whose head the core read once) to the output with this index (a publish connection).
        case send(Message, FLVTagHead, output: Int)
        /// Append `message` to the archive with this index.
        case archive(Message, FLVTagHead, archive: Int)
        /// A frame the output did not get (behind, or waiting for a start).
        case dropped(output: Int)
    }

    /// Where an output is in the stream.
    enum Phase: Equatable {
        /// Connecting or reconnecting: it gets nothing yet, and the group of pictures is kept for it.
        case connecting
        /// Ready, and nothing sent since it became ready or fell behind: it waits for a start.
        case waitingForStart
        /// Relaying; `videoStarted` once a key frame went out (audio may start first in a stream with no video yet).
        case running(videoStarted: Bool)
        /// Given up (out of reconnects, or its server refused a codec): it gets nothing and nothing is kept for it.
        case failed
    }

    struct Output: Equatable {
        let index: Int
        var phase: Phase = .connecting
        /// Its connection cannot take more: frames are dropped until it can.
        var behind = false
    }

    struct Archive: Equatable {
        let index: Int
        /// Whether it has started (its metadata and configurations written).
        var started = false
    }

    /// A group of pictures longer than this is not kept (a few seconds of a high-bitrate stream): an output that
    /// joins then waits for the next key frame.
    let maxGOPBytes: Int

    /// The outputs and archives, in the order they were added (the order actions come in).
    private(set) var outputs: [Output] = []
    private(set) var archives: [Archive] = []
    /// The latest onMetaData, as `@setDataFrame onMetaData {…}`.
    private(set) var metadata: Message?
    /// The latest configurations of each video and audio track (by `configurationKey`), replayed in key order.
    private(set) var videoHeaders: [UInt16: Message] = [:]
    private(set) var audioHeaders: [UInt16: Message] = [:]
    /// Whether the stream had any video (configuration or frame): then outputs start at key frames, not audio.
    private(set) var sawVideo = false
    /// Whether a key frame of the default track (0), where outputs and archives start, ever arrived.
    private(set) var sawKeyframe = false
    /// Whether the group of pictures is kept all the time: a job with WHEP viewers, who join whenever they like and
    /// must start at once. Other jobs keep it only while an output waits.
    var keepsGOP = false
    /// The current group of pictures, from its key frame, kept while an output waits (or always, `keepsGOP`); each
    /// frame with its head, so a replay reads no head again.
    private(set) var gop: [(message: Message, head: FLVTagHead)] = []
    private(set) var gopBytes = 0
    /// While on slate: the input's configurations, kept while the slate's stand in for them.
    var slate: SlateHold?

    /// - Parameter maxGOPBytes: the largest group of pictures kept for late joiners.
    init(maxGOPBytes: Int = 4 << 20) {
        self.maxGOPBytes = maxGOPBytes
    }

    /// The configurations to send before a stream's first frame: video tracks, then audio tracks, each in track order.
    var sequenceHeaders: [Message] {
        videoHeaders.sorted { $0.key < $1.key }.map(\.value) + audioHeaders.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Whether an output is not relaying yet (connecting, reconnecting, behind, or waiting for a start): only then
    /// the current group of pictures is kept.
    var someOutputWaits: Bool {
        outputs.contains { output in
            switch output.phase {
            case .failed: false
            case .running: output.behind
            case .connecting, .waitingForStart: true
            }
        }
    }

    // MARK: The stream

    /// A message of the stream, on the job's timeline: kept (configuration, metadata, the group of pictures) and
    /// offered to every output and archive. Any other message type than audio, video and data is ignored.
    /// - Parameter kind: what the message is, when the caller has read it already.
    mutating func receive(_ message: Message, kind: FLVTagHead? = nil, into actions: inout [Action]) {
        let kind = kind ?? FLVTagHead(message)
        var message = message
        switch kind.role {
        case .data:
            if let normalized = message.asSetDataFrame() {
                metadata = normalized
                message = normalized
            }
        case .videoHeader:
            if let old = videoHeaders[kind.configurationKey], old.payload != message.payload { forgetGOP() }
            videoHeaders[kind.configurationKey] = message
            sawVideo = true
        case .audioHeader:
            if let old = audioHeaders[kind.configurationKey], old.payload != message.payload { forgetGOP() }
            audioHeaders[kind.configurationKey] = message
        case .videoFrame:
            sawVideo = true
            if kind.isKeyframe { sawKeyframe = true }
            remember(message, kind)
        case .audioFrame:
            remember(message, kind)
        case .otherVideo, .otherAudio:
            break
        case .ignored:
            return
        }
        forward(message, kind, into: &actions)
    }

    /// Offers `message` to every output and archive, keeping nothing.
    mutating func forward(_ message: Message, _ kind: FLVTagHead, into actions: inout [Action]) {
        for slot in outputs.indices { offer(message, kind, toOutputAt: slot, into: &actions) }
        for slot in archives.indices { offer(message, kind, toArchiveAt: slot, into: &actions) }
    }

    /// Where outputs start: a key frame of the default track, or an audio frame in a stream that has had no video.
    func isStart(_ kind: FLVTagHead) -> Bool {
        sawVideo ? kind.isKeyframe : kind.role == .audioFrame
    }

    /// A configuration changed: the frames kept were coded with the one before, which a late joiner will not get (it
    /// gets the latest), so it waits for the next key frame instead.
    mutating func forgetGOP() {
        gop.removeAll()
        gopBytes = 0
    }

    /// Keeps `message` (a frame) in the current group of pictures, from its key frame and bounded in bytes.
    private mutating func remember(_ message: Message, _ kind: FLVTagHead) {
        guard keepsGOP || someOutputWaits else {
            if !gop.isEmpty { gop.removeAll() }
            gopBytes = 0
            return
        }
        if isStart(kind) {
            gop.removeAll(keepingCapacity: true)
            gopBytes = 0
        } else if gop.isEmpty {
            return
        }
        gopBytes += message.payload.count
        guard gopBytes <= maxGOPBytes else {
            gop.removeAll()
            gopBytes = 0
            return
        }
        gop.append((message, kind))
    }

    private mutating func offer(_ message: Message, _ kind: FLVTagHead, toOutputAt slot: Int, into actions: inout [Action]) {
        var output = outputs[slot]
        defer { outputs[slot] = output }
        let index = output.index
        if output.phase == .connecting || output.phase == .failed { return }
        if output.behind {
            output.phase = .waitingForStart
            if kind.isFrame { actions.append(.dropped(output: index)) }
            return
        }
        switch output.phase {
        case .connecting, .failed:
            return
        case .waitingForStart:
            guard kind.isFrame else { return }
            guard isStart(kind) else {
                actions.append(.dropped(output: index))
                return
            }
            for var header in [metadata].compactMap({ $0 }) + sequenceHeaders {
                header.timestamp = message.timestamp
                actions.append(.send(header, FLVTagHead(header), output: index))
            }
            actions.append(.send(message, kind, output: index))
            output.phase = .running(videoStarted: kind.isKeyframe)
        case let .running(videoStarted):
            if kind.role == .videoFrame && !videoStarted {
                guard kind.isKeyframe else {
                    actions.append(.dropped(output: index))
                    return
                }
                for var header in videoHeaders.sorted(by: { $0.key < $1.key }).map(\.value) {
                    header.timestamp = message.timestamp
                    actions.append(.send(header, FLVTagHead(header), output: index))
                }
                output.phase = .running(videoStarted: true)
            }
            actions.append(.send(message, kind, output: index))
        }
    }

    private mutating func offer(_ message: Message, _ kind: FLVTagHead, toArchiveAt slot: Int, into actions: inout [Action]) {
        let index = archives[slot].index
        if !archives[slot].started {
            guard kind.isFrame, isStart(kind) else { return }
            // The archive opens with the metadata at time 0 (as FFmpeg's flvenc writes it), then the configurations at
            // the first frame's time. The job's timeline starts at the input's first message, so an archive starts at
            // 0; frames keep their times (audio a publisher interleaves a few milliseconds before the key frame must
            // not go negative).
            if var header = metadata {
                header.timestamp = 0
                actions.append(.archive(header, FLVTagHead(header), archive: index))
            }
            for var header in sequenceHeaders {
                header.timestamp = message.timestamp
                actions.append(.archive(header, FLVTagHead(header), archive: index))
            }
            archives[slot].started = true
        } else if kind.role == .data {
            // Metadata a publisher sends again mid-stream (GStreamer's flvmux does, many times) goes to outputs only.
            return
        }
        actions.append(.archive(message, kind, archive: index))
    }

    // MARK: Outputs

    /// A new output (at the start, or added while the job runs): connecting.
    mutating func addOutput(_ index: Int) {
        outputs.append(Output(index: index))
    }

    /// An output removed while the job runs: it gets nothing more.
    mutating func removeOutput(_ index: Int) {
        outputs.removeAll { $0.index == index }
    }

    /// An output is connecting again (a reconnect), or lost for good (`failed`).
    mutating func outputGone(_ index: Int, failed: Bool = false) {
        update(index) {
            $0.phase = failed ? .failed : .connecting
            $0.behind = false
        }
    }

    /// An output's connection is ready: it starts from the kept group of pictures (its key frame, with the
    /// configurations before it), or waits for the next start (always, when not `replaying`).
    mutating func outputReady(_ index: Int, replaying: Bool = true) -> [Action] {
        update(index) {
            $0.phase = .waitingForStart
            $0.behind = false
        }
        guard replaying, let slot = outputs.firstIndex(where: { $0.index == index }) else { return [] }
        var actions: [Action] = []
        for (message, head) in gop { offer(message, head, toOutputAt: slot, into: &actions) }
        return actions
    }

    /// Whether an output's connection can take more now (asked before each read burst): one that cannot is behind.
    mutating func outputWritable(_ index: Int, _ writable: Bool) {
        guard let slot = outputs.firstIndex(where: { $0.index == index }), outputs[slot].behind == writable else { return }
        outputs[slot].behind = !writable
    }

    /// The phase of output `index`; nil for an output the core does not know.
    func phase(of index: Int) -> Phase? {
        outputs.first { $0.index == index }?.phase
    }

    private mutating func update(_ index: Int, _ change: (inout Output) -> Void) {
        guard let slot = outputs.firstIndex(where: { $0.index == index }) else { return }
        change(&outputs[slot])
    }

    // MARK: State the slate swaps

    mutating func setMetadata(_ message: Message) {
        metadata = message
    }

    mutating func replaceHeaders(video: [UInt16: Message], audio: [UInt16: Message]) {
        videoHeaders = video
        audioHeaders = audio
    }

    // MARK: Archives

    /// A new archive: it starts at the next start of the stream.
    mutating func addArchive(_ index: Int) {
        archives.append(Archive(index: index))
    }
}

extension FLVTagHead {
    /// The head of an RTMP audio, video or data message (any other message type is `.ignored`).
    init(_ message: Message) {
        self.init(typeID: message.typeID, data: message.payload[...])
    }
}
