import Foundation
import JobStore
import MediaEngine
import MediaJob
import JobDocument
import NIOConcurrencyHelpers
import NamedThreads

/// How one run of a job ended, with the text recorded in the store.
public enum JobOutcome: Sendable {
    case succeeded(MediaJobResult)
    case failed(JobFailure)
    /// A transient failure with attempts left, or an attempt interrupted to be requeued: state `retrying`.
    case retrying(JobFailure)
    /// The document did not validate: straight to `rejected`, never run (docs/ARCHITECTURE.md §6).
    case rejected(JobSpecError)
    case cancelled(MediaJobResult?)
    /// The id already succeeded: not run again.
    case alreadySucceeded(JobRecord)

    /// `sluice run`'s exit status: 0 success (or already done), 1 failure, 2 invalid job.
    public var exitCode: Int32 {
        switch self {
        case .succeeded, .alreadySucceeded: return 0
        case .failed, .retrying, .cancelled: return 1
        case .rejected: return 2
        }
    }
}

/// How an attempt ends when it does not succeed; `sluice run` uses `.final`, the queue worker retries.
public struct AttemptPolicy: Sendable {
    /// A transient failure with attempts left ends in `retrying` instead of `failed`.
    public var retriesTransientFailures: Bool
    /// Asked when the job stopped on an interrupt: a reason means "not cancelled, to be requeued"
    /// (the worker is shutting down); nil records `cancelled`.
    public var requeueReason: @Sendable () -> String?
    /// The attempt starts by removing the `.part` files earlier attempts of the same job left (a worker killed
    /// mid-job). Only for a caller that holds the job's lease, which proves no other attempt writes them.
    public var removesEarlierParts: Bool

    public init(retriesTransientFailures: Bool, removesEarlierParts: Bool = false,
                requeueReason: @escaping @Sendable () -> String? = { nil }) {
        self.retriesTransientFailures = retriesTransientFailures
        self.removesEarlierParts = removesEarlierParts
        self.requeueReason = requeueReason
    }

    /// Every failure is final and every interrupt a cancel.
    public static let final = AttemptPolicy(retriesTransientFailures: false)
}

/// Validates, records and runs jobs against one store. One way to run an attempt: `startAttempt` starts it on its
/// engine and records its progress and its end; `run` and `runAttempt` wait for that end on the calling thread
/// (never call them from Swift's cooperative pool).
public final class JobRunner: Sendable {
    public let store: JobStore
    public let workerID: String
    public let paths: PathPolicy
    /// URLs of outputs added to running attempts (output edits), scrubbed from their errors like the spec's own.
    let editedURLs = EditedOutputURLs()
    /// Seconds between progress rows written to the store.
    public let storeInterval: Double
    /// Told of every state the runner commits (after the commit), so the worker can publish `job.<state>`.
    public let onTransition: @Sendable (CommittedTransition) -> Void
    /// Where attempts' progress is written (one serial queue, whatever the number of jobs).
    let progressQueue = DispatchQueue(label: "sluice-job-progress")
    /// Running attempts' progress records, written together on `progressQueue`.
    let progressBatch: ProgressBatch

    /// Where live HLS outputs publish their playlists for the worker's HTTP server; nil: nowhere.
    public let livePlaylists: LivePlaylistRegistry?

    public init(store: JobStore, workerID: String, paths: PathPolicy, storeInterval: Double = 2,
                livePlaylists: LivePlaylistRegistry? = nil,
                onTransition: @escaping @Sendable (CommittedTransition) -> Void = { _ in }) {
        self.livePlaylists = livePlaylists
        self.store = store
        self.workerID = workerID
        self.paths = paths
        self.storeInterval = storeInterval
        self.onTransition = onTransition
        progressBatch = ProgressBatch(store: store, queue: progressQueue, delay: min(1, storeInterval / 2))
    }

