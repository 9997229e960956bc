import Foundation
import SluiceTestSupport
import JobQueue
import JobStore
@testable import MediaEngine
@testable import MediaSinks
@testable import Sluice
import Testing
import MediaJob

/// Live jobs on a relay engine hold no thread while they run. An in-process `Worker` against the private
/// broker runs live jobs on a test engine that relays nothing but behaves as the contract says: `start` returns at
/// once, progress and completion come on its one event-loop queue, where nobody may block.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct LiveEngineWorkerTests {
    /// Threads of this process right now (Linux: one entry per task).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    /// Threads of this process named `name` (Linux: /proc/self/task/TID/comm), such as the worker's "sluice-job".
    static func threads(named name: String) -> Int {
        WorkerProcess.threadNames(of: "self").filter { $0 == name }.count
    }

    @Test("30 live jobs at once on the relay engine: threads stay bounded, each job succeeds once with its progress rows and outputs")
    func liveJobsHoldNoThread() async throws {
        let harness = try await QueueHarness("wk-live-engine")
        // Jobs run at least 2 s and until the test lets them end, so all 30 run at once however slow the machine.
        let engine = TimedLiveEngine(duration: .seconds(2), tick: .milliseconds(100), held: true)
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
                            log: WorkerLog(format: .text, workerID: "w-engine", write: lines.append), relayEngine: engine)
        let running = Task { await worker.run() }
        defer { worker.shutdown(); worker.shutdown() }
        try #require(await eventually { broker.isConnected }, "\(lines.text)")
        try await Task.sleep(for: .milliseconds(300))
        let baseline = Self.threadCount()
        let baselineJobThreads = Self.threads(named: "sluice-job")

        let ids = (0..<30).map { "live-\($0)" }
        for (index, id) in ids.enumerated() {
            try await harness.enqueue(WorkerQueueTests.job(id, input: "rtmp://127.0.0.1:1935/live/key\(index)",
                                                           outputs: ["\(id).flv"]))
        }
        let allStarted = await eventually(timeout: .seconds(30)) { engine.active == 30 }
        try #require(allStarted, "engine active \(engine.active), started \(engine.started): \(lines.text.suffix(3000))")
        // Steady state: every job on the engine. A thread per job would add 30; the worker adds its live queue.
        // The other suites of this target run in this process at the same time and start threads of their own, so the
        // total is a coarse bound (a thread per job would add 30); the worker's job threads are counted by name.
        var steady = 0
        var jobThreads = 0
        for _ in 0..<5 {
            steady = max(steady, Self.threadCount())
            jobThreads = max(jobThreads, Self.threads(named: "sluice-job"))
            try await Task.sleep(for: .milliseconds(100))
        }
        print("LiveEngineWorkerTests: \(baseline) threads before, \(steady) with 30 live jobs running, \(jobThreads) named sluice-job")
        #expect(engine.active == 30, "the jobs must still be running while the threads are counted")
        // Other suites' in-process workers may run a batch job or two meanwhile; a thread per live job would add 30.
        #expect(jobThreads - baselineJobThreads <= 5, "sluice-job threads: \(baselineJobThreads) before, \(jobThreads) with 30 live jobs running on the engine")
        #expect(steady - baseline <= 20, "threads: \(baseline) before, \(steady) with 30 live jobs running")
        engine.release()

        let done = try await eventually(timeout: .seconds(40)) { try harness.store.jobs(state: .succeeded).count == 30 }
        let succeeded = try harness.store.jobs(state: .succeeded).count
        try #require(done, "succeeded: \(succeeded); \(lines.text.suffix(3000))")
        #expect(engine.started == 30)
        #expect(engine.longestCallback < .milliseconds(200), "a callback blocked the event loop for \(engine.longestCallback)")
        for id in ids {
            let job = try #require(try harness.job(id))
            #expect(job.attempts == 1 && job.workerID == "w-engine")
            // At least one row while it ran and the final one: how many more depends on how fast the store keeps up
            // with 30 jobs on a loaded machine, which is a benchmark's business, not a test's.
            let samples = try harness.store.progress(jobID: id)
            #expect(samples.count >= 2, "\(id): \(samples.count) progress rows")
            #expect(samples.last?.bytesOut == TimedLiveEngine.finalBytes, "\(id): \(String(describing: samples.last))")
            let outputs = try harness.store.outputs(jobID: id)
            #expect(outputs.count == 1 && outputs[0].state == .succeeded && outputs[0].bytes == TimedLiveEngine.finalBytes)
        }
        #expect(await eventually { ids.allSatisfy { id in harness.events.of(id).contains { $0.kind == "job.succeeded" } } })
        #expect(harness.events.all.contains { $0.kind == "job.progress" })
        // Every lease was given up and nothing waits in any jobs queue.
        let drained = try await eventually {
            let counts = try await harness.counts()
            return counts.keys.allSatisfy { !$0.hasPrefix("sluice.lease.") && !$0.hasPrefix("sluice.batch-lease.") }
                && counts["sluice.jobs"] == 0 && counts["sluice.jobs.live"] == 0 && counts["sluice.jobs.batch"] == 0
        }
        let queues = try await harness.counts()
        #expect(drained, "queues: \(queues)")
        #expect(Self.threadCount() - baseline <= 20, "threads after the jobs ended: \(Self.threadCount()) vs \(baseline)")

        worker.shutdown()
        await running.value
    }
}

