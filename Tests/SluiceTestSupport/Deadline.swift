/// A deadline on the monotonic clock (`ContinuousClock`), what every wait of the tests is bounded by. Not `Date`: the
/// wall clock of the machines CI runs on is stepped forward now and then, and a wait bounded by it ends early (a test
/// measured 12.9 s on the monotonic clock around a 15 s wait on `Date` that had run out, its player still running).
public struct Deadline: Sendable {
    private let end: ContinuousClock.Instant

    public init(seconds: Double) {
        end = .now + .seconds(max(0, seconds))
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }
}

/// Seconds since it was made, on the monotonic clock: what a test that bounds how long something took measures with.
public struct Stopwatch: Sendable {
    private let start = ContinuousClock.now

    public init() {}

    public var seconds: Double { (ContinuousClock.now - start) / .seconds(1) }
}
