import Foundation
import JobStore
import MediaEngine
import Testing
@testable import Sluice
@testable import JobDocument
import MediaJob

/// The worker's decisions on deliveries and cancels, without a broker or a store (docs/ARCHITECTURE.md §6, §5).
@Suite("DeliveryTriage")
struct DeliveryTriageTests {
    typealias Stored = DeliveryTriage.StoredJob

    static func stored(_ state: JobState, attempts: Int = 0, max: Int = 3, worker: String? = "w1", error: String? = nil) -> Stored {
        Stored(state: state, attempts: attempts, maxAttempts: max, workerID: worker, error: error)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: Stored?
        let redelivered: Bool
        let verdict: DeliveryTriage.Verdict
        let claims: Bool
        var poison: String? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "new job runs", stored: stored(.received), redelivered: false, verdict: .run(interrupted: nil), claims: true),
        Case(name: "already succeeded is a duplicate", stored: nil, redelivered: false, verdict: .duplicate, claims: false),
        Case(name: "succeeded record is a duplicate", stored: stored(.succeeded, attempts: 1), redelivered: true, verdict: .duplicate, claims: false),
        Case(name: "back from the retry queue runs", stored: stored(.retrying, attempts: 1), redelivered: false, verdict: .run(interrupted: nil), claims: true),
        Case(name: "left running by another worker: recorded as interrupted, then run",
             stored: stored(.running, attempts: 1, worker: "w2"), redelivered: true,
             verdict: .run(interrupted: "attempt 1 on worker w2 was interrupted; the broker redelivered the job"), claims: true),
        Case(name: "crashed the worker every time: attempts exhausted, dead",
             stored: stored(.running, attempts: 3, error: "boom"), redelivered: true,
             verdict: .deadLetter(reason: "job j: attempts exhausted (3 of 3 used); last error: boom", failing: true), claims: false),
        Case(name: "retrying with no attempts left is dead",
             stored: stored(.retrying, attempts: 2, max: 2), redelivered: false,
             verdict: .deadLetter(reason: "job j: attempts exhausted (2 of 2 used)", failing: true), claims: false),
        Case(name: "rejected id stays dead", stored: stored(.rejected, error: "bad"), redelivered: false,
             verdict: .deadLetter(reason: "job j was rejected earlier: bad", failing: false), claims: false),
        Case(name: "failed and redelivered: settled again, not re-run", stored: stored(.failed, attempts: 1, error: "job j: no input"),
             redelivered: true, verdict: .settleRedelivered(reason: "job j: no input"), claims: false),
        Case(name: "cancelled and redelivered: ack only", stored: stored(.cancelled, attempts: 1), redelivered: true,
             verdict: .acknowledge(reason: "job j was already cancelled"), claims: false),
        Case(name: "failed, fresh message (jobs retry): runs even past max_attempts", stored: stored(.failed, attempts: 3),
             redelivered: false, verdict: .run(interrupted: nil), claims: true),
        Case(name: "poison, new to this worker: recorded failed (received → failed) and dead",
             stored: stored(.received), redelivered: false,
             verdict: .deadLetter(reason: "3 workers died", failing: true), claims: false, poison: "3 workers died"),
        Case(name: "poison, left running here: failed and dead instead of a fourth attempt",
             stored: stored(.running, attempts: 2), redelivered: false,
             verdict: .deadLetter(reason: "3 workers died", failing: true), claims: false, poison: "3 workers died"),
        Case(name: "poison after an earlier failure: dead, the failure stays as recorded",
             stored: stored(.failed, attempts: 1), redelivered: false,
             verdict: .deadLetter(reason: "3 workers died", failing: false), claims: false, poison: "3 workers died"),
        Case(name: "a succeeded id is a duplicate even when poison is claimed", stored: stored(.succeeded, attempts: 1),
             redelivered: false, verdict: .duplicate, claims: false, poison: "3 workers died"),
    ]

    @Test("verdict after the store recorded the delivery", arguments: cases)
    func verdicts(_ test: Case) {
        var triage = DeliveryTriage()
        #expect(triage.recorded(id: "j", stored: test.stored, redelivered: test.redelivered, workerID: "w1",
                                poison: test.poison) == test.verdict)
        #expect(triage.claimed.contains("j") == test.claims)
    }

    @Test("an invalid body is rejected with its reason; a claimed id attaches instead of running twice")
    func arrivals() {
        var triage = DeliveryTriage()
        #expect(triage.arrived(id: nil, problem: "invalid job: id: is required") == .reject(reason: "invalid job: id: is required"))
        #expect(triage.arrived(id: "j", problem: nil) == .record)
        #expect(triage.recorded(id: "j", stored: Self.stored(.received), redelivered: false, workerID: "w1") == .run(interrupted: nil))
        #expect(triage.arrived(id: "j", problem: nil) == .attachToRunning)
        triage.finished(id: "j")
        #expect(triage.arrived(id: "j", problem: nil) == .record)
    }

    @Test("a cancel interrupts a claimed job and is remembered for one that has not arrived, once")
    func cancels() {
        var triage = DeliveryTriage()
        #expect(triage.cancelRequested(id: "later") == .remember)
        #expect(triage.cancelRequested(id: "later") == .remember)
        #expect(triage.pendingCancels == ["later"])
        #expect(triage.recorded(id: "later", stored: Self.stored(.received), redelivered: false, workerID: "w1") == .skipCancelled)
        #expect(triage.pendingCancels.isEmpty)
        // Remembered only once: a later re-run of the same id runs.
        #expect(triage.recorded(id: "later", stored: Self.stored(.cancelled), redelivered: false, workerID: "w1") == .run(interrupted: nil))
        #expect(triage.cancelRequested(id: "later") == .interrupt)
        // A duplicate of a succeeded job stays a duplicate even with a cancel pending.
        _ = triage.cancelRequested(id: "done")
        #expect(triage.recorded(id: "done", stored: nil, redelivered: false, workerID: "w1") == .duplicate)
    }

    @Test("remembered cancels are bounded; the oldest is forgotten first")
    func rememberedCancelLimit() {
        var triage = DeliveryTriage()
        for index in 0...DeliveryTriage.rememberedCancelLimit { _ = triage.cancelRequested(id: "c\(index)") }
        #expect(triage.pendingCancels.count == DeliveryTriage.rememberedCancelLimit)
        #expect(triage.pendingCancels.first == "c1")
    }

    @Test("retry backoff doubles per attempt up to its cap")
    func backoff() {
        let backoff = RetryBackoff(base: .seconds(5), cap: .seconds(60))
        #expect([1, 2, 3, 4, 5, 9].map { backoff.delay(afterAttempt: $0) } == [.seconds(5), .seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60)])
    }
}

