/// A deadline on the monotonic clock (`ContinuousClock`), what every wait of the tests is bounded by. Not `Date`: the
/// wall clock of the machines CI runs on is stepped forward now and then, and a wait bounded by it ends early (a test
/// measured 12.9 s on the monotonic clock around a 15 s wait on `Date` that had run out, its player still running).
public struct Deadline: Sendable {
    private let end: ContinuousClock.Instant

    public init(seconds: Double) {
        end = .now + .milliseconds(Int64(max(0, min(seconds, 1e9)) * 1000))
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }
}

/// Seconds since it was made, on the monotonic clock: what a test that bounds how long something took measures with.
public struct Stopwatch: Sendable {
    private let start = ContinuousClock.now

    public init() {}

    public var seconds: Double {
        let elapsed = (ContinuousClock.now - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