    /// Runs a job document (JSON bytes) and waits for its end.
    /// - Parameters:
    ///   - document: the job spec as submitted.
    ///   - interrupter: cancels the job from another thread (signal, control message).
    ///   - relay: the relay engine: it runs the live copy jobs, and carries every RTMP byte of the others.
    ///   - progress: called on the runner's progress queue with every progress snapshot.
    public func run(document: Data, interrupter: Interrupter = Interrupter(), relay: (any JobEngine)? = nil,
                    progress: @escaping @Sendable (JobSpec, MediaJobProgress) -> Void = { _, _ in }) throws(JobStoreError) -> JobOutcome {
        let spec: JobSpec
        do {
            spec = try JobSpec.parse(document)
        } catch {
            let id = error.id ?? JobRunner.generatedID()
            _ = try store.reject(id: id, spec: String(decoding: document, as: UTF8.self),
                                 specRedacted: JobSpec.redactedText(of: document), error: error.description, workerID: workerID)
            return .rejected(error)
        }
        return try run(spec: spec, interrupter: interrupter, relay: relay, progress: progress)
    }

    /// Runs a validated job: records it, runs it, records how it ended, and waits for that.
    public func run(spec: JobSpec, interrupter: Interrupter = Interrupter(), relay: (any JobEngine)? = nil,
                    progress: @escaping @Sendable (JobSpec, MediaJobProgress) -> Void = { _, _ in }) throws(JobStoreError) -> JobOutcome {
        if case let .alreadySucceeded(record) = try receive(spec) { return .alreadySucceeded(record) }
        return try runAttempt(spec: spec, interrupter: interrupter, relay: relay, progress: progress)
    }

    /// Records a delivered job (see `JobStore.receive`) with its secrets redacted.
    public func receive(_ spec: JobSpec) throws(JobStoreError) -> ReceiveOutcome {
        try store.receive(NewJob(
            id: spec.id,
            spec: spec.document.jsonText(),
            specRedacted: spec.redactedDocument.jsonText(),
            input: spec.redactedInput,
            outputs: spec.outputs.map { NewOutput(url: $0.redactedURL, format: $0.format.rawValue) },
            priority: spec.priority,
            maxAttempts: spec.maxAttempts,
            workerID: workerID
        ))
    }

    /// Runs one attempt of a received job and waits for its end: `startAttempt`, then the caller's thread waits
    /// (`sluice run`, tests). The job itself runs on its engine, never on the calling thread.
    public func runAttempt(spec: JobSpec, interrupter: Interrupter = Interrupter(), policy: AttemptPolicy = .final,
                           relay: (any JobEngine)? = nil,
                           progress: @escaping @Sendable (JobSpec, MediaJobProgress) -> Void = { _, _ in }) throws(JobStoreError) -> JobOutcome {
        let ending = AttemptEnding()
        switch try startAttempt(spec: spec, relay: relay, interrupter: interrupter, policy: policy, progress: progress,
                                completion: { ending.finish($0) }) {
        case let .ended(outcome): return outcome
        case .started: return try ending.wait().get()
        }
    }

    /// The engine that runs these options: the relay engine when it runs them (a live copy), else the codec engine,
    /// whose RTMP bytes go through the relay engine.
    static func engine(for options: MediaJobOptions, relay: (any JobEngine)?) -> any JobEngine {
        if let relay, runsOnRelay(options, relay: relay) { return relay }
        return CodecEngine(transport: relay as? any LiveTransport)
    }

    /// Whether the relay engine runs these options: a live copy, whatever its outputs (`RelayEngine.supports`).
    static func runsOnRelay(_ options: MediaJobOptions, relay: (any JobEngine)?) -> Bool {
        relay?.runs(options) == true
    }

