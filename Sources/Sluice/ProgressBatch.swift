// docs/ARCHITECTURE.md §6: running jobs' periodic progress records, written together.
import Foundation
import JobDocument
import JobStore
import MediaJob
import NIOConcurrencyHelpers

/// The progress records that came due on the runner's progress queue, written in one transaction per flush: with a
/// hundred running jobs, one commit a second instead of fifty (docs/BENCHMARKS.md, density). A record waits at most
/// `delay` for its flush; a job's newer record replaces one still waiting, and an attempt that ended drops its own
/// (the end records the final progress itself).
///
/// Called on `queue`, the runner's serial progress queue; the waiting records are locked all the same.
final class ProgressBatch: Sendable {
    private struct Waiting {
        var due: [ObjectIdentifier: (state: AttemptState, record: ProgressRecord)] = [:]
        var flushScheduled = false
    }
    private let waiting = NIOLockedValueBox(Waiting())
    private let store: JobStore
    private let queue: DispatchQueue
    private let delay: Double

    /// - Parameters:
    ///   - store: where the records go.
    ///   - queue: the serial queue every call comes on, and the flush runs on.
    ///   - delay: seconds from the first waiting record to the flush.
    init(store: JobStore, queue: DispatchQueue, delay: Double) {
        self.store = store
        self.queue = queue
        self.delay = delay
    }

    /// Queues `record` of the attempt `state` for the next flush. On the queue.
    func add(_ record: ProgressRecord, of state: AttemptState) {
        let schedule = waiting.withLockedValue { waiting in
            waiting.due[ObjectIdentifier(state)] = (state, record)
            defer { waiting.flushScheduled = true }
            return !waiting.flushScheduled
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + delay) { [self] in flush() }
    }

    /// Forgets the attempt's waiting record, if any. On the queue.
    func drop(_ state: AttemptState) {
        waiting.withLockedValue { $0.due[ObjectIdentifier(state)] = nil }
    }

    /// Writes every waiting record in one transaction; a record refused, or the transaction failing, is the store
    /// error of the attempts concerned (the runner reports it when the attempt ends, as for a write of its own).
    private func flush() {
        let entries = waiting.withLockedValue { waiting in
            waiting.flushScheduled = false
            defer { waiting.due.removeAll(keepingCapacity: true) }
            return Array(waiting.due.values)
        }
        guard !entries.isEmpty else { return }
        do throws(JobStoreError) {
            for (position, error) in try store.updateProgress(entries.map(\.record)) {
                entries[position].state.failed(error)
            }
        } catch {
            for entry in entries { entry.state.failed(error) }
        }
    }
}

extension JobRunner {
    /// Writes the job's record of a progress snapshot now, alone (an attempt's end, with `final` for its outputs).
    func record(_ snapshot: MediaJobProgress, for spec: JobSpec, final: OutputState? = nil) throws(JobStoreError) {
        try store.updateProgress(progressRecord(snapshot, for: spec, final: final))
    }

    /// The job's record of a progress snapshot: its counters, a sample, and each output's counters and state.
    func progressRecord(_ snapshot: MediaJobProgress, for spec: JobSpec, final: OutputState? = nil) -> ProgressRecord {
        let elapsed = max(snapshot.elapsed, 0.001)
        return ProgressRecord(id: spec.id, progress: JobProgress(
            mediaTimeSeconds: snapshot.mediaTime,
            frames: snapshot.videoFrames,
            bytesIn: snapshot.bytesIn,
            bytesOut: snapshot.bytesOut,
            dtsRepairs: snapshot.dtsRepairs,
            speed: snapshot.speed,
            fps: Double(snapshot.videoFrames) / elapsed,
            bitrateKbps: Double(snapshot.bytesOut) * 8 / 1000 / elapsed
        ), outputs: snapshot.outputs.enumerated().map { index, output in
            (index, OutputUpdate(
                state: JobRunner.state(of: output, final: final), bytes: output.bytes, frames: output.videoFrames,
                drops: output.drops, reconnects: output.reconnects,
                lastError: output.lastError.map { Redaction.scrub($0, urls: spec.secretURLs + editedURLs.urls(of: spec.id)) },
                srt: output.srt.map(SRTLinkRecord.init)))
        })
    }
}
