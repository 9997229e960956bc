import Foundation
import JobQueue
import Testing
@testable import Sluice
@testable import JobDocument

/// What follows an attempt, decided without a broker (docs/ARCHITECTURE.md §6, §5).
@Suite("SettlementPlan")
struct SettlementPlanTests {
    static let backoff = RetryBackoff(base: .seconds(5), cap: .seconds(300))
    static let carried = ["x-sluice-deaths": "1"]
    static let transient = JobFailure(message: "rtmp://a.example/live/***: connection refused", isTransient: true)
    static let permanent = JobFailure(message: "unsupported codec", isTransient: false)

    static func plan(_ outcome: JobOutcome, leaseLost: String? = nil, requeue: Bool = false, attempts: Int = 1,
                     asked: Counter = Counter()) -> SettlementPlan {
        SettlementPlan.plan(outcome: outcome, leaseLost: leaseLost, requeueRequested: requeue, carriedHeaders: carried,
                            backoff: backoff) {
            asked.count += 1
            return attempts
        }
    }

    final class Counter: @unchecked Sendable {
        // Reason: used by one test at a time, on its own task.
        var count = 0
    }

    @Test("ended jobs only give their lease up, and the store is not read")
    func finished() {
        let asked = Counter()
        #expect(Self.plan(.cancelled(nil), asked: asked) == .finished)
        #expect(Self.plan(.rejected(JobSpecError(id: "j", problems: [])), leaseLost: "gone", requeue: true, asked: asked) == .finished)
        #expect(asked.count == 0)
    }

    @Test("a permanent failure is dead-lettered with its message, even when the worker wanted to requeue it")
    func deadLetter() {
        #expect(Self.plan(.failed(Self.permanent), requeue: true) == .deadLetter(reason: "unsupported codec"))
    }

    @Test("a lost lease publishes nothing, before any requeue or retry: another worker holds the job")
    func leaseLost() {
        let asked = Counter()
        #expect(Self.plan(.retrying(Self.transient), leaseLost: "403 held elsewhere", requeue: true, asked: asked)
                == .stopLeaseLost(reason: "403 held elsewhere"))
        #expect(asked.count == 0)
    }

    @Test("an attempt the worker interrupted (shutdown, a failing store) is handed back at once, not delayed")
    func handBack() {
        #expect(Self.plan(.retrying(Self.transient), requeue: true) == .handBack(reason: Self.transient.message))
    }

    @Test("a transient failure is retried after the backoff of the attempts recorded, carrying the next attempt number",
          arguments: [(1, 5), (2, 10), (3, 20), (7, 300)])
    func retry(attempts: Int, seconds: Int64) {
        let asked = Counter()
        var headers = Self.carried
        headers[Topology.attemptHeader] = String(attempts + 1)
        #expect(Self.plan(.retrying(Self.transient), attempts: attempts, asked: asked)
                == .retry(reason: Self.transient.message, delay: .seconds(seconds), headers: headers))
        #expect(asked.count == 1)
    }

    @Test("the lease is released only when what the step publishes was confirmed; otherwise it is left to lapse")
    func leaseEnd() {
        let steps: [SettlementPlan] = [.deadLetter(reason: "r"), .handBack(reason: "r"),
                                       .retry(reason: "r", delay: .seconds(5), headers: [:])]
        for step in steps {
            #expect(step.publishes)
            #expect(step.leaseEnd(confirmed: true) == .release, "\(step)")
            #expect(step.leaseEnd(confirmed: false) == .abandon, "\(step)")
        }
        // Nothing to publish: the release itself is the settlement (a finished job), or there is no lease left.
        for step in [SettlementPlan.finished, .stopLeaseLost(reason: "fenced")] {
            #expect(!step.publishes)
            #expect(step.leaseEnd(confirmed: false) == .release, "\(step)")
        }
    }
}