    /// Starts one attempt of a received job on its engine without keeping a thread for it: the blocking start (the
    /// store's `running`, the plan, the output rows) runs on the calling thread, then the engine takes the job and
    /// this returns. Progress is written on the runner's one serial queue; the end is recorded on a short-lived
    /// thread of its own (it may wait for the store or the broker), which then calls `completion`.
    /// - Parameters:
    ///   - spec: the validated job, already recorded with `receive`.
    ///   - relay: the relay engine (see `engine(for:relay:)`); nil runs every job on the codec engine.
    ///   - interrupter: cancels the attempt from another thread.
    ///   - policy: whether transient failures become `retrying` and interrupts may be requeues.
    ///   - progress: called on the serial queue with every progress snapshot (never on an event loop).
    ///   - completion: the attempt's outcome, or the store's failure, once, on the attempt's closing thread.
    /// - Returns: `.started`; or `.ended` when the attempt ended before an engine had it (e.g. a plan that fails).
    public func startAttempt(spec: JobSpec, relay: (any JobEngine)?, interrupter: Interrupter, policy: AttemptPolicy,
                             progress: @escaping @Sendable (JobSpec, MediaJobProgress) -> Void,
                             completion: @escaping @Sendable (Result<JobOutcome, JobStoreError>) -> Void) throws(JobStoreError) -> AttemptStart {
        let plan: JobPlan
        let attempt: Int
        switch try begin(spec, policy: policy) {
        case let .ended(outcome): return .ended(outcome)
        case let .planned(planned, number): (plan, attempt) = (planned, number)
        }
        let state = AttemptState()
        let queue = progressQueue
        let callbacks = JobCallbacks(progress: { [self] snapshot in
            queue.async { [self] in
                guard !state.fields.withLockedValue({ $0.ended }) else { return }
                progress(spec, snapshot)
                let slate = state.fields.withLockedValue { $0.slateEvents.events(for: snapshot.slate) }
                do throws(JobStoreError) { try recordSlate(slate, for: spec) } catch { state.failed(error) }
                let due = state.fields.withLockedValue { fields in
                    guard Date().timeIntervalSince(fields.lastStored) >= storeInterval else { return false }
                    fields.lastStored = Date()
                    return true
                }
                guard due else { return }
                progressBatch.add(progressRecord(snapshot, for: spec), of: state)
            }
        }, encoderSelected: { [self] selection in
            queue.async { [self] in
                do throws(JobStoreError) { try recordEncoder(selection, for: spec) } catch { state.failed(error) }
            }
        }, discardsOutputsOnCancel: {
            // Asked once, on the job's thread, when it stopped on a cancel: a requeue (shutdown) publishes nothing.
            let reason = policy.requeueReason()
            queue.sync { state.fields.withLockedValue { $0.requeueAnswer = .some(reason) } }
            return reason != nil
        }, segment: { [self] report in
            queue.async { [self] in
                do throws(JobStoreError) { try recordSegment(report, for: spec) } catch { state.failed(error) }
            }
        }, completion: { [self] result in
            // Behind every progress write already queued; then off the queue, which must never wait on the broker.
            queue.async { [self] in
                let (storeError, answered) = state.fields.withLockedValue { fields in
                    fields.ended = true
                    return (fields.storeError, fields.requeueAnswer)
                }
                progressBatch.drop(state)
                startNamedThread("sluice-job-end") { [self] in
                    if case .success = result, let storeError {
                        completion(.failure(storeError))
                        return
                    }
                    let requeueReason = answered ?? (interrupter.isCancelled ? policy.requeueReason() : nil)
                    do throws(JobStoreError) {
                        completion(.success(try end(spec, attempt: attempt, policy: policy, result, requeueReason: requeueReason)))
                    } catch {
                        completion(.failure(error))
                    }
                }
            }
        })
        var options = plan.options
        options.livePlaylists = livePlaylists
        options.jobID = spec.id
        JobRunner.engine(for: options, relay: relay).start(options, interrupter: interrupter, callbacks: callbacks)
        return .started
    }

    /// How `startAttempt` went.
    public enum AttemptStart: Sendable {
        /// The engine runs the job; `completion` will be called.
        case started
        /// The attempt ended before an engine took it (its outcome is recorded); `completion` is not called.
        case ended(JobOutcome)
    }

