import Foundation
import JobQueue
import JobStore
@testable import MediaEngine
@testable import Sluice
import Testing

/// Issue #12: live jobs on a live engine hold no thread while they run. An in-process `Worker` against the private
/// broker runs live jobs on a test engine that relays nothing but behaves as the contract says: `start` returns at
/// once, progress and completion come on its one event-loop queue, where nobody may block.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct LiveEngineWorkerTests {
    /// Threads of this process right now (Linux: one entry per task).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    @Test("30 live jobs at once on the live engine: threads stay bounded, each job succeeds once with its progress rows and outputs")
    func liveJobsHoldNoThread() async throws {
        let harness = try await QueueHarness("wk-live-engine")
        let engine = TimedLiveEngine(duration: .seconds(4), tick: .milliseconds(100))
        var brokerConfiguration = harness.configuration
        brokerConfiguration.consumesJobs = true
        brokerConfiguration.consumesControl = true
        brokerConfiguration.prefetch = 16
        brokerConfiguration.connectionName = "live-engine-worker"
        var configuration = WorkerConfiguration(workerID: "w-engine", batchSlots: 1, liveSlots: 40,
                                                paths: .rooted(inputRoot: Media.inputRoot, outputRoot: harness.outputRoot))
        configuration.storeInterval = 0.3
        configuration.progressEventInterval = 1
        brokerConfiguration.classPrefetch = configuration.classPrefetch
        let broker = BrokerConnection(configuration: brokerConfiguration, logger: { _ in })
        let lines = LogCollector()
        let worker = Worker(configuration: configuration, store: harness.store, broker: broker,
                            log: WorkerLog(format: .text, workerID: "w-engine", write: lines.append), liveEngine: engine)
        let running = Task { await worker.run() }
        defer { worker.shutdown(); worker.shutdown() }
        try #require(await eventually { broker.isConnected }, "\(lines.text)")
        try await Task.sleep(for: .milliseconds(300))
        let baseline = Self.threadCount()

        let ids = (0..<30).map { "live-\($0)" }
        for (index, id) in ids.enumerated() {
            try await harness.enqueue(WorkerQueueTests.job(id, input: "rtmp://127.0.0.1:1935/live/key\(index)",
                                                           outputs: ["\(id).flv"]))
        }
        let allStarted = await eventually(timeout: .seconds(30)) { engine.active == 30 }
        try #require(allStarted, "engine active \(engine.active), started \(engine.started): \(lines.text.suffix(3000))")
        // Steady state: every job on the engine. A thread per job would add 30; the worker adds its live queue.
        var steady = 0
        for _ in 0..<5 {
            steady = max(steady, Self.threadCount())
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(engine.active == 30, "the jobs must still be running while the threads are counted")
        #expect(steady - baseline <= 10, "threads: \(baseline) before, \(steady) with 30 live jobs running")

        let done = try await eventually(timeout: .seconds(40)) { try harness.store.jobs(state: .succeeded).count == 30 }
        let succeeded = try harness.store.jobs(state: .succeeded).count
        try #require(done, "succeeded: \(succeeded); \(lines.text.suffix(3000))")
        #expect(engine.started == 30)
        #expect(engine.longestCallback < .milliseconds(200), "a callback blocked the event loop for \(engine.longestCallback)")
        for id in ids {
            let job = try #require(try harness.job(id))
            #expect(job.attempts == 1 && job.workerID == "w-engine")
            let samples = try harness.store.progress(jobID: id)
            #expect(samples.count >= 3, "\(id): \(samples.count) progress rows")
            #expect(samples.last?.bytesOut == TimedLiveEngine.finalBytes, "\(id): \(String(describing: samples.last))")
            let outputs = try harness.store.outputs(jobID: id)
            #expect(outputs.count == 1 && outputs[0].state == .succeeded && outputs[0].bytes == TimedLiveEngine.finalBytes)
        }
        #expect(await eventually { ids.allSatisfy { id in harness.events.of(id).contains { $0.kind == "job.succeeded" } } })
        #expect(harness.events.all.contains { $0.kind == "job.progress" })
        // Every lease was given up and nothing waits in any jobs queue.
        let drained = try await eventually {
            let counts = try await harness.counts()
            return counts.keys.allSatisfy { !$0.hasPrefix("sluice.lease.") && !$0.hasPrefix("sluice.live-lease.") }
                && counts["sluice.jobs"] == 0 && counts["sluice.jobs.live"] == 0 && counts["sluice.jobs.batch"] == 0
        }
        let queues = try await harness.counts()
        #expect(drained, "queues: \(queues)")
        #expect(Self.threadCount() - baseline <= 10, "threads after the jobs ended: \(Self.threadCount()) vs \(baseline)")

        worker.shutdown()
        await running.value
    }
}

