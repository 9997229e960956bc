import Foundation
import SluiceTestSupport
import JobStore
import Testing
@testable import JobQueue

/// The broker made unreachable exactly at the settle (docs/ARCHITECTURE.md §5, settling): the real `sluice worker`
/// reaches the broker through a relay of the test's own, which cuts the worker's connection the moment the worker
/// sends the publish (or the lease deletion) that settles a job, so the broker never sees it. The worker hears nothing
/// more on that connection and finds out by its heartbeat; the broker's side is either reset (it hands the job's claim
/// back at once) or silent too (it drops the connection at its own heartbeat timeout). Either way the job must be
/// taken over from its claim or settled, once: never lost, never settled twice.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(8)))
struct SettleOutageTests {
    /// What settles the job, and so what the trap waits for.
    enum Settle: String, CaseIterable {
        /// A permanent failure: the publish of its dead letter.
        case deadLetter
        /// A transient failure with an attempt left: the publish of its retry.
        case retry
        /// A success: the deletion of its lease queue.
        case success
    }

    static let runs = 20
    /// The claim TTL: longer than the worker's heartbeat detection (2 s) and reconnect, so that a lease released on a
    /// failed publish is deleted with its claim still in it, which is how a job was lost.
    static let orphanSeconds = 4
    /// Each run's wait for its job's end: a detection (2 s), a claim expiry (4 s) and a second attempt, on a loaded machine.
    static let runTimeout = Duration.seconds(45)

