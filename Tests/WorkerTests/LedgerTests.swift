import Foundation
import SluiceTestSupport
import JobStore
@testable import Sluice
import Testing

/// `sluice ledger` against the private RabbitMQ: two workers with databases of their own, one ledger database
/// that lists the jobs of both.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct LedgerTests {
    @Test("jobs run by two workers with separate databases appear in one ledger listing; a redelivered event is applied once")
    func twoWorkersOneLedger() async throws {
        let harness = try await QueueHarness("wk-ledger")
        let clip = try await Media.clip(seconds: 1)
        let ledgerPath = (harness.folder as NSString).appendingPathComponent("ledger.sqlite")
        let ledger = try WorkerProcess(
            arguments: ["ledger", "--amqp-url", harness.url, "--db", ledgerPath],
            log: (harness.folder as NSString).appendingPathComponent("ledger.log"))
        defer { ledger.kill(SIGKILL) }
        // Events published before the ledger's queue is bound would not reach it.
        let bound = try await eventually { try await harness.counts()["sluice.ledger"] != nil }
        try #require(bound, "no sluice.ledger queue: \(ledger.log)")

        var databases: [String: String] = [:]
        for (worker, job) in [("w-ledger-a", "led-a"), ("w-ledger-b", "led-b")] {
            let database = (harness.folder as NSString).appendingPathComponent("\(worker).sqlite")
            databases[worker] = database
            let process = try harness.startWorker(id: worker, ["--db", database])
            try await harness.enqueue(WorkerQueueTests.job(job, input: clip, outputs: ["\(job).flv"]))
            let own = try JobStore(path: database)
            let done = try await eventually(timeout: .seconds(40)) { try own.job(id: job)?.state == .succeeded }
            try #require(done, "\(worker): \(process.log.suffix(3000))")
            process.kill(SIGTERM)
            #expect(await process.exitStatus(within: .seconds(20)) == 0)
        }
        // Each worker's own database knows only its job.
        #expect(try JobStore(path: try #require(databases["w-ledger-a"])).job(id: "led-b") == nil)
        #expect(try JobStore(path: try #require(databases["w-ledger-b"])).job(id: "led-a") == nil)

        let ledgerStore = try JobStore(path: ledgerPath)
        let both = try await eventually(timeout: .seconds(20)) {
            try ledgerStore.job(id: "led-a")?.state == .succeeded && ledgerStore.job(id: "led-b")?.state == .succeeded
        }
        try #require(both, "ledger log: \(ledger.log.suffix(3000))")
        #expect(try ledgerStore.job(id: "led-a")?.workerID == "w-ledger-a")
        #expect(try ledgerStore.job(id: "led-b")?.workerID == "w-ledger-b")
        #expect(try ledgerStore.outputs(jobID: "led-a").map(\.state) == [.succeeded])
        let kinds = try ledgerStore.events(jobID: "led-b").map(\.kind.rawValue)
        #expect(kinds.starts(with: ["job.received", "job.running"]) && kinds.last == "job.succeeded", "\(kinds)")

        let listing = try await harness.sluice(["jobs", "list", "--db", ledgerPath])
        #expect(listing.status == 0)
        for text in ["led-a", "led-b", "w-ledger-a", "w-ledger-b"] {
            #expect(listing.output.contains(text), "\(text) missing from:\n\(listing.output)")
        }

        // The same event again (a redelivery, or a worker publishing twice) changes nothing.
        let applied = try ledgerStore.ledgerEventCount()
        let eventsBefore = try ledgerStore.events(jobID: "led-a").count
        let succeeded = try #require(harness.events.of("led-a").first { $0.kind == "job.succeeded" })
        #expect(succeeded.json.contains(#""event_id":"w-ledger-a/"#), "\(succeeded.json)")
        harness.publisher.publishEvent(routingKey: succeeded.kind, body: Array(succeeded.json.utf8))
        let skipped = await eventually { ledger.log.contains("was applied before; skipped") }
        #expect(skipped, "ledger log: \(ledger.log.suffix(2000))")
        #expect(try ledgerStore.ledgerEventCount() == applied)
        #expect(try ledgerStore.events(jobID: "led-a").count == eventsBefore)

        ledger.kill(SIGTERM)
        #expect(await ledger.exitStatus(within: .seconds(15)) == 0, "ledger log: \(ledger.log.suffix(2000))")
        #expect(try await harness.counts()["sluice.ledger"] == 0)
    }

    @Test("SIGTERM with the broker gone silent: the ledger exits 0 within its own bound, whatever the broker does")
    func stopsWithoutTheBroker() async throws {
        let harness = try await QueueHarness("wk-ledger-stop")
        let broker = harness.configuration.url
        let relay = try TCPRelay(to: broker.host == "localhost" ? "127.0.0.1" : broker.host, port: broker.port)
        defer { relay.stop() }
        let ledgerPath = (harness.folder as NSString).appendingPathComponent("ledger.sqlite")
        let ledger = try WorkerProcess(arguments: [
            "ledger", "--amqp-url", "amqp://\(broker.user):\(broker.password)@127.0.0.1:\(relay.port)/\(harness.vhost)",
            "--db", ledgerPath,
        ], log: (harness.folder as NSString).appendingPathComponent("ledger.log"))
        defer { ledger.kill(SIGKILL) }
        let consuming = await eventually { ledger.log.contains("connected to") }
        try #require(consuming, "ledger log: \(ledger.log)")
        // An event applied through the relay: the ledger is past its start, in its loop.
        harness.publisher.publishEvent(routingKey: "job.received", body: Array(#"{"event": "job.received", "id": "stop-1", "state": "received", "attempt": 0, "at": "2026-01-01T00:00:00Z", "event_id": "e-stop-1"}"#.utf8))
        let applied = try await eventually { try JobStore(path: ledgerPath).job(id: "stop-1") != nil }
        try #require(applied, "ledger log: \(ledger.log)")

        // Nothing passes any more and nobody hears of it: the basic.cancel of the stop, and the close after it, would
        // each wait out the call timeout (15 s) on a broker that does not answer.
        relay.cut(.silent)
        let signalled = ContinuousClock.now
        ledger.kill(SIGTERM)
        let bound = Ledger.stopOverrun + Self.slack
        let status = await ledger.exitStatus(within: bound + .seconds(30))
        let elapsed = ContinuousClock.now - signalled
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none, still running"): \(ledger.log.suffix(2000))")
        #expect(elapsed < bound, "exited \(elapsed) after SIGTERM, bound \(bound): \(ledger.log.suffix(2000))")
        #expect(ledger.log.contains("ledger: stopped"), "\(ledger.log.suffix(2000))")
    }

    /// What a loaded machine may add to the ledger's own bound: a hang (no bound at all) still fails.
    static let slack = Duration.seconds(5)
}