    private enum Beginning {
        case ended(JobOutcome)
        case planned(JobPlan, attempt: Int)
    }

    /// The blocking start of an attempt: `running`, the plan (a plan that fails ends the attempt), output rows.
    private func begin(_ spec: JobSpec, policy: AttemptPolicy) throws(JobStoreError) -> Beginning {
        editedURLs.forget(jobID: spec.id)
        let started = try store.beginAttempt(id: spec.id, workerID: workerID)
        let attempt = started.attempts
        onTransition(started)
        var plan: JobPlan
        do {
            plan = try JobPlan(spec: spec, paths: paths)
        } catch {
            return .ended(try fail(spec, JobFailure(classifying: error, spec: spec), attempt: attempt, policy: policy))
        }
        if policy.removesEarlierParts, let owner = plan.options.partOwner {
            // Before anything is written: the segment a killed attempt cut short is closed ahead of the next one.
            try salvageSegments(spec, plan: &plan, owner: owner)
            let removed = PartSweep.removeParts(of: plan.filePaths, root: plan.options.fileRoots?.output, owner: owner)
            if !removed.isEmpty {
                try store.recordEvent(
                    id: spec.id, kind: .partsRemoved,
                    message: "removed \(removed.count) temporary file\(removed.count == 1 ? "" : "s") an earlier attempt left: "
                        + removed.joined(separator: ", "))
            }
        }
        for index in spec.outputs.indices {
            try store.updateOutput(jobID: spec.id, index: index, update: OutputUpdate(state: .running))
        }
        return .planned(plan, attempt: attempt)
    }

    /// Records how an attempt ended: a job error fails it, a cancel is a cancel or (with a reason) a requeue.
    private func end(_ spec: JobSpec, attempt: Int, policy: AttemptPolicy, _ ran: Result<MediaJobResult, any Error>,
                     requeueReason: String?) throws(JobStoreError) -> JobOutcome {
        let result: MediaJobResult
        switch ran {
        case let .success(value):
            result = value
        case let .failure(error):
            // Every row of the attempt, outputs added on the fly included; a removed one stays removed.
            for row in try store.outputs(jobID: spec.id) where row.state != .removed {
                let lastError = spec.outputs.indices.contains(row.index) ? JobRunner.outputError(error, index: row.index, spec: spec) : nil
                try store.updateOutput(jobID: spec.id, index: row.index, update: OutputUpdate(state: .failed, lastError: lastError))
            }
            return try fail(spec, JobFailure(classifying: error, spec: spec), attempt: attempt, policy: policy)
        }
        try record(result.progress, for: spec, final: result.cancelled ? .cancelled : .succeeded)
        if result.cancelled {
            let media = "\(String(format: "%.1f", result.progress.mediaTime)) s of media"
            if let reason = requeueReason {
                let text = "job \(spec.id): interrupted after \(media): \(reason)" + (result.outputsDiscarded ? "; its outputs were discarded" : "")
                onTransition(try store.transition(id: spec.id, to: .retrying, error: text))
                return .retrying(JobFailure(message: text, isTransient: true))
            }
            onTransition(try store.transition(id: spec.id, to: .cancelled, message: "cancelled after \(media)"))
            return .cancelled(result)
        }
        var summary = "\(result.progress.videoFrames) video frames, \(result.progress.audioFrames) audio frames, \(result.progress.bytesOut) bytes out"
        if result.progress.dtsRepairs > 0 { summary += ", \(result.progress.dtsRepairs) timestamps repaired" }
        if result.reachedMaxDuration { summary += ", stopped at max_duration_s" }
        let drops = result.progress.outputs.reduce(0) { $0 + $1.drops }
        let reconnects = result.progress.outputs.reduce(0) { $0 + $1.reconnects }
        if reconnects > 0 { summary += ", \(reconnects) output reconnects" }
        if result.progress.inputReconnects > 0 { summary += ", input reconnected \(result.progress.inputReconnects) times" }
        if drops > 0 { summary += ", \(drops) packets dropped by slow or reconnecting outputs" }
        if let slate = result.progress.slate, slate.switches > 0 {
            summary += ", on slate \(slate.switches) time\(slate.switches == 1 ? "" : "s") for \(SlateEventTracker.seconds(slate.seconds)) s"
        }
        if let lost = JobRunner.lostOutputs(result.progress, spec: spec) { summary += "; " + lost }
        onTransition(try store.transition(id: spec.id, to: .succeeded, message: summary))
        return .succeeded(result)
    }

