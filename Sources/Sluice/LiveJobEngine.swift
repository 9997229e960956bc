// Live jobs on an event-driven engine, without a thread per running job (docs/ARCHITECTURE.md §3, §4).
import Foundation
import JobStore
import LiveRelay
import MediaEngine
import MediaPipeline

/// What the worker and `sluice run` need of a live engine: LiveRelay's `LiveEngine` (whose methods have exactly
/// these names and types, so its conformance is an empty extension) or a test double.
public protocol LiveJobEngine: AnyObject, Sendable {
    /// Whether this engine runs these pipeline options.
    static func supports(_ options: PipelineOptions) -> Bool
    /// Starts a job and returns at once; `progress` (about once a second) and `completion` (exactly once) are
    /// called on an event loop, where the caller must not block.
    func start(_ options: PipelineOptions, interrupter: Interrupter,
               progress: @escaping @Sendable (PipelineProgress) -> Void,
               completion: @escaping @Sendable (Result<PipelineResult, PipelineError>) -> Void)
    /// Runs a job to its end on the calling thread (never an event loop).
    func run(_ options: PipelineOptions, interrupter: Interrupter,
             progress: @escaping @Sendable (PipelineProgress) -> Void) throws(PipelineError) -> PipelineResult
    /// Stops the engine's listeners; idempotent.
    func shutdown()
}

extension LiveJobEngine {
    /// `supports` through an instance, for callers holding `any LiveJobEngine`.
    public func runs(_ options: PipelineOptions) -> Bool { Self.supports(options) }
}

/// One live attempt's store bookkeeping. The runner's one serial queue takes every progress write the engine's
/// event loops hand over, in order, so that no live job needs a thread while it runs.
final class LiveAttemptState: @unchecked Sendable {
    // Reason: every field is read and written only on the runner's serial `liveQueue`.
    var lastStored = Date.distantPast
    var storeError: JobStoreError?
    /// Set when the completion arrived: a progress report after it is not recorded.
    var ended = false
    var slateEvents = SlateEventTracker()
}

/// LiveRelay's engine is the one the worker and `sluice run` use.
extension LiveEngine: LiveJobEngine {}
