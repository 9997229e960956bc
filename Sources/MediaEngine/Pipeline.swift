import CFFmpeg
import Foundation
import MediaFormats

/// What to do with one kind of stream; `Settings` says what an encoder makes of it.
public enum StreamHandling<Settings: Sendable & Equatable>: Sendable, Equatable {
    case copy, drop
    /// Decode and encode again (H.264 for video, AAC for audio).
    case encode(Settings)
}

/// The format an output writes.
public enum OutputKind: String, Sendable, Equatable {
    case flv, adts, annexB
}

/// One output of a pipeline.
public struct OutputDescription: Sendable, Equatable {
    public var target: OutputTarget
    public var kind: OutputKind
    /// How the output is named in messages: a redacted URL or the path.
    public var name: String
    /// This output's own rendition, replacing the pipeline's `video` / `audio` for it (nil: the pipeline's).
    public var video: StreamHandling<VideoEncodeSettings>?
    public var audio: StreamHandling<AudioEncodeSettings>?

    public init(target: OutputTarget, kind: OutputKind, name: String,
                video: StreamHandling<VideoEncodeSettings>? = nil, audio: StreamHandling<AudioEncodeSettings>? = nil) {
        self.target = target
        self.kind = kind
        self.name = name
        self.video = video
        self.audio = audio
    }

    /// Whether the format carries video / audio at all.
    var carriesVideo: Bool { kind != .adts }
    var carriesAudio: Bool { kind != .annexB }
}

/// Everything a pipeline needs, in Swift terms (built by the `Sluice` library from a job spec).
public struct PipelineOptions: Sendable {
    public var inputURL: String
    /// How the input is named in messages (redacted).
    public var inputName: String
    /// Demuxer/protocol options for the input.
    public var inputOptions: [String: String] = [:]
    /// Seconds the input may take to open and may stall while reading.
    public var inputTimeout: Double?
    /// Frame rate for raw Annex B input without timing.
    public var inputFrameRate: Double?
    /// Read at 1× the media rate.
    public var realtime = false
    /// Stop cleanly after this much media time, seconds.
    public var maxDuration: Double?
    public var video: StreamHandling<VideoEncodeSettings> = .copy
    public var audio: StreamHandling<AudioEncodeSettings> = .copy
    public var outputs: [OutputDescription] = []
    /// How network outputs (and a live input) retry after losing their connection.
    public var reconnect = ReconnectPolicy()
    /// Seconds a network output's connect or single write may block before it counts as lost.
    public var networkTimeout: Double? = 10
    /// A live network input (rtmp pull or listen): reopened after a drop until `inputTimeout` passes without data.
    public var liveInput = false
    /// A file input's path. With `fileRoots` it is opened under the input root without following links
    /// (and `inputURL` is not used); without, `inputURL` is opened as given.
    public var inputFile: String?
    /// The roots every file must stay under (the worker); nil uses paths as given (`sluice run`).
    public var fileRoots: FileRoots?
    /// The job writing the file outputs, named in their temporary names (`.NAME.<owner>.<16 hex>.part`).
    public var partOwner: PartOwner?
    /// The live engine, through which every RTMP byte of the pipeline goes (live inputs, RTMP outputs); a job with
    /// either fails clearly without one.
    public var transport: (any LiveTransport)?
    /// Keep the outputs fed with a slate while the live input is gone (issue #19); nil: they wait.
    public var fallback: FallbackOptions?

    /// A live input that waits for a publisher (the shared ingest listener) instead of pulling.
    public var listens: Bool { inputOptions["listen"] == "1" }

    public init(inputURL: String, inputName: String) {
        self.inputURL = inputURL
        self.inputName = inputName
    }
}

/// A snapshot of a running pipeline, for progress lines and the job store.
public struct PipelineProgress: Sendable, Equatable {
    /// Media time reached, seconds.
    public var mediaTime: Double = 0
    public var videoFrames = 0
    public var audioFrames = 0
    public var bytesIn: Int64 = 0
    public var elapsed: Double = 0
    public var dtsRepairs = 0
    /// Times a live input was reopened after a drop.
    public var inputReconnects = 0
    public var outputs: [OutputProgress] = []
    /// The slate through input outages (a live job with `fallback`); nil without one.
    public var slate: SlateProgress?

    public init() {}

    /// Media seconds per wall second.
    public var speed: Double { elapsed > 0 ? mediaTime / elapsed : 0 }
    public var bytesOut: Int64 { outputs.reduce(0) { $0 + $1.bytes } }
}

/// How a pipeline ended.
public struct PipelineResult: Sendable, Equatable {
    public var progress: PipelineProgress
    /// Ended by `Interrupter.cancel()` (outputs still finished cleanly).
    public var cancelled = false
    /// Ended at `maxDuration`.
    public var reachedMaxDuration = false
    /// Video access units dropped before the first decodable configuration (a stream cut mid-GOP).
    public var skippedVideoPackets = 0
    /// Cancelled with `discardsOutputsOnCancel`: no file output was published.
    public var outputsDiscarded = false