    private func fail(_ spec: JobSpec, _ failure: JobFailure, attempt: Int, policy: AttemptPolicy) throws(JobStoreError) -> JobOutcome {
        var text = "job \(spec.id): \(failure.message)"
        if policy.retriesTransientFailures && failure.isTransient {
            if attempt < spec.maxAttempts {
                onTransition(try store.transition(id: spec.id, to: .retrying, error: text,
                                                  message: "\(text) (attempt \(attempt) of \(spec.maxAttempts); will retry)"))
                return .retrying(JobFailure(message: text, isTransient: true))
            }
            text += " (attempt \(attempt) of \(spec.maxAttempts): no attempts left)"
        }
        onTransition(try store.transition(id: spec.id, to: .failed, error: text))
        return .failed(JobFailure(message: text, isTransient: failure.isTransient))
    }

    private func recordSlate(_ events: [(kind: EventKind, message: String)], for spec: JobSpec) throws(JobStoreError) {
        for event in events { try store.recordEvent(id: spec.id, kind: event.kind, message: event.message) }
    }

    /// An id for a document whose own id could not be read, so its rejection is still recorded.
    static func generatedID() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return "rejected-\(formatter.string(from: Date()))-\(UInt32.random(in: 0...UInt32.max))"
    }
}

/// One attempt's store bookkeeping. The runner's one serial queue takes every progress write the engines hand over,
/// in order, so that no job needs a thread of its own while it runs.
/// Used on `progressQueue` (and by the codec engine's one question, answered through it); locked all the same, so
/// the compiler checks what a queue alone cannot say.
final class AttemptState: Sendable {
    struct Fields {
        var lastStored = Date.distantPast
        var storeError: JobStoreError?
        /// Set when the completion arrived: a progress report after it is not recorded.
        var ended = false
        var slateEvents = SlateEventTracker()
        /// What `policy.requeueReason()` said when the codec engine asked whether to discard its outputs on a cancel.
        var requeueAnswer: String??
    }
    let fields = NIOLockedValueBox(Fields())

    /// A write of the attempt failed: the attempt reports it when it ends (the latest such error).
    func failed(_ error: JobStoreError) { fields.withLockedValue { $0.storeError = error } }
}

/// Where `runAttempt`'s caller waits for the attempt's completion.
private final class AttemptEnding: Sendable {
    private let outcome = NIOLockedValueBox<Result<JobOutcome, JobStoreError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    func finish(_ result: Result<JobOutcome, JobStoreError>) {
        outcome.withLockedValue { $0 = result }
        finished.signal()
    }

    func wait() -> Result<JobOutcome, JobStoreError> {
        while true {
            if let outcome = outcome.withLockedValue({ $0 }) { return outcome }
            finished.wait()
        }
    }
}

extension SRTLinkRecord {
    /// The stored form of what the relay measured.
    init(_ link: SRTLinkStatistics) {
        self.init(roundTripMilliseconds: link.roundTripMilliseconds, sendMegabitsPerSecond: link.sendMegabitsPerSecond,
                  packetsSent: link.packetsSent, packetsLost: link.packetsLost, packetsRetransmitted: link.packetsRetransmitted,
                  packetsDropped: link.packetsDropped)
    }
}
