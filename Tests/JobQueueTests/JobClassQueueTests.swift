import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// `sluice.jobs` as an intake triaged into `sluice.jobs.live` and `sluice.jobs.batch`, each consumed
/// with its own prefetch and paused on its own, so that one class never starves the other.
// Three minutes: every rabbitmqctl call starts an Erlang VM, which takes seconds on a loaded machine.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(3)))
struct JobClassQueueTests {
    private func connected(_ configuration: BrokerConfiguration, log: LogLines = LogLines()) async throws -> BrokerConnection {
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        let up = await eventually { connection.isConnected }
        try #require(up, "no connection: \(log.all)")
        return connection
    }

    private static func text(_ delivery: Delivery) -> String { String(decoding: delivery.body, as: UTF8.self) }

    @Test("triaged copies keep body, priority and headers; each class has its prefetch; pausing one class leaves the other flowing")
    func classesDoNotStarveEachOther() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-classes", prefetch: 16)
        configuration.classPrefetch = [.live: 2, .batch: 1]
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)

        let upstream: BrokerConnection = try await {
            var publisher = configuration
            publisher.consumesJobs = false
            publisher.consumesControl = false
            publisher.classPrefetch = [:]
            return try await connected(publisher)
        }()
        defer { upstream.close() }
        for index in 0..<3 { try await upstream.publishJob(Array("batch-\(index)".utf8), priority: 3) }
        for index in 0..<3 { try await upstream.publishJob(Array("live-\(index)".utf8), priority: 7) }

        // The intake: six deliveries without a class, moved by the test as a worker's triage would.
        let intake = await received.wait(for: 6).filter { $0.jobClass == nil }
        try #require(intake.count == 6, "intake: \(intake.map(Self.text))")
        for delivery in intake {
            try await worker.triage(delivery, to: Self.text(delivery).hasPrefix("live") ? .live : .batch)
        }
        #expect(try await eventually { try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-classes"))["sluice.jobs"] == 0 })

        // Prefetch per class: two live and one batch unacked, and no more.
        let classed: @Sendable () -> [Delivery] = { received.all.filter { $0.jobClass != nil } }
        #expect(await eventually { classed().count == 3 })
        try await Task.sleep(for: .milliseconds(300))
        var first = classed()
        #expect(first.filter { $0.jobClass == .live }.count == 2, "\(first.map(Self.text))")
        #expect(first.filter { $0.jobClass == .batch }.count == 1, "\(first.map(Self.text))")
        let batch = try #require(first.first { $0.jobClass == .batch })
        #expect(Self.text(batch).hasPrefix("batch") && batch.priority == 3)
        #expect(first.filter { $0.jobClass == .live }.allSatisfy { Self.text($0).hasPrefix("live") && $0.priority == 7 })

        // Batch slots full: its consumer pauses; live keeps flowing as its slots free.
        worker.pauseConsuming(true, jobClass: .batch)
        worker.ack(batch)
        for delivery in first where delivery.jobClass == .live { worker.ack(delivery) }
        #expect(await eventually { classed().filter { $0.jobClass == .live }.count == 3 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(classed().filter { $0.jobClass == .batch }.count == 1, "a paused class must get nothing")
        #expect(try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-classes"))["sluice.jobs.batch"] == 2)

        // The reverse: live paused, batch resumed and flowing.
        worker.pauseConsuming(true, jobClass: .live)
        worker.pauseConsuming(false, jobClass: .batch)
        #expect(await eventually { classed().filter { $0.jobClass == .batch }.count == 2 })
        first = classed()
        for delivery in first.suffix(from: 3) { worker.ack(delivery) }
        #expect(await eventually { classed().filter { $0.jobClass == .batch }.count == 3 })
        for delivery in classed().suffix(from: first.count) { worker.ack(delivery) }
        #expect(try await eventually {
            let counts = try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-classes"))
            return counts["sluice.jobs.live"] == 0 && counts["sluice.jobs.batch"] == 0 && counts["sluice.jobs"] == 0
        })
    }

    @Test("a class copy keeps priority and headers and marks a redelivered intake message; the class queues are declared like sluice.jobs")
    func redeliveryAndDeclarations() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-classes-redelivery")
        configuration.classPrefetch = [.live: 1, .batch: 1]
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.handOver(body: Array("again".utf8), priority: 4, headers: ["x-sluice-deaths": "2"])
        let firstCopy = try #require(await received.wait(for: 1).first)
        worker.requeue(firstCopy)
        #expect(await eventually { received.all.count == 2 })
        let again = try #require(received.all.last)
        #expect(again.redelivered && again.jobClass == nil)
        try await worker.triage(again, to: .batch)
        #expect(await eventually { received.all.count == 3 })
        let copy = try #require(received.all.last)
        #expect(copy.jobClass == .batch && !copy.redelivered && copy.priority == 4)
        #expect(copy.headers["x-sluice-deaths"] == "2")
        #expect(copy.headers[Topology.redeliveredHeader] == "1")
        worker.ack(copy)

        let queues = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-classes-redelivery"), "--quiet", "--no-table-headers",
                                         "name", "durable", "arguments"])
        for name in [Topology.liveQueue, Topology.batchQueue] {
            let line = try #require(queues.split(separator: "\n").first { $0.hasPrefix("\(name)\t") }, "\(queues)")
            #expect(line.contains("true") && line.contains("x-max-priority") && line.contains("sluice.dlx"), "\(line)")
        }
    }
}
