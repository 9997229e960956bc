/// Polls `condition` every 50 ms until it holds or `timeout` passes; the last answer. What a test waits with
/// instead of sleeping: the deadline is generous (seconds), the wait ends as soon as the condition holds.
public func eventually(timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
