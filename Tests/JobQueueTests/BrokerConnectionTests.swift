import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// Against the real broker (docs/ARCHITECTURE.md §5); each test gets its own vhost, so the suite may run in parallel.
// The time limit guards against a hang, not speed: each rabbitmqctl call boots an Erlang VM, which takes up to
// 20 s on a loaded machine.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(3)))
struct BrokerConnectionTests {
    /// A started connection, waited until live.
    private func connected(_ configuration: BrokerConfiguration, log: LogLines = LogLines()) async throws -> BrokerConnection {
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        let up = await eventually { connection.isConnected }
        try #require(up, "no connection: \(log.all)")
        return connection
    }

    private func publisher(_ configuration: BrokerConfiguration) async throws -> BrokerConnection {
        var configuration = configuration
        configuration.consumesJobs = false
        configuration.consumesControl = false
        return try await connected(configuration)
    }

    @Test("the topology is declared with its arguments, and declaring it again is idempotent")
    func topology() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-topology")
        let first = try await connected(configuration)
        let second = try await connected(configuration)  // redeclares everything: would fail on any mismatch
        defer { first.close(); second.close() }
        #expect(second.generation == 1)

        let queues = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-topology"), "--quiet", "--no-table-headers",
                                         "name", "durable", "arguments"])
        let jobs = try #require(queues.split(separator: "\n").first { $0.hasPrefix("sluice.jobs\t") })
        #expect(jobs.contains("true"))
        #expect(jobs.contains("x-max-priority") && jobs.contains("9"))
        #expect(jobs.contains("x-dead-letter-exchange") && jobs.contains("sluice.dlx"))
        let retry = try #require(queues.split(separator: "\n").first { $0.hasPrefix("sluice.jobs.retry\t") })
        #expect(retry.contains("x-dead-letter-routing-key") && retry.contains("sluice.jobs"))
        #expect(queues.contains("sluice.jobs.dead\ttrue"))
        // One exclusive control queue per live connection.
        #expect(queues.split(separator: "\n").filter { $0.hasPrefix("amq.gen-") }.count == 2)

        let exchanges = try await PrivateBroker.ctl(["list_exchanges", "-p", PrivateBroker.vhost("jq-topology"), "--quiet", "--no-table-headers",
                                            "name", "type", "durable"])
        for expected in ["sluice.jobs\tdirect\ttrue", "sluice.dlx\tfanout\ttrue", "sluice.events\ttopic\ttrue",
                         "sluice.control\tfanout\ttrue"] {
            #expect(exchanges.contains(expected), "missing \(expected)")
        }
    }

    @Test("publish with confirm, consume, ack: the queue is empty (ready and unacked)")
    func publishConsumeAck() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-ack")
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array(#"{"id":"job-1"}"#.utf8), priority: 5)
        let delivery = try #require(await received.wait(for: 1).first)
        #expect(String(decoding: delivery.body, as: UTF8.self) == #"{"id":"job-1"}"#)
        #expect(delivery.generation == 1)
        #expect(delivery.priority == 5)
        #expect(!delivery.redelivered)
        #expect(try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-ack"))["sluice.jobs"] == 1)  // unacked still counts
        worker.ack(delivery)
        #expect(try await eventually { try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-ack"))["sluice.jobs"] == 0 })
    }

    @Test("higher priorities are delivered first")
    func priorityOrdering() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-priority")
        let upstream = try await publisher(configuration)
        for priority: UInt8 in [1, 9, 5, 0, 7] {
            try await upstream.publishJob(Array("p\(priority)".utf8), priority: priority)
        }
        upstream.close()
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = await Collector(worker.deliveries).wait(for: 5)
        #expect(received.map { String(decoding: $0.body, as: UTF8.self) } == ["p9", "p7", "p5", "p1", "p0"])
    }

    @Test("dead-lettering lands in sluice.jobs.dead with the reason header and acks the original")
    func deadLetter() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-dead")
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array("not json".utf8))
        let delivery = try #require(await received.wait(for: 1).first)
        try await worker.deadLetter(delivery, reason: "invalid JSON at byte 0")
        #expect(try await eventually {
            let counts = try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-dead"))
            return counts["sluice.jobs"] == 0 && counts["sluice.jobs.dead"] == 1
        })
        let dead = try await RawQueueReader(configuration).get(queue: Topology.deadQueue)
        #expect(dead.body == Array("not json".utf8))
        #expect(dead.headers[Topology.reasonHeader] == "invalid JSON at byte 0")
    }

    @Test("a retry with a 200 ms expiration comes back to sluice.jobs with its attempt header")
    func retry() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-retry")
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array("job".utf8), priority: 3)
        let first = try #require(await received.wait(for: 1).first)
        let started = ContinuousClock.now
        try await worker.retry(first, after: .milliseconds(200), attempt: 2)
        let again = await received.wait(for: 2)
        try #require(again.count == 2)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(again[1].body == first.body)
        #expect(again[1].headers[Topology.attemptHeader] == "2")
        #expect(again[1].priority == 3)
        worker.ack(again[1])
        #expect(try await eventually {
            let counts = try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-retry"))
            return counts["sluice.jobs"] == 0 && counts["sluice.jobs.retry"] == 0
        })
    }

    @Test("a control message reaches every connected worker")
    func controlFanout() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-control")
        let a = try await connected(configuration)
        let b = try await connected(configuration)
        defer { a.close(); b.close() }
        let controlsA = Collector(a.controls)
        let controlsB = Collector(b.controls)
        try await a.publishControl(.cancel(jobID: "cam42"))
        #expect(await controlsA.wait(for: 1) == [.cancel(jobID: "cam42")])
        #expect(await controlsB.wait(for: 1) == [.cancel(jobID: "cam42")])
    }

    @Test("after a forced reconnect an ack of the old generation is dropped, not sent on the new channel")
    func staleAckDropped() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-stale")
        let log = LogLines()
        let worker = try await connected(configuration, log: log)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array("job".utf8))
        let old = try #require(await received.wait(for: 1).first)

        try await PrivateBroker.ctl(["close_all_connections", "-p", PrivateBroker.vhost("jq-stale"), "test: forced reconnect"])
        let redelivered = await received.wait(for: 2)
        try #require(redelivered.count == 2, "no redelivery: \(log.all)")
        let new = redelivered[1]
        #expect(new.generation == 2 && new.redelivered)
        // Same tag number on the new channel: sending the old ack would ack the redelivered message.
        #expect(new.deliveryTag == old.deliveryTag)

        worker.ack(old)
        #expect(await eventually { worker.droppedStaleSettlements == 1 })
        await #expect(throws: AMQPError.staleDelivery(generation: 1, current: 2)) {
            try await worker.deadLetter(old, reason: "x")
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-stale"))["sluice.jobs"] == 1)
        #expect(worker.generation == 2 && worker.isConnected)
        #expect(log.all.contains { $0.contains("dropped ack of delivery tag") })

        worker.ack(new)
        #expect(try await eventually { try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-stale"))["sluice.jobs"] == 0 })
    }

    @Test("reconnects within 10 s after the broker closes every connection, and consumes again")
    func reconnects() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-reconnect")
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        // Timed from when rabbitmqctl has closed them: the CLI itself takes seconds to start on a loaded machine.
        try await PrivateBroker.ctl(["close_all_connections", "-p", PrivateBroker.vhost("jq-reconnect"), "test: broker hiccup"])
        let closedAt = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(10)) { worker.generation == 2 && worker.isConnected })
        #expect(ContinuousClock.now - closedAt < .seconds(10))
        try await worker.publishJob(Array("after".utf8))
        let delivery = try #require(await received.wait(for: 1).first)
        #expect(delivery.generation == 2)
        worker.ack(delivery)
    }

    @Test("a 20 s idle consume with a 2 s heartbeat keeps the connection")
    func heartbeats() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-heartbeat", heartbeatSeconds: 2)
        let log = LogLines()
        let worker = try await connected(configuration, log: log)
        defer { worker.close() }
        // list_connections has no vhost filter: select our connection's row by its vhost column.
        let rows = try await PrivateBroker.ctl(["list_connections", "--quiet", "--no-table-headers", "vhost", "timeout"])
        let vhost: String = PrivateBroker.vhost("jq-heartbeat")
        let ours: [String] = rows.split(separator: "\n").map(String.init).filter { $0.hasPrefix(vhost + "\t") }
        #expect(ours == [vhost + "\t2"])
        try await Task.sleep(for: .seconds(20))
        #expect(worker.isConnected)
        #expect(worker.generation == 1, "reconnected: \(log.all)")
        try await worker.publishJob(Array("still here".utf8))
        #expect(await Collector(worker.deliveries).wait(for: 1).count == 1)
    }

    @Test("stopConsuming ends the delivery stream, keeps the connection, and leaves new jobs queued")
    func stopConsuming() async throws {
        let configuration = try await TestBroker.configuration(vhost: "jq-stop")
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array("running".utf8))
        let running = try #require(await received.wait(for: 1).first)
        worker.stopConsuming()
        var finished = false
        for await _ in worker.deliveries {}  // returns only once the stream has finished
        finished = true
        #expect(finished)
        try await worker.publishJob(Array("queued".utf8))
        worker.ack(running)  // the running job still settles on the kept connection
        #expect(try await eventually {
            try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-stop"))["sluice.jobs"] == 1
        })
        #expect(received.all.count == 1)
    }

    @Test("amqp://user:pass@host:port/ (a bare trailing slash) logs in to the default vhost, not the refused empty one")
    func bareTrailingSlashIsDefaultVhost() async throws {
        let base = try BrokerURL(parsing: try #require(PrivateBroker.url))
        let written = "amqp://\(base.user):\(base.password)@\(base.host):\(base.port)/"
        var configuration = BrokerConfiguration(url: try BrokerURL(parsing: written), connectionName: "jq-trailing-slash")
        configuration.consumesJobs = false
        configuration.consumesControl = false
        configuration.maxConnectAttempts = 1
        let connection = try await connected(configuration)
        defer { connection.close() }
        let connections = try await PrivateBroker.ctl(["list_connections", "--quiet", "--no-table-headers", "vhost",
                                              "client_properties"])
        #expect(connections.split(separator: "\n").contains { $0.hasPrefix("/\t") && $0.contains("jq-trailing-slash") },
                "\(connections)")
    }

    @Test("a wrong password gives up after maxConnectAttempts with a typed reason, and never logs the password")
    func refusedLogin() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-refused")
        configuration.url.password = "wrong-secret-pw"
        configuration.maxConnectAttempts = 2
        let log = LogLines()
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        await #expect(throws: AMQPError.self) { try await connection.publishJob([1]) }
        #expect(log.all.contains { $0.contains("giving up") && $0.contains("ACCESS_REFUSED") }, "\(log.all)")
        #expect(!log.all.contains { $0.contains("wrong-secret-pw") })
        connection.close()
    }

    @Test("amqps:// against a plain listener fails TLS with a typed library error")
    func tlsAgainstPlainListener() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-tls")
        configuration.url.isTLS = true
        configuration.maxConnectAttempts = 1
        configuration.connectTimeout = .seconds(3)
        let log = LogLines()
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        // It gives up after the one attempt, so the publish fails as closed instead of waiting forever.
        let error = await #expect(throws: AMQPError.self) { try await connection.publishJob([1]) }
        guard case .closed = error else {
            Issue.record("expected .closed, got \(String(describing: error))")
            return
        }
        connection.close()
        #expect(log.all.contains { $0.contains("amqp_socket_open_noblock") }, "\(log.all)")
        #expect(log.all.allSatisfy { !$0.contains("guest:guest") })
    }
}

/// Reads one message from a queue over a raw connection on the test's own thread (not the worker's).
struct RawQueueReader {
    let configuration: BrokerConfiguration

    init(_ configuration: BrokerConfiguration) {
        self.configuration = configuration
    }

    func get(queue: String, timeout: Duration = .seconds(5)) async throws -> (body: [UInt8], headers: [String: String]) {
        let connection = try AMQPConnection(configuration: configuration)
        _ = try connection.consume(queue: queue, autoAck: true)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if case let .delivery(_, _, _, _, body, headers, _) = try connection.nextEvent() {
                return (body, headers)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AMQPError.library(function: "test get", status: -13, message: "no message in \(queue)")
    }
}
