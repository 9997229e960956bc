import Testing
@testable import MediaJob

@Suite("ReconnectPolicy")
struct ReconnectPolicyTests {
    @Test("delays double from the initial delay up to the cap")
    func doubling() {
        let policy = ReconnectPolicy(attempts: 10, initialDelay: 0.5, maxDelay: 10)
        #expect((1...7).map { policy.delay(beforeAttempt: $0) } == [0.5, 1, 2, 4, 8, 10, 10])
    }

    @Test("huge attempt numbers stay at the cap")
    func noOverflow() {
        let policy = ReconnectPolicy(attempts: 10_000, initialDelay: 0.01, maxDelay: 600)
        #expect(policy.delay(beforeAttempt: 10_000) == 600)
        #expect(policy.delay(beforeAttempt: 0) == 0.01)
    }
}
