import Testing

@testable import JobStore

/// The legal moves of docs/ARCHITECTURE.md §6 and the effect each asks of the store.
private let legalTransitions: [(from: JobState, to: JobState, effect: JobLifecycle.Effect)] = [
    (.received, .running, .startAttempt),
    (.received, .rejected, .finish),
    (.received, .cancelled, .finish),
    // Poison: workers died running it max_attempts times before this worker recorded it.
    (.received, .failed, .finish),
    (.running, .succeeded, .finish),
    (.running, .failed, .finish),
    (.running, .cancelled, .finish),
    (.running, .retrying, .suspend),
    (.retrying, .running, .startAttempt),
    (.retrying, .failed, .finish),
    (.retrying, .cancelled, .finish),
    // `jobs retry`: a new attempt of a finished job.
    (.failed, .running, .startAttempt),
    (.cancelled, .running, .startAttempt),
]

/// Every pair not in the table above, self-transitions included.
private let illegalTransitions: [(from: JobState, to: JobState)] = JobState.allCases.flatMap { from in
    JobState.allCases.compactMap { to in
        legalTransitions.contains { $0.from == from && $0.to == to } ? nil : (from, to)
    }
}

@Suite struct JobLifecycleTests {
    @Test(arguments: legalTransitions.indices)
    func legalTransitionReturnsEffect(case index: Int) throws {
        let row = legalTransitions[index]
        var lifecycle = JobLifecycle(state: row.from)
        let effect = try lifecycle.transition(to: row.to)
        #expect(effect == row.effect)
        #expect(lifecycle.state == row.to)
    }

    @Test(arguments: illegalTransitions.indices)
    func illegalTransitionThrowsNamingBothStates(case index: Int) {
        let row = illegalTransitions[index]
        var lifecycle = JobLifecycle(state: row.from)
        let error = #expect(throws: JobStoreError.self) { try lifecycle.transition(to: row.to, jobID: "job-1") }
        #expect(error == .illegalTransition(jobID: "job-1", from: row.from, to: row.to))
        #expect(error?.description == "job 'job-1' cannot go from \(row.from.rawValue) to \(row.to.rawValue)")
        #expect(lifecycle.state == row.from, "a refused transition leaves the state alone")
    }

    @Test func tableCoversEveryPair() {
        #expect(legalTransitions.count + illegalTransitions.count == JobState.allCases.count * JobState.allCases.count)
        #expect(illegalTransitions.count == 36)
    }

    @Test func finalStatesHaveNoSuccessors() {
        #expect(JobLifecycle.successors(of: .succeeded).isEmpty)
        #expect(JobLifecycle.successors(of: .rejected).isEmpty)
    }

    @Test(arguments: [
        (JobState.received, false), (.running, false), (.retrying, false),
        (.succeeded, true), (.failed, true), (.cancelled, true), (.rejected, true),
    ])
    func terminalStates(state: JobState, terminal: Bool) {
        #expect(state.isTerminal == terminal)
    }

    @Test func transitionWithoutJobIDStillNamesBothStates() {
        var lifecycle = JobLifecycle(state: .succeeded)
        let error = #expect(throws: JobStoreError.self) { try lifecycle.transition(to: .running) }
        #expect(error?.description == "a job cannot go from succeeded to running")
    }

    /// The raw values are the `jobs.state` column's contract with admins and `CHECK` constraint.
    @Test func rawValuesMatchSchema() {
        #expect(JobState.allCases.map(\.rawValue) == [
            "received", "running", "retrying", "succeeded", "failed", "cancelled", "rejected",
        ])
    }
}