/// Which failures go to the retry queue and which are dead at once.
@Suite("JobFailure classification")
struct JobFailureTests {
    static func spec(input: String, outputs: [String]) throws -> JobSpec {
        let outputsJSON = outputs.map { "\"\($0)\"" }.joined(separator: ",")
        return try JobSpec.parse(Data(#"{"id": "c", "input": "\#(input)", "outputs": [\#(outputsJSON)]}"#.utf8))
    }

    @Test("network input and RTMP output failures are transient; files, codecs and paths are permanent")
    func classification() throws {
        let network = try Self.spec(input: "rtmp://in.example/live/KEY1", outputs: ["a.flv", "rtmp://out.example/live/KEY2"])
        let file = try Self.spec(input: "/media/in.mp4", outputs: ["a.flv"])
        let openError = MediaJobError.inputTimedOut(name: "x", seconds: 2)
        #expect(JobFailure(classifying: openError, spec: network).isTransient)
        #expect(!JobFailure(classifying: openError, spec: file).isTransient)
        #expect(JobFailure(classifying: MediaJobError.output(index: 1, name: "rtmp", OutputError.unsupported(output: "o", reason: "refused")), spec: network).isTransient)
        #expect(!JobFailure(classifying: MediaJobError.output(index: 0, name: "a.flv", OutputError.unsupported(output: "o", reason: "disk")), spec: network).isTransient)
        #expect(!JobFailure(classifying: MediaJobError.unsupportedCodec(kind: "video", stream: 0, codec: "hevc"), spec: network).isTransient)
        #expect(!JobFailure(classifying: JobPlan.PlanError.path(PathPolicy.Refusal(path: "../x", reason: "outside")), spec: file).isTransient)
    }

    @Test("the message is scrubbed of stream keys")
    func scrubbed() throws {
        let network = try Self.spec(input: "rtmp://in.example/live/KEY1", outputs: ["a.flv"])
        let failure = JobFailure(classifying: MediaJobError.inputTimedOut(name: "rtmp://in.example/live/KEY1", seconds: 2), spec: network)
        #expect(!failure.message.contains("KEY1"))
        #expect(failure.message.contains("rtmp://in.example/live/***"))
    }
}