/// Collects the worker's log lines.
final class LogCollector: @unchecked Sendable {
    // Reason: `lines` is guarded by `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    var append: @Sendable (String) -> Void { { line in self.lock.withLock { self.lines.append(line) } } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}

/// A live engine that relays nothing: every job "runs" `duration`, reporting progress each `tick` on one serial
/// queue (its event loop) and then succeeding, or ending cancelled once its interrupter is cancelled. It measures
/// how long the callers' callbacks hold its event loop.
final class TimedLiveEngine: LiveJobEngine, @unchecked Sendable {
    // Reason: the counters are guarded by `lock`; `loop` is a serial queue; the rest is immutable.
    static let finalBytes: Int64 = 123_456

    private let duration: Duration
    private let tick: Duration
    private let loop = DispatchQueue(label: "test-live-engine-loop")
    private let lock = NSLock()
    private var activeCount = 0
    private var startedCount = 0
    private var longest: Duration = .zero

    init(duration: Duration, tick: Duration) {
        self.duration = duration
        self.tick = tick
    }

    var active: Int { lock.withLock { activeCount } }
    var started: Int { lock.withLock { startedCount } }
    var longestCallback: Duration { lock.withLock { longest } }

    static func supports(_ options: PipelineOptions) -> Bool { options.liveInput }

    func start(_ options: PipelineOptions, interrupter: Interrupter,
               progress: @escaping @Sendable (PipelineProgress) -> Void,
               completion: @escaping @Sendable (Result<PipelineResult, PipelineError>) -> Void) {
        lock.withLock {
            activeCount += 1
            startedCount += 1
        }
        let begin = ContinuousClock.now
        let ticks = max(1, Int(duration / tick))
        step(1, of: ticks, begin: begin, interrupter: interrupter, progress: progress, completion: completion)
    }

    private func step(_ index: Int, of ticks: Int, begin: ContinuousClock.Instant, interrupter: Interrupter,
                      progress: @escaping @Sendable (PipelineProgress) -> Void,
                      completion: @escaping @Sendable (Result<PipelineResult, PipelineError>) -> Void) {
        let (seconds, attoseconds) = tick.components
        let delay = DispatchTimeInterval.microseconds(Int(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        loop.asyncAfter(deadline: .now() + delay) { [self] in
            let snapshot = Self.snapshot(fraction: Double(index) / Double(ticks), elapsed: (ContinuousClock.now - begin) / .seconds(1))
            if index >= ticks || interrupter.isCancelled {
                lock.withLock { activeCount -= 1 }
                var result = PipelineResult(progress: snapshot)
                result.cancelled = index < ticks
                timed { completion(.success(result)) }
            } else {
                timed { progress(snapshot) }
                step(index + 1, of: ticks, begin: begin, interrupter: interrupter, progress: progress, completion: completion)
            }
        }
    }

    private func timed(_ callback: () -> Void) {
        let start = ContinuousClock.now
        callback()
        let took = ContinuousClock.now - start
        lock.withLock { longest = max(longest, took) }
    }

    private static func snapshot(fraction: Double, elapsed: Double) -> PipelineProgress {
        var progress = PipelineProgress()
        progress.elapsed = elapsed
        progress.mediaTime = elapsed
        progress.videoFrames = Int(300 * fraction)
        var output = OutputProgress()
        output.bytes = Int64(Double(finalBytes) * fraction)
        output.videoFrames = progress.videoFrames
        progress.outputs = [output]
        return progress
    }

    func run(_ options: PipelineOptions, interrupter: Interrupter,
             progress: @escaping @Sendable (PipelineProgress) -> Void) throws(PipelineError) -> PipelineResult {
        let done = DispatchSemaphore(value: 0)
        let box = LockedResult()
        start(options, interrupter: interrupter, progress: progress) { result in
            box.set(result)
            done.signal()
        }
        done.wait()
        return try box.get()
    }

    func shutdown() {}
}

/// The engine's result, carried from its event loop to the thread waiting in `run`.
private final class LockedResult: @unchecked Sendable {
    // Reason: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Result<PipelineResult, PipelineError>?
    func set(_ result: Result<PipelineResult, PipelineError>) { lock.withLock { value = result } }
    func get() throws(PipelineError) -> PipelineResult {
        guard let value = lock.withLock({ value }) else { throw PipelineError.noStreams(name: "the test engine ended without a result") }
        return try value.get()
    }
}