    @Test("the broker unreachable at the settle, 20 times: every job is taken over or settled, once; none lost, none twice")
    func brokerLostAtTheSettle() async throws {
        let harness = try await QueueHarness("wk-settle-outage")
        let broker = harness.configuration.url
        let relay = try TCPRelay(to: broker.host == "localhost" ? "127.0.0.1" : broker.host, port: broker.port)
        defer { relay.stop() }
        let clip = try await Media.clip(seconds: 1)
        let worker = try WorkerProcess(environment: QueueHarness.secretsEnvironment, arguments: [
            "worker", "--amqp-url", "amqp://\(broker.user):\(broker.password)@127.0.0.1:\(relay.port)/\(harness.vhost)",
            "--db", harness.database, "--input-root", Media.inputRoot, "--output-root", harness.outputRoot,
            "--worker-id", "w-settle", "--retry-delay-s", "0.2", "--heartbeat-s", "1",
            "--lease-orphan-s", String(Self.orphanSeconds),
        ], log: (harness.folder as NSString).appendingPathComponent("worker.log"))
        defer { worker.kill(SIGKILL) }
        let dead = try DeadLetterTally(configuration: harness.configuration)
        defer { dead.stop() }

        /// The failing runs, with how their settle was cut, for the message of a job dead-lettered twice.
        var failing: [(id: String, settle: Settle, cut: TCPRelay.TrapCut)] = []
        var succeeding: [String] = []
        for run in 0..<Self.runs {
            let settle = Settle.allCases[run % Settle.allCases.count]
            let cut = TCPRelay.TrapCut.allCases[(run / Settle.allCases.count) % TCPRelay.TrapCut.allCases.count]
            let id = "outage-\(run)"
            let document: String
            let pattern: [UInt8]
            switch settle {
            case .deadLetter:
                // An output outside the output root: the attempt fails permanently before it writes anything.
                document = WorkerQueueTests.job(id, input: clip, outputs: ["../../escaped-\(run).flv"])
                pattern = Self.publishFrame(exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue)
            case .retry:
                // Port 9 has no listener on loopback: refused at once, a transient failure; the second attempt is the last.
                document = WorkerQueueTests.job(id, input: #"{"url": "rtmp://127.0.0.1:9/live/x", "timeout_s": 2}"#,
                                                outputs: ["r-\(run).flv"], extra: #", "max_attempts": 2"#)
                pattern = Self.publishFrame(exchange: "", routingKey: Topology.retryQueue)
            case .success:
                document = WorkerQueueTests.job(id, input: clip, outputs: ["ok-\(run).flv"])
                pattern = Self.queueDeleteFrame(JobLease.queueName(jobID: id, jobClass: .batch))
            }
            relay.trap(cut, when: pattern)
            try await harness.enqueue(document)
            let sprung = try await eventually(timeout: Self.runTimeout) { relay.trapsSprung == run + 1 }
            try #require(sprung, "run \(run) (\(settle), \(cut)): the settle never reached the relay: \(worker.log.suffix(4000))")
            let ended: Bool
            switch settle {
            case .deadLetter, .retry:
                failing.append((id, settle, cut))
                ended = await eventually(timeout: Self.runTimeout) { dead.count(of: id) > 0 }
            case .success:
                succeeding.append(id)
                ended = try await eventually(timeout: Self.runTimeout) { try harness.job(id)?.state == .succeeded }
            }
            let record = try harness.job(id).map { "\($0.state), \($0.attempts) attempt(s)" } ?? "no record"
            try #require(ended, "run \(run) (\(settle), \(cut)): the job was lost after the broker went at its settle: \(record); \(worker.log.suffix(4000))")
            print("SettleOutageTests: run \(run + 1) of \(Self.runs) (\(settle.rawValue), broker \(cut.rawValue)): \(record)")
        }

        // Nothing can come back once no queue holds a copy or a claim of any job: the lease queues of settled jobs are
        // gone or empty, and nothing waits in the intake, the class queues or the retry queue.
        let quiet = try await eventually(timeout: .seconds(60)) {
            let counts = try await harness.counts()
            return counts.filter { $0.key.hasPrefix("sluice.") && $0.key != Topology.deadQueue && $0.key != "sluice.ledger" }
                .allSatisfy { $0.value == 0 }
        }
        let left = try await harness.counts()
        try #require(quiet, "copies still queued: \(left); \(worker.log.suffix(3000))")
        // Every copy that ever reached the dead-letter queue has been read by now (it is read as it arrives).
        try #require(await eventually { try await harness.counts()[Topology.deadQueue] == 0 })
        for (id, settle, cut) in failing {
            let count = dead.count(of: id)
            // The worker's own account of the job: whether it published the settle again after reconnecting, or ran
            // the job again from an expired claim, is what tells the two ways a second copy could come.
            let run = "\(id) (\(settle.rawValue), broker \(cut.rawValue))"
            let lines = Self.lines(of: worker.log, mentioning: id)
            #expect(count == 1, "\(run) was dead-lettered \(count) times; the worker's lines on it:\n\(lines)")
        }
        #expect(dead.count(of: nil) == 0, "dead letters of no job of this test: \(dead.count(of: nil))")
        #expect(dead.error == nil, "the dead-letter queue could not be read: \(dead.error ?? "")")
        for id in succeeding {
            let record = try #require(try harness.job(id))
            #expect(record.state == .succeeded && record.attempts == 1, "\(id): \(record.state), \(record.attempts) attempts")
            let runs = try harness.store.events(jobID: id).filter { $0.state == .running }.count
            #expect(runs == 1, "\(id) ran \(runs) times")
        }
    }

    /// The start of a basic.publish method frame's payload (AMQP 0-9-1 §4.2.5, class 60 method 40): reserved short,
    /// exchange and routing key as short strings.
    static func publishFrame(exchange: String, routingKey: String) -> [UInt8] {
        [0x00, 0x3C, 0x00, 0x28, 0x00, 0x00] + shortString(exchange) + shortString(routingKey)
    }

    /// The start of a queue.delete method frame's payload (class 50 method 40): reserved short, queue as a short string.
    static func queueDeleteFrame(_ queue: String) -> [UInt8] {
        [0x00, 0x32, 0x00, 0x28, 0x00, 0x00] + shortString(queue)
    }

    /// The log's lines that name `id` (as a whole word: `outage-1` is not `outage-15`), at most the last 80.
    static func lines(of log: String, mentioning id: String) -> String {
        log.split(separator: "\n").filter { line in
            line.ranges(of: id).contains { range in
                range.upperBound == line.endIndex || !(line[range.upperBound].isNumber)
            }
        }.suffix(80).joined(separator: "\n")
    }

    static func shortString(_ text: String) -> [UInt8] {
        [UInt8(text.utf8.count)] + Array(text.utf8)
    }
}

/// Reads `sluice.jobs.dead` as messages arrive (on a thread of its own) and counts them by job id.
final class DeadLetterTally: @unchecked Sendable {
    // Reason: `counts` and `running` are guarded by `lock`; the connection is used only by the reading thread.
    private let lock = NSLock()
    private var counts: [String?: Int] = [:]
    private var failure: String?
    private var running = true
    private let stopped = DispatchSemaphore(value: 0)

    init(configuration: BrokerConfiguration) throws {
        let connection = try AMQPConnection(configuration: configuration)
        for declaration in TopologyDeclaration.declarations(for: configuration) { try connection.declare(declaration) }
        _ = try connection.consume(queue: Topology.deadQueue, autoAck: true)
        // Handed over to the reading thread, the only one that touches it from here on.
        nonisolated(unsafe) let owned = connection
        let thread = Thread { [self] in
            defer { stopped.signal() }
            while lock.withLock({ running }) {
                do {
                    if case let .delivery(_, _, _, _, body, _, _) = try owned.nextEvent() {
                        let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                        let id = object?["id"] as? String
                        lock.withLock { counts[id, default: 0] += 1 }
                    } else {
                        usleep(10_000)
                    }
                } catch {
                    lock.withLock { failure = "\(error)" }
                    return
                }
            }
        }
        thread.name = "dead-letter-tally"
        thread.start()
    }

    /// Dead letters of `id` so far (nil: those whose body names no job).
    func count(of id: String?) -> Int { lock.withLock { counts[id] ?? 0 } }

    /// Why the reading stopped early, if it did.
    var error: String? { lock.withLock { failure } }

    func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        if wasRunning { stopped.wait() }
    }
}