    public init(progress: PipelineProgress) {
        self.progress = progress
    }
}

/// Why a pipeline failed. Messages name the input or output (already redacted by the caller).
public enum PipelineError: Error, Sendable, CustomStringConvertible {
    case openInput(name: String, FFmpegError)
    /// A file input refused or missing under the input root.
    case inputFile(name: String, FileAccessError)
    case readInput(name: String, FFmpegError)
    case inputTimedOut(name: String, seconds: Double)
    /// A live input that sent nothing for `seconds` while its connections kept failing: the last failure says why.
    case inputLost(name: String, seconds: Double, lastError: String)
    case noStreams(name: String)
    case unsupportedCodec(kind: String, stream: Int, codec: String)
    /// A live input carries a codec the job cannot take (named, never a silent "no packets").
    case unsupportedLiveCodec(kind: String, codec: String)
    case invalidStream(kind: String, stream: Int, MediaFormatError)
    case encode(kind: String, stream: Int, EncodeError)
    case output(index: Int, name: String, any Error)
    case openOutput(index: Int, name: String, any Error)
    /// Every output gave up; `lastError` is why the last one did (a refused publish, a certificate, …).
    case allOutputsFailed(name: String, lastError: String?)
    case publisherRefused(name: String, PublisherRefusal)
    case emptyOutput(index: Int, name: String)
    /// The live engine could not take or keep its input (a listener that cannot bind, a key another job holds).
    case liveInput(name: String, reason: String)

    public var description: String {
        switch self {
        case let .openInput(name, error): return "cannot open input \(name): \(error.message) (\(error.function))"
        case let .inputFile(name, error): return "cannot open input \(name): \(error.reason)"
        case let .readInput(name, error): return "reading input \(name) failed: \(error.message) (\(error.function))"
        case let .inputLost(name, seconds, lastError):
            return "input \(name) sent no data for \(PipelineError.format(seconds)) s (last error: \(lastError))"
        case let .inputTimedOut(name, seconds): return "input \(name) sent no data for \(PipelineError.format(seconds)) s"
        case let .noStreams(name): return "input \(name) has no H.264 video or AAC audio stream to use"
        case let .unsupportedCodec(kind, stream, codec):
            return "\(kind) stream \(stream) is \(codec): not supported in copy mode (copy carries H.264, HEVC and AV1 video and AAC audio; set \(kind).mode to encode or drop)"
        case let .unsupportedLiveCodec(kind, codec):
            return "the live input's \(kind) is \(codec), which this job cannot carry (the codec stage decodes H.264, HEVC, AV1, VP9, AAC and Opus; set \(kind).mode to drop to use the rest of the stream)"
        case let .invalidStream(kind, stream, error): return "\(kind) stream \(stream) is malformed: \(error)"
        case let .encode(kind, stream, error): return "cannot encode \(kind) stream \(stream): \(error)"
        case let .output(index, name, error):
            if PipelineError.isNoSpace(error) { return "output \(name): no space left on device (output \(index))" }
            return "output \(index) (\(name)) failed: \(PipelineError.describe(error))"
        case let .openOutput(index, name, error):
            if PipelineError.isNoSpace(error) { return "output \(name): no space left on device (output \(index), while opening)" }
            return "cannot open output \(index) (\(name)): \(PipelineError.describe(error))"
        case let .allOutputsFailed(name, lastError):
            return "every output of input \(name) has failed and given up reconnecting" + (lastError.map { " (last error: \($0))" } ?? "")
        case let .publisherRefused(name, refusal): return "listening on \(name): refused the publisher: \(refusal)"
        case let .emptyOutput(index, name):
            return "output \(index) (\(name)) received no packets: the input ended before any of its stream reached it"
        case let .liveInput(name, reason): return "live input \(name): \(reason)"
        }
    }

    /// A full disk (or quota) under an output, however it surfaced: through AVIO or creating the file.
    public static func isNoSpace(_ error: any Error) -> Bool {
        if let error = error as? FFmpegError { return error.code == sluice_averror(ENOSPC) || error.code == sluice_averror(EDQUOT) }
        if let error = error as? FileAccessError { return error.code == ENOSPC || error.code == EDQUOT }
        if let error = error as? PipelineError {
            switch error {
            case let .output(_, _, inner), let .openOutput(_, _, inner): return isNoSpace(inner)
            default: return false
            }
        }
        return false
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? FFmpegError { return "\(error.message) (\(error.function))" }
        return "\(error)"
    }

    static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}

/// The file and codec pipeline: demux once (a file through libavformat, or a live input from the engine), copy or
/// encode, and write each file output on its own thread; RTMP outputs are published by the live engine. `run` blocks the calling
/// thread, which becomes the input thread (never call it on Swift's cooperative pool).
public final class CopyPipeline: @unchecked Sendable {
    public let options: PipelineOptions
    public let interrupter: Interrupter
    /// How often `run` reports progress, seconds.
    public var progressInterval = 0.5
    /// Called on the input thread once the video encoder is open, with the encoder it got (encode mode only).
    public var encoderSelected: (EncoderSelection) -> Void = { _ in }
    /// Asked once, when the run ended on a cancel: true discards every file output instead of publishing
    /// what was written (a worker shutting down requeues the job, so a partial file must not look finished).
    public var discardsOutputsOnCancel: () -> Bool = { false }

