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
        guard !ending else { return }
        ending = true
        engine.housekeeping.on(loop).remove(self)
        fallback?.stop()
        pullSource.retry?.cancel()
        pullSource.handler?.channel?.close(promise: nil)
        pullSource.handler = nil
        publisher.channel?.close(promise: nil)
        publisher.channel = nil
        if let route = publisher.route { engine.ingest.unregister(route) }
        closeSRTSource()
        var closing = closeSRTOutputs()
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
        // Video that reached no file (or no output) is named first; an archive without any packet after that.
        if case .success = outcome, !end.cancelled, let silent = silentMediaFailure() { outcome = .failure(silent) }
        if case .success = outcome, !end.cancelled, let empty = fileOutputs.first(where: { $0.progress.packets == 0 && $0.failure == nil }) {
            outcome = .failure(.emptyOutput(index: empty.index, name: empty.name))
        }
        var commit = false
        if case .success = outcome { commit = true }
        // Files are finished whatever happens (published on success, removed otherwise) before the job completes.
        let files = fileOutputs.map { file in
            file.finish(commit: commit).flatMapErrorThrowing { error in
                throw MediaJobError.output(index: file.index, name: file.name, error)
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
                    if case let .failure(error as MediaJobError) = result {
                        final = .failure(error)
                        break
                    }
                }
            }
            complete(final)
        }
    }

    func complete(_ outcome: Result<Void, MediaJobError>) {
        guard !end.completed else { return }
        end.completed = true
        for output in outputs { output.handler = nil }
        engine.sessionEnded()
        switch outcome {
        case let .failure(error):
            // The outputs' last counters (reconnects, the error that made one give up) before the failure.
            progressHandler(snapshot())
            completion(.failure(error))
        case .success:
            var result = MediaJobResult(progress: snapshot())
            for file in fileOutputs where file.progress.status == .running { file.progress.status = .finished }
            result.cancelled = end.cancelled
            result.reachedMaxDuration = end.reachedMaxDuration
            if RelaySession.measuresLatency {
                for output in outputs where output.latency.count > 0 {
                    FileHandle.standardError.write(Data((LatencyReport.line(index: output.index, name: output.name, output.latency) + "\n").utf8))
                }
            }
            progressHandler(result.progress)
            completion(.success(result))
        }
    }
}
