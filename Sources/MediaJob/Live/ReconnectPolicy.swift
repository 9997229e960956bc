/// How a network output (or a pulled input) retries after losing its connection: exponential backoff
/// from `initialDelay`, doubling up to `maxDelay`, for at most `attempts` tries in a row.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Tries after a failure before the output gives up; 0 never reconnects.
    public var attempts: Int
    /// Seconds before the first try.
    public var initialDelay: Double
    /// Longest wait between tries, seconds.
    public var maxDelay: Double

    public static let defaultAttempts = 10
    public static let defaultInitialDelay = 0.5
    public static let defaultMaxDelay = 10.0

    /// - Parameters:
    ///   - attempts: tries in a row before giving up.
    ///   - initialDelay: seconds before the first try.
    ///   - maxDelay: cap on the doubling delay, seconds.
    public init(attempts: Int = defaultAttempts, initialDelay: Double = defaultInitialDelay, maxDelay: Double = defaultMaxDelay) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// Seconds to wait before try `attempt` (1-based): initial × 2^(attempt−1), capped at `maxDelay`.
    public func delay(beforeAttempt attempt: Int) -> Double {
        // 2^30 × any sane initial delay is past every cap; the clamp keeps the shift defined.
        let doublings = min(max(attempt - 1, 0), 30)
        return min(initialDelay * Double(1 << doublings), maxDelay)
    }
}
