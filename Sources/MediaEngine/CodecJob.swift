import CFFmpeg
import Foundation
import MediaFormats
import MediaJob
import MediaSinks

/// The codec engine: demux once (a file through libavformat, or a live input from the engine), copy or
/// encode, and write each file output on its own thread; RTMP outputs are published by the relay engine. `run` blocks the calling
/// thread, which becomes the input thread (never call it on Swift's cooperative pool).
public final class CodecJob: @unchecked Sendable {
    public let options: MediaJobOptions
    public let interrupter: Interrupter
    /// How often `run` reports progress, seconds.
    public var progressInterval = 0.5
    /// Called on the input thread once the video encoder is open, with the encoder it got (encode mode only).
    public var encoderSelected: (EncoderSelection) -> Void = { _ in }
    /// Asked once, when the run ended on a cancel: true discards every file output instead of publishing
    /// what was written (a output shutting down requeues the job, so a partial file must not look finished).
    public var discardsOutputsOnCancel: () -> Bool = { false }

    public init(options: MediaJobOptions, interrupter: Interrupter = Interrupter()) {
        self.options = options
        self.interrupter = interrupter
    }

    /// Runs the job to its end and publishes the outputs; on failure every file output is removed.
    /// - Parameter progress: called on the input thread about every `progressInterval` seconds.
    public func run(progress: (MediaJobProgress) -> Void = { _ in }) throws -> MediaJobResult {
        try CodecLibraries.require()
        let started = Interrupter.now()
        let input: any PacketSource
        var liveInput: RelayInput?
        do {
            if options.liveInput {
                guard let transport = options.transport else {
                    throw MediaJobError.liveInput(name: options.inputName, reason: "live inputs need the relay engine, and none runs here")
                }
                let engineInput = RelayInput(options: options)
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
            throw MediaJobError.inputFile(name: options.inputName, error)
        } catch let error as FFmpegError {
            if error.isInterrupt && !interrupter.isCancelled, let timeout = options.inputTimeout {
                throw MediaJobError.inputTimedOut(name: options.inputName, seconds: timeout)
            }
            throw MediaJobError.openInput(name: options.inputName, error)
        }
        // The live input stops with the codec job, however it ends.
        defer { liveInput?.close() }
        var session = try CodecSession(input: input, options: options, interrupter: interrupter)
        if let selection = session.encoderSelection { encoderSelected(selection) }
        let multivariant = try SinkFactory(options: session.options).openMultivariant()
        let outputs: [any JobOutput]
        do {
            outputs = try session.openOutputs(multivariant: multivariant)
        } catch {
            multivariant?.discard()
            throw error
        }
        var lastReport = started
        var result = MediaJobResult(progress: MediaJobProgress())
        do {
            try session.run(outputs: outputs) { snapshot in
                let now = Interrupter.now()
                guard Double(now - lastReport) / 1e9 >= progressInterval else { return }
                lastReport = now
                var snapshot = snapshot
                snapshot.elapsed = Double(now - started) / 1e9
                snapshot.outputs = outputs.map(\.progress)
                snapshot.inputReconnects = liveInput?.reconnects ?? 0
                progress(snapshot)
            }
        } catch {
            for output in outputs { _ = output.close(commit: false) }
            multivariant?.discard()
            throw error
        }
        if session.cancelled && discardsOutputsOnCancel() {
            for output in outputs { _ = output.close(commit: false) }
            multivariant?.discard()
            result.progress = session.progress
            result.progress.elapsed = Double(Interrupter.now() - started) / 1e9
            result.progress.outputs = outputs.map(\.progress)
            result.cancelled = true
            result.outputsDiscarded = true
            return result
        }
        // Finish every output, then publish all of them or none. All are told first, so that their trailers and
        // fsyncs run side by side (one after another, each output's thread waited for the one before: ~10 ms).
        for output in outputs { output.end(commit: true) }
        var failure: (any Error)?
        for output in outputs {
            if let error = output.close(commit: true), failure == nil {
                failure = MediaJobError.output(index: output.index, name: output.name, error)
            }
        }
        // RTMP outputs that all gave up (refused, unreachable, unverified) are a failure even when the input ended
        // before the job noticed: nothing of the job reached anyone.
        if failure == nil, !outputs.isEmpty, outputs.allSatisfy(\.hasGivenUp) {
            failure = MediaJobError.allOutputsFailed(name: options.inputName, lastError: outputs.last?.progress.lastError)
        }
        // A file with nothing in it is not a result: a damaged input that yields no packet fails the job.
        if failure == nil, !session.cancelled,
           let empty = outputs.first(where: { !$0.isNetwork && $0.progress.packets == 0 }) {
            failure = MediaJobError.emptyOutput(index: empty.index, name: empty.name)
        }
        // The multivariant playlist's last version measures every segment, so it is written once the sinks are done.
        if failure == nil, let multivariant {
            do { try multivariant.finish() } catch { failure = MediaJobError.multivariantPlaylist(name: multivariant.name, error) }
        }
        if failure == nil {
            // Every output renamed, then each folder synced once (docs/ARCHITECTURE.md §7: durable before `succeeded`);
            // the multivariant playlist last, after the media playlists it lists.
            var committed = outputs.map { output in
                OutputCommit.Output(rename: output.rename, discard: output.discard) { error in
                    .output(index: output.index, name: output.name, error)
                }
            }
            if let multivariant {
                committed.append(OutputCommit.Output(rename: { try multivariant.file.rename() }, discard: multivariant.discard) { error in
                    .multivariantPlaylist(name: multivariant.name, error)
                })
            }
            failure = OutputCommit.publish(committed)
        }
        if let failure {
            for output in outputs { output.discard() }
            multivariant?.discard()
            throw failure
        }
        result.progress = session.progress
        result.progress.elapsed = Double(Interrupter.now() - started) / 1e9
        result.progress.outputs = outputs.map(\.progress)
        result.progress.inputReconnects = liveInput?.reconnects ?? 0
        result.cancelled = session.cancelled
        result.reachedMaxDuration = session.reachedMaxDuration
        result.skippedVideoPackets = outputs.map(\.skippedBeforeConfiguration).max() ?? 0
        progress(result.progress)
        return result
    }
}
