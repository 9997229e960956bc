import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// `sluice.jobs` as a quorum queue, against the real broker: declared with its type and delivery
/// limit, jobs flow, and a message returned too often is dead-lettered by the broker itself.
// The time limit guards against a hang, not speed: each rabbitmqctl call boots an Erlang VM, which takes up to
// 20 s on a loaded machine.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(3)))
struct QuorumQueueTests {
    private func connected(_ configuration: BrokerConfiguration) async throws -> BrokerConnection {
        let log = LogLines()
        let connection = BrokerConnection(configuration: configuration, logger: log.logger)
        connection.start()
        let up = await eventually { connection.isConnected }
        try #require(up, "no connection: \(log.all)")
        return connection
    }

    @Test("the declaration arguments of each queue type")
    func arguments() {
        let classic = JobsQueueType.classic.arguments.map(\.0)
        #expect(classic == ["x-max-priority", "x-dead-letter-exchange"])
        let quorum = JobsQueueType.quorum(deliveryLimit: 4).arguments
        #expect(quorum.map(\.0) == ["x-queue-type", "x-delivery-limit", "x-dead-letter-exchange"])
        #expect(AMQPFieldValue.table(quorum) == .table([("x-queue-type", .string("quorum")), ("x-delivery-limit", .long(4)),
                                                         ("x-dead-letter-exchange", .string(Topology.deadLetterExchange))]))
        #expect(JobsQueueType(name: "quorum", deliveryLimit: 0) == nil)
        #expect(JobsQueueType(name: "stream") == nil)
        #expect(JobsQueueType(name: "quorum") == .quorum(deliveryLimit: Topology.defaultDeliveryLimit))
    }

    @Test("declared as a quorum queue with its delivery limit; a job is published, consumed and acked")
    func declaredAndRuns() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-quorum")
        configuration.jobsQueueType = .quorum(deliveryLimit: 3)
        let worker = try await connected(configuration)
        defer { worker.close() }
        let queues = try await PrivateBroker.ctl(["list_queues", "-p", PrivateBroker.vhost("jq-quorum"), "--quiet", "--no-table-headers",
                                         "name", "type", "arguments"])
        let jobs = try #require(queues.split(separator: "\n").first { $0.hasPrefix("sluice.jobs\t") })
        #expect(jobs.contains("quorum"), "\(jobs)")
        #expect(jobs.contains("x-delivery-limit") && jobs.contains("3"), "\(jobs)")
        #expect(!jobs.contains("x-max-priority"))

        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array(#"{"id":"q-1"}"#.utf8), priority: 5)
        let delivery = try #require(await received.wait(for: 1).first)
        #expect(delivery.body == Array(#"{"id":"q-1"}"#.utf8))
        worker.ack(delivery)
        #expect(try await eventually { try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-quorum"))["sluice.jobs"] == 0 })
    }

    @Test("a message returned more often than the delivery limit goes to sluice.jobs.dead, counted in x-delivery-count")
    func poisonMessageDies() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-quorum-poison")
        configuration.jobsQueueType = .quorum(deliveryLimit: 2)
        let worker = try await connected(configuration)
        defer { worker.close() }
        let received = Collector(worker.deliveries)
        try await worker.publishJob(Array("poison".utf8))
        // Each requeue stands for a worker that died holding the job: the broker counts the deliveries.
        for index in 1...3 {
            let deliveries = await received.wait(for: index)
            try #require(deliveries.count == index, "delivery \(index) never came")
            worker.requeue(deliveries[index - 1])
        }
        #expect(try await eventually {
            let counts = try await PrivateBroker.messageCounts(vhost: PrivateBroker.vhost("jq-quorum-poison"))
            return counts["sluice.jobs"] == 0 && counts["sluice.jobs.dead"] == 1
        })
        let all = received.all
        #expect(all.count == 3)
        #expect(all.map { $0.headers[JobLease.deliveryCountHeader] } == [nil, "1", "2"])
        let dead = try await RawQueueReader(configuration).get(queue: Topology.deadQueue)
        #expect(dead.body == Array("poison".utf8))
    }

    @Test("a client declaring the other type is refused by the broker, and says why")
    func mismatchedTypeIsRefused() async throws {
        var quorum = try await TestBroker.configuration(vhost: "jq-quorum-mismatch")
        quorum.jobsQueueType = .quorum(deliveryLimit: 5)
        let first = try await connected(quorum)
        defer { first.close() }
        var classic = quorum
        classic.jobsQueueType = .classic
        classic.maxConnectAttempts = 1
        let log = LogLines()
        let second = BrokerConnection(configuration: classic, logger: log.logger)
        second.start()
        await #expect(throws: AMQPError.self) { try await second.publishJob([1]) }
        #expect(log.all.contains { $0.contains("PRECONDITION_FAILED") && $0.contains("sluice.jobs") }, "\(log.all)")
        second.close()
    }
}
