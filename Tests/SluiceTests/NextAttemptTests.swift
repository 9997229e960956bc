import Foundation
import JobQueue
import Testing
@testable import JobDocument
@testable import Sluice

/// A retry that comes back before its attempt's end was recorded here (the first backoff is 0.2 s; the lease release
/// and the store can take longer on a loaded machine): it is the job's next attempt, not a redelivery of the running
/// one, so it must be neither acked nor dropped, and it runs once the attempt is done (WorkerQueueTests' retry job
/// was lost so, acked as a duplicate while its attempt was still ending).
@Suite("the next attempt, back early")
struct NextAttemptTests {
    static let attempt = Topology.attemptHeader

    @Test("a copy carrying a later x-sluice-attempt than the running copy is the next attempt", arguments: [
        ([String: String](), [attempt: "1"], true),
        ([attempt: "1"], [attempt: "2"], true),
        ([attempt: "1"], [attempt: "1"], false),
        ([attempt: "2"], [attempt: "1"], false),
        ([attempt: "1"], [String: String](), false),
        ([String: String](), [attempt: "not a number"], false),
    ])
    func laterAttempt(running: [String: String], arriving: [String: String], later: Bool) {
        #expect(ActiveJob.isLaterAttempt(arriving, than: running) == later)
    }

    @Test("the running job holds its next attempt, unsettled, for the worker to handle once; a redelivery is still its own")
    func heldUntilTheJobEnds() throws {
        let spec = try JobSpec.parse(Data(#"{"id": "r", "input": "rtmp://in.example/live/k", "outputs": ["a.flv"]}"#.utf8))
        let first = Delivery(body: [1], deliveryTag: 1, generation: 1, redelivered: false, headers: [Self.attempt: "1"], jobClass: .live)
        let job = ActiveJob(spec: spec, delivery: first, jobClass: .live, interrupted: nil,
                            lineage: DeliveryLineage(headers: first.headers, redelivered: false))
        // Never started: a copy that is not held would be queued on its mailbox, and nothing is sent.
        let broker = BrokerConnection(configuration: try BrokerConfiguration(url: "amqp://guest:guest@127.0.0.1:1/"), logger: { _ in })
        let redelivery = Delivery(body: [1], deliveryTag: 2, generation: 1, redelivered: true, headers: [Self.attempt: "1"], jobClass: .live)
        let retry = Delivery(body: [1], deliveryTag: 3, generation: 1, redelivered: false, headers: [Self.attempt: "2"], jobClass: .live)
        #expect(job.attach(redelivery, broker: broker) == false)
        #expect(job.attach(retry, broker: broker) == true)
        // The attempt ends: its own copies are settled with it; the retry is not among them.
        #expect(job.seal(requeueLateDeliveries: false).map(\.deliveryTag) == [1, 2])
        #expect(job.takeNextAttempts().map(\.deliveryTag) == [3])
        #expect(job.takeNextAttempts().isEmpty, "the next attempt was handed out twice")
    }
}
