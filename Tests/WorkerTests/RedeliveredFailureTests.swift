import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// A failed job's message that comes back unsettled (docs/ARCHITECTURE.md §5, settling): the broker hands it back when
/// the connection went with its ack, and the store says `failed`. With no claim left in the job's lease queue the
/// worker dead-letters it again (its dead letter may never have reached the broker); with a claim waiting there, that
/// claim brings the job back and settles it, so the message is only acked: one dead letter, not two.
/// Made deterministic here: the test makes the redelivered message (the broker's flag, as the triage copies it) and
/// the abandoned lease itself, instead of waiting for a cut to take an ack with it (`SettleOutageTests`).
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(4)))
struct RedeliveredFailureTests {
    static let orphanSeconds = 4

    @Test("a failed job's message again: dead-lettered when no claim waits, acked when its lease's claim will settle it")
    func redeliveredFailure() async throws {
        let harness = try await QueueHarness("wk-redelivered-failure")
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-redelivered", ["--lease-orphan-s", String(Self.orphanSeconds)])
        defer { worker.kill(SIGKILL) }
        let id = "failed-again"
        // An output outside the output root: every attempt fails permanently before it writes anything.
        let body = Array(WorkerQueueTests.job(id, input: clip, outputs: ["../../escaped.flv"]).utf8)
        try await harness.enqueue(String(decoding: body, as: UTF8.self))
        let first = try await harness.deadLetters(count: 1, timeout: .seconds(30))
        try #require(first.count == 1, "the failing job was not dead-lettered: \(worker.log.suffix(3000))")
        #expect(try harness.job(id)?.state == .failed)

        // Its message again, unsettled, no claim anywhere: dead-lettered once more.
        let redelivered = [Topology.redeliveredHeader: "1"]
        try await harness.publisher.retry(body: body, priority: nil, headers: redelivered, after: .milliseconds(1))
        let second = try await harness.deadLetters(count: 1, timeout: .seconds(30))
        #expect(second.count == 1, "a redelivered failure with no claim was not dead-lettered: \(worker.log.suffix(3000))")
        #expect(second.first?.reason?.contains("outside the allowed root") == true, "\(second)")

        // A lease left to lapse, as by a worker whose dead letter the broker never confirmed: its claim waits.
        var configuration = harness.configuration
        configuration.leaseTiming = LeaseTiming(orphanAfter: .seconds(Self.orphanSeconds))
        let holder = BrokerConnection(configuration: configuration, logger: { _ in })
        holder.start()
        defer { holder.close() }
        try #require(await eventually { holder.isConnected })
        let request = LeaseRequest(jobID: id, body: body, priority: nil, headers: [:], holder: "w-gone", jobClass: .batch)
        try #require(await holder.acquireLease(request, onLost: { _ in }) == .acquired)
        await holder.abandonLease(jobID: id)
        try await harness.publisher.retry(body: body, priority: nil, headers: redelivered, after: .milliseconds(1))
        let acked = try await eventually(timeout: .seconds(30)) { worker.log.contains("the claim brings the job back") }
        #expect(acked, "the redelivered message was not acked for the claim: \(worker.log.suffix(3000))")
        // The claim expires into sluice.jobs and is taken over: attempt 2, and its one dead letter.
        let retaken = try await eventually(timeout: .seconds(30)) { try harness.job(id).map { $0.state == .failed && $0.attempts == 2 } ?? false }
        let record = try harness.job(id).map { "\($0.state), \($0.attempts) attempt(s)" } ?? "no record"
        #expect(retaken, "the claim was not taken over: \(record); \(worker.log.suffix(3000))")
        // Read until a second would have come: the redelivered message's, had it been dead-lettered too.
        let third = try await harness.deadLetters(count: 2, timeout: .seconds(5))
        #expect(third.count == 1, "the claim's take-over and the redelivered message made \(third.count) dead letters: \(worker.log.suffix(3000))")
        #expect(try await harness.counts().filter { $0.key.hasPrefix("sluice.") && $0.key != "sluice.ledger" }.allSatisfy { $0.value == 0 })
    }
}