extension LiveEngineWorkerTests {
    @Test("on the relay engine: a failing input is retried then dead-lettered, a cancel ends the job cancelled, a shutdown hands the job back at once")
    func failureCancelAndHandOver() async throws {
        let harness = try await QueueHarness("wk-live-engine-ends")
        let engine = TimedLiveEngine(duration: .seconds(60), tick: .milliseconds(200))
        var brokerConfiguration = harness.configuration
        brokerConfiguration.consumesJobs = true
        brokerConfiguration.consumesControl = true
        var configuration = WorkerConfiguration(workerID: "w-ends", batchSlots: 1, liveSlots: 4,
                                                paths: .rooted(inputRoot: Media.inputRoot, outputRoot: harness.outputRoot))
        configuration.retryBackoff = RetryBackoff(base: .milliseconds(200), cap: .seconds(1))
        configuration.grace = .seconds(30)
        brokerConfiguration.classPrefetch = configuration.classPrefetch
        let broker = BrokerConnection(configuration: brokerConfiguration, logger: { _ in })
        let lines = LogCollector()
        let worker = Worker(configuration: configuration, store: harness.store, broker: broker,
                            log: WorkerLog(format: .text, workerID: "w-ends", write: lines.append), relayEngine: engine)
        let running = Task { await worker.run() }
        try #require(await eventually { broker.isConnected }, "\(lines.text)")

        // The engine fails inputs under the application `fail` after a few ticks, with a transient error.
        try await harness.enqueue(WorkerQueueTests.job("fails", input: "rtmp://127.0.0.1:1935/fail/key-secret-1",
                                                       outputs: ["f.flv"], extra: #", "max_attempts": 2"#))
        try await harness.enqueue(WorkerQueueTests.job("cancelled", input: "rtmp://127.0.0.1:1935/live/k2", outputs: ["c.flv"]))
        try await harness.enqueue(WorkerQueueTests.job("handed", input: "rtmp://127.0.0.1:1935/live/k3", outputs: ["h.flv"]))

        let failed = try await eventually { try harness.job("fails")?.state == .failed }
        try #require(failed, "\(lines.text.suffix(3000))")
        let failure = try #require(try harness.job("fails"))
        #expect(failure.attempts == 2)
        #expect(failure.error?.contains("attempt 2 of 2: no attempts left") == true, "\(failure.error ?? "")")
        #expect(try harness.store.events(jobID: "fails").compactMap(\.state) == [.received, .running, .retrying, .running, .failed])
        #expect(try harness.store.outputs(jobID: "fails").first?.state == .failed)
        let dead = try await harness.deadLetters(count: 1)
        #expect(dead.first?.reason?.contains("no attempts left") == true)
        #expect(!lines.text.contains("key-secret-1") && !(failure.error ?? "").contains("key-secret-1"))

        try #require(try await eventually { try harness.job("cancelled")?.state == .running && harness.job("handed")?.state == .running })
        try await harness.publisher.publishControl(.cancel(jobID: "cancelled"))
        let cancelled = try await eventually(timeout: .seconds(5)) { try harness.job("cancelled")?.state == .cancelled }
        #expect(cancelled, "\(lines.text.suffix(3000))")
        #expect(try harness.store.outputs(jobID: "cancelled").first?.state == .cancelled)

        // A live job is handed back at once on shutdown, not after the 30 s grace.
        let stopping = ContinuousClock.now
        worker.shutdown()
        await running.value
        #expect(ContinuousClock.now - stopping < .seconds(10))
        let handed = try #require(try harness.job("handed"))
        #expect(handed.state == .retrying && handed.error?.contains("handed over at once") == true, "\(handed.error ?? "")")
        #expect(try await harness.queued() == 1, "the handed-over job waits in the queues for another worker")
        #expect(engine.active == 0)
        let counts = try await harness.counts()
        #expect(counts.keys.allSatisfy { !$0.contains("lease.") }, "\(counts)")
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

/// A relay engine that relays nothing: every job "runs" `duration`, reporting progress each `tick` on one serial
/// queue (its event loop) and then succeeding, or ending cancelled once its interrupter is cancelled; an input
/// under the application `fail` fails after three ticks as an input timeout would. It measures
/// how long the callers' callbacks hold its event loop.
final class TimedLiveEngine: JobEngine, @unchecked Sendable {
    // Reason: the counters are guarded by `lock`; `loop` is a serial queue; the rest is immutable.
    static let finalBytes: Int64 = 123_456

    private let duration: Duration
    private let tick: Duration
    private let loop = DispatchQueue(label: "test-live-engine-loop")
    private let lock = NSLock()
    private var activeCount = 0
    private var startedCount = 0
    private var longest: Duration = .zero
    private var held: Bool

    /// - Parameters:
    ///   - duration: how long each job runs at least.
    ///   - tick: the progress interval.
    ///   - held: jobs go on past `duration` until `release()` is called.
    init(duration: Duration, tick: Duration, held: Bool = false) {
        self.duration = duration
        self.tick = tick
        self.held = held
    }

    /// Lets held jobs end (each at its next tick past `duration`).
    func release() { lock.withLock { held = false } }

    var active: Int { lock.withLock { activeCount } }
    var started: Int { lock.withLock { startedCount } }
    var longestCallback: Duration { lock.withLock { longest } }

    func runs(_ options: MediaJobOptions) -> Bool { options.liveInput }

    func start(_ options: MediaJobOptions, interrupter: Interrupter, callbacks: JobCallbacks) {
        start(options, interrupter: interrupter, progress: callbacks.progress) { callbacks.completion($0.mapError { $0 as any Error }) }
    }

    private func start(_ options: MediaJobOptions, interrupter: Interrupter,
                       progress: @escaping @Sendable (MediaJobProgress) -> Void,
                       completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) {
        lock.withLock {
            activeCount += 1
            startedCount += 1
        }
        let begin = ContinuousClock.now
        let ticks = max(1, Int(duration / tick))
        step(1, of: ticks, begin: begin, fails: options.inputURL.contains("/fail/"), name: options.inputName,
             interrupter: interrupter, progress: progress, completion: completion)
    }

    private func step(_ index: Int, of ticks: Int, begin: ContinuousClock.Instant, fails: Bool, name: String, interrupter: Interrupter,
                      progress: @escaping @Sendable (MediaJobProgress) -> Void,
                      completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) {
        let (seconds, attoseconds) = tick.components
        let delay = DispatchTimeInterval.microseconds(Int(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        loop.asyncAfter(deadline: .now() + delay) { [self] in
            let snapshot = Self.snapshot(fraction: Double(min(index, ticks)) / Double(ticks), elapsed: (ContinuousClock.now - begin) / .seconds(1))
            if fails, index >= 3 {
                lock.withLock { activeCount -= 1 }
                timed { completion(.failure(.inputTimedOut(name: name, seconds: 1))) }
            } else if (index >= ticks && !lock.withLock({ held })) || interrupter.isCancelled {
                lock.withLock { activeCount -= 1 }
                var result = MediaJobResult(progress: snapshot)
                result.cancelled = interrupter.isCancelled
                timed { completion(.success(result)) }
            } else {
                timed { progress(snapshot) }
                step(index + 1, of: ticks, begin: begin, fails: fails, name: name, interrupter: interrupter,
                     progress: progress, completion: completion)
            }
        }
    }

    private func timed(_ callback: () -> Void) {
        let start = ContinuousClock.now
        callback()
        let took = ContinuousClock.now - start
        lock.withLock { longest = max(longest, took) }
    }

    private static func snapshot(fraction: Double, elapsed: Double) -> MediaJobProgress {
        var progress = MediaJobProgress()
        progress.elapsed = elapsed
        progress.mediaTime = elapsed
        progress.videoFrames = Int(300 * fraction)
        var output = OutputProgress()
        output.bytes = Int64(Double(finalBytes) * fraction)
        output.videoFrames = progress.videoFrames
        progress.outputs = [output]
        return progress
    }
}
