import JobQueue
import Testing
@testable import Sluice

/// Where a job message comes from, and the deaths it carries (docs/ARCHITECTURE.md §5: long jobs, poison jobs).
@Suite("DeliveryLineage")
struct DeliveryLineageTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: [String: String]
        let redelivered: Bool
        let origin: DeliveryLineage.Origin
        let deaths: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a first delivery", headers: [:], redelivered: false, origin: .fresh, deaths: 0),
        Case(name: "redelivered on a classic queue is no death by itself (the local record counts attempts)",
             headers: [:], redelivered: true, origin: .fresh, deaths: 0),
        Case(name: "a quorum queue's own delivery count wins over the flag",
             headers: [JobLease.deliveryCountHeader: "4"], redelivered: true, origin: .fresh, deaths: 4),
        Case(name: "back from the retry queue with deaths carried",
             headers: [JobLease.deathsHeader: "2"], redelivered: false, origin: .fresh, deaths: 2),
        Case(name: "an expired claim: its holder died, one more death",
             headers: [JobLease.tokenHeader: "t", JobLease.holderHeader: "w1", JobLease.renewedAtHeader: "1000",
                       JobLease.deathsHeader: "1"],
             redelivered: false, origin: .orphaned(holder: "w1", renewedAtMilliseconds: 1000), deaths: 2),
        Case(name: "a hand-over on shutdown is no death",
             headers: [JobLease.handoverHeader: "w2", JobLease.stoppedAtHeader: "5000", JobLease.deathsHeader: "1"],
             redelivered: false, origin: .handedOver(holder: "w2", stoppedAtMilliseconds: 5000), deaths: 1),
        Case(name: "garbage counts are read as none, never trusted",
             headers: [JobLease.deathsHeader: "-7", JobLease.deliveryCountHeader: "lots"], redelivered: false,
             origin: .fresh, deaths: 0),
        Case(name: "a huge count is capped, not overflowed",
             headers: [JobLease.deathsHeader: "9223372036854775807", JobLease.tokenHeader: "t"], redelivered: false,
             origin: .orphaned(holder: "an unknown worker", renewedAtMilliseconds: nil), deaths: 1_000_001),
    ]

    @Test("origin and deaths from the headers", arguments: cases)
    func lineage(_ test: Case) {
        let lineage = DeliveryLineage(headers: test.headers, redelivered: test.redelivered)
        #expect(lineage.origin == test.origin)
        #expect(lineage.deaths == test.deaths)
    }

    @Test("poison once deaths reach max_attempts, with a reason that says workers died")
    func poison() {
        let orphan = DeliveryLineage(headers: [JobLease.tokenHeader: "t", JobLease.holderHeader: "w9",
                                               JobLease.deathsHeader: "2"], redelivered: false)
        #expect(orphan.poisonReason(id: "j", maxAttempts: 4) == nil)
        #expect(orphan.poisonReason(id: "j", maxAttempts: 3)
                == "job j: 3 workers died while running it (the last on worker w9); max_attempts is 3, so it is not run again")
        #expect(DeliveryLineage(headers: [:], redelivered: false).poisonReason(id: "j", maxAttempts: 1) == nil)
    }

    @Test("claims carry the job's headers and deaths forward, never an old holder's lease headers")
    func carried() {
        let headers = [JobLease.tokenHeader: "t", JobLease.holderHeader: "w1", JobLease.renewedAtHeader: "1",
                       Topology.attemptHeader: "2", "x-upstream": "kept"]
        let lineage = DeliveryLineage(headers: headers, redelivered: false)
        #expect(lineage.carriedHeaders(from: headers) == [Topology.attemptHeader: "2", "x-upstream": "kept",
                                                          JobLease.deathsHeader: "1"])
    }

    @Test("the gap runs from the last renewal (orphan) or from the stop (hand-over); none for a fresh job")
    func gap() {
        let orphan = DeliveryLineage(headers: [JobLease.tokenHeader: "t", JobLease.renewedAtHeader: "10000"], redelivered: false)
        #expect(orphan.gapSeconds(nowMilliseconds: 22_500) == 12.5)
        let handover = DeliveryLineage(headers: [JobLease.handoverHeader: "w", JobLease.stoppedAtHeader: "10000"], redelivered: false)
        #expect(handover.gapSeconds(nowMilliseconds: 11_000) == 1)
        #expect(handover.gapSeconds(nowMilliseconds: 9_000) == nil)
        #expect(DeliveryLineage(headers: [:], redelivered: false).gapSeconds(nowMilliseconds: 1) == nil)
    }
}