    public init(options: PipelineOptions, interrupter: Interrupter = Interrupter()) {
        self.options = options
        self.interrupter = interrupter
    }

    /// Runs the job to its end and publishes the outputs; on failure every file output is removed.
    /// - Parameter progress: called on the input thread about every `progressInterval` seconds.
    public func run(progress: (PipelineProgress) -> Void = { _ in }) throws -> PipelineResult {
        let started = Interrupter.now()
        let input: any PacketSource
        var liveInput: EngineInput?
        do {
            if options.liveInput {
                guard let transport = options.transport else {
                    throw PipelineError.liveInput(name: options.inputName, reason: "live inputs need the live engine, and none runs here")
                }
                let engineInput = EngineInput(options: options)
                try engineInput.open(on: transport, interrupter: interrupter)
                liveInput = engineInput
                input = engineInput
            } else if let path = options.inputFile, let root = options.fileRoots?.input {
                // libavformat opens its own descriptor of this file during the open: ours must outlive the open
                // (a descriptor closed early could be reused by another file), and can go after it.
                let file = try InputFile(path: path, root: root)
                input = try withExtendedLifetime(file) {
                    try MediaInput(url: file.url, options: options.inputOptions, interrupter: interrupter, timeout: options.inputTimeout)
                }
            } else {
                input = try MediaInput(url: options.inputURL, options: options.inputOptions, interrupter: interrupter, timeout: options.inputTimeout)
            }
        } catch let error as FileAccessError {
            throw PipelineError.inputFile(name: options.inputName, error)
        } catch let error as FFmpegError {
            if error.isInterrupt && !interrupter.isCancelled, let timeout = options.inputTimeout {
                throw PipelineError.inputTimedOut(name: options.inputName, seconds: timeout)
            }
            throw PipelineError.openInput(name: options.inputName, error)
        }
        // The live input stops with the pipeline, however it ends.
        defer { liveInput?.close() }
        var session = try CopySession(input: input, options: options, interrupter: interrupter)
        if let selection = session.encoderSelection { encoderSelected(selection) }
        let workers = try session.openOutputs()
        var lastReport = started
        var result = PipelineResult(progress: PipelineProgress())
        do {
            try session.run(workers: workers) { snapshot in
                let now = Interrupter.now()
                guard Double(now - lastReport) / 1e9 >= progressInterval else { return }
                lastReport = now
                var snapshot = snapshot
                snapshot.elapsed = Double(now - started) / 1e9
                snapshot.outputs = workers.map(\.progress)
                snapshot.inputReconnects = liveInput?.reconnects ?? 0
                progress(snapshot)
            }
        } catch {
            for worker in workers { _ = worker.close(commit: false) }
            throw error
        }
        if session.cancelled && discardsOutputsOnCancel() {
            for worker in workers { _ = worker.close(commit: false) }
            result.progress = session.progress
            result.progress.elapsed = Double(Interrupter.now() - started) / 1e9
            result.progress.outputs = workers.map(\.progress)
            result.cancelled = true
            result.outputsDiscarded = true
            return result
        }
        // Finish every output, then publish all of them or none.
        var failure: (any Error)?
        for worker in workers {
            if let error = worker.close(commit: true), failure == nil {
                failure = PipelineError.output(index: worker.index, name: worker.name, error)
            }
        }
        // RTMP outputs that all gave up (refused, unreachable, unverified) are a failure even when the input ended
        // before the job noticed: nothing of the job reached anyone.
        if failure == nil, !workers.isEmpty, workers.allSatisfy(\.hasGivenUp) {
            failure = PipelineError.allOutputsFailed(name: options.inputName, lastError: workers.last?.progress.lastError)
        }
        // A file with nothing in it is not a result: a damaged input that yields no packet fails the job.
        if failure == nil, !session.cancelled,
           let empty = workers.first(where: { !$0.isNetwork && $0.progress.packets == 0 }) {
            failure = PipelineError.emptyOutput(index: empty.index, name: empty.name)
        }
        if failure == nil {
            for worker in workers {
                do { try worker.publish() } catch {
                    failure = PipelineError.output(index: worker.index, name: worker.name, error)
                    break
                }
            }
        }
        if let failure {
            for worker in workers { worker.discard() }
            throw failure
        }
        result.progress = session.progress
        result.progress.elapsed = Double(Interrupter.now() - started) / 1e9
        result.progress.outputs = workers.map(\.progress)
        result.progress.inputReconnects = liveInput?.reconnects ?? 0
        result.cancelled = session.cancelled
        result.reachedMaxDuration = session.reachedMaxDuration
        result.skippedVideoPackets = workers.map(\.skippedBeforeConfiguration).max() ?? 0
        progress(result.progress)
        return result
    }
}
