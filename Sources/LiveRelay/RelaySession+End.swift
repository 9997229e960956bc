import Foundation
import MediaJob
import NIOCore
import MediaFormats
import RTMP

/// How a relay session ends: `finish` closes the source, flushes and politely closes the running outputs (waiting up
/// to 2 s for the servers) and closes the files; `complete` then reports the outcome once (a file that failed to close
/// turns a success into its failure), with the job's last progress.
extension RelaySession {
    func finish(_ outcome: Result<Void, MediaJobError>) {
        guard !end.begun else { return }
        end.begun = true
        engine.housekeeping.on(loop).value.remove(self)
        fallback?.stop()
        source.pull.retry?.cancel()
        source.pull.handler?.channel?.close(promise: nil)
        source.pull.handler = nil
        source.publisher.channel?.close(promise: nil)
        source.publisher.channel = nil
        if let route = source.publisher.route { engine.ingest.unregister(route) }
        closeSRTSource()
        closeRTSPSource()
        closeWHIPSource()
        closeWHEPOutputs()
        var closing = closeSRTOutputs()
        for output in links.rtmp {
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
        // Video that reached no file (or no output) is named first; an archive without any packet after that.
        if case .success = outcome, !end.cancelled, let silent = silentMediaFailure() { outcome = .failure(silent) }
        if case .success = outcome, !end.cancelled, let empty = links.files.first(where: { $0.progress.packets == 0 && $0.failure == nil }) {
            outcome = .failure(.emptyOutput(index: empty.index, name: empty.name))
        }
        let commit: Bool
        if case .success = outcome { commit = true } else { commit = false }
        // Files are finished whatever happens, then published all together on success, or removed, before the job completes.
        let files = links.files.map { file in
            let (index, name) = (file.index, file.name)
            return file.finish(commit: commit).flatMapErrorThrowing { error in
                throw error as? MediaJobError ?? MediaJobError.output(index: index, name: name, error)
            }
        }
        let filesDone = EventLoopFuture.whenAllComplete(files, on: loop).flatMap { [self] results in
            commitFiles(results, commit: commit)
        }
        // Give polite closes a moment to reach the servers, never longer than 2 s.
        let decided = outcome
        let networkDone = loop.makePromise(of: Void.self)
        let deadline = loop.scheduleTask(in: .seconds(2)) { networkDone.succeed() }
        EventLoopFuture.andAllComplete(closing, on: loop).whenComplete { _ in
            deadline.cancel()
            networkDone.succeed()
        }
        networkDone.futureResult.and(filesDone).whenSuccess { [self] _, filesFailure in
            var final = decided
            if case .success = decided, let filesFailure { final = .failure(filesFailure) }
            complete(final)
        }
    }

    /// Every file output finished (`results`, in `links.files`' order): on success each is moved onto its name and each
    /// folder synced once (docs/ARCHITECTURE.md §7: durable before the job succeeds), on the file pool; after any
    /// failure, every one is removed. The future gives the first failure, if any.
    private func commitFiles(_ results: [Result<Void, any Error>], commit: Bool) -> EventLoopFuture<MediaJobError?> {
        var failure: MediaJobError?
        for case let .failure(error) in results {
            failure = error as? MediaJobError ?? .liveInput(name: options.inputName, reason: "\(error)")
            break
        }
        let outputs = links.files.map { (index: $0.index, name: $0.name, commit: $0.commit) }
        // Without `commit` each output removed its own file when it finished.
        guard commit, !outputs.isEmpty else { return loop.makeSucceededFuture(failure) }
        let finished = failure
        return engine.pool.runIfActive(eventLoop: loop) { () -> MediaJobError? in
            guard finished == nil else {
                for output in outputs { output.commit.discard() }
                return finished
            }
            return OutputCommit.publish(outputs.map { output in
                OutputCommit.Output(rename: output.commit.rename, discard: output.commit.discard) { error in
                    .output(index: output.index, name: output.name, error)
                }
            })
        }.recover { error in .liveInput(name: self.options.inputName, reason: "the file pool stopped: \(error)") }
    }

    func complete(_ outcome: Result<Void, MediaJobError>) {
        guard !end.completed else { return }
        end.completed = true
        for output in links.rtmp { output.handler = nil }
        engine.sessionEnded()
        switch outcome {
        case let .failure(error):
            // The outputs' last counters (reconnects, the error that made one give up) before the failure.
            job.report(snapshot())
            job.complete(.failure(error))
        case .success:
            var result = MediaJobResult(progress: snapshot())
            for file in links.files where file.progress.status == .running { file.progress.status = .finished }
            result.cancelled = end.cancelled
            result.reachedMaxDuration = end.reachedMaxDuration
            if measuresLatency {
                for output in links.rtmp where output.latency.count > 0 {
                    FileHandle.standardError.write(Data((LatencyReport.line(index: output.index, name: output.name, output.latency) + "\n").utf8))
                }
            }
            job.report(result.progress)
            job.complete(.success(result))
        }
    }
}
