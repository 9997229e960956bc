import CFFmpeg
import Foundation
import MediaFormats
import MediaPipeline

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
        // Finish every output, then publish all of them or none. All are told first, so that their trailers and
        // fsyncs run side by side (one after another, each output's thread waited for the one before: ~10 ms).
        for worker in workers { worker.end(commit: true) }
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
            // Every output renamed, then each folder synced once (docs/ARCHITECTURE.md §7: durable before `succeeded`).
            var renamed: [(worker: any PipelineOutput, file: OutputFile)] = []
            for worker in workers {
                do {
                    if let file = try worker.rename() { renamed.append((worker, file)) }
                } catch {
                    failure = PipelineError.output(index: worker.index, name: worker.name, error)
                    break
                }
            }
            // The renamed ones are synced even after a failure: what is in place is there for good.
            if let (index, error) = OutputFile.syncFolders(of: renamed.map(\.file)), failure == nil {
                failure = PipelineError.output(index: renamed[index].worker.index, name: renamed[index].worker.name, error)
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
