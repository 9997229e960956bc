/// The broker connection's lifecycle as a pure state machine (no I/O, no clock): the owner thread feeds it what
/// happened and performs the Equatable action it returns.
///
///     idle ─start→ connecting ─succeeded→ connected(generation) ─lost→ backingOff ─elapsed→ connecting …
///                      └─failed→ backingOff (or failed, after maxAttempts)        any ─close→ closed
struct ConnectionLifecycle: Sendable {
    /// Where the connection is.
    enum State: Equatable, Sendable {
        case idle
        case connecting(attempt: Int)
        case connected(generation: Int)
        case backingOff(attempt: Int)
        case failed(reason: String)
        case closed
    }

    /// What the owner thread must do next.
    enum Action: Equatable, Sendable {
        /// Open a connection, log in, declare the topology and consume; report `connectSucceeded`/`connectFailed`.
        case connect(attempt: Int)
        /// The new connection is live: stamp deliveries with this generation, run the mailbox.
        case serve(generation: Int)
        /// Tear down what is left of the connection, fail in-flight confirms, wait, then report `backoffElapsed`.
        case reconnect(after: Duration, failedAttempts: Int)
        /// Stop for good: too many failed attempts.
        case giveUp(reason: String)
        /// Close the live connection gracefully and stop.
        case closeConnection
        /// Nothing to do (e.g. a second `close`).
        case none
    }

    private(set) var state: State = .idle
    /// The generation of the last connection that came up (0 before the first).
    private(set) var generation = 0
    private let initialDelay: Duration
    private let maxDelay: Duration
    private let maxAttempts: Int?

    /// - Parameters:
    ///   - initialDelay: the first backoff delay.
    ///   - maxDelay: the backoff cap.
    ///   - maxAttempts: consecutive failed connects before giving up; nil retries forever.
    init(initialDelay: Duration, maxDelay: Duration, maxAttempts: Int?) {
        precondition(initialDelay > .zero && maxDelay >= initialDelay, "backoff delays out of order")
        precondition(maxAttempts.map { $0 >= 1 } ?? true, "maxAttempts must be at least 1")
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
    }

    /// The owner thread started.
    mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .connecting(attempt: 1)
        return .connect(attempt: 1)
    }

    /// Connect, login, topology and consume all succeeded.
    mutating func connectSucceeded() -> Action {
        guard case .connecting = state else { return .none }
        generation += 1
        state = .connected(generation: generation)
        return .serve(generation: generation)
    }

    /// The connection attempt failed.
    mutating func connectFailed(reason: String) -> Action {
        guard case let .connecting(attempt) = state else { return .none }
        if let maxAttempts, attempt >= maxAttempts {
            state = .failed(reason: reason)
            return .giveUp(reason: reason)
        }
        state = .backingOff(attempt: attempt)
        return .reconnect(after: delay(afterFailedAttempts: attempt), failedAttempts: attempt)
    }

    /// A live connection broke (socket error, missed heartbeats, channel.close, connection.close, consumer cancel).
    mutating func connectionLost() -> Action {
        guard case .connected = state else { return .none }
        // The first reconnect after a working connection waits only the initial delay.
        state = .backingOff(attempt: 0)
        return .reconnect(after: initialDelay, failedAttempts: 0)
    }

    /// The backoff delay is over.
    mutating func backoffElapsed() -> Action {
        guard case let .backingOff(attempt) = state else { return .none }
        state = .connecting(attempt: attempt + 1)
        return .connect(attempt: attempt + 1)
    }

    /// `close()` was called.
    mutating func close() -> Action {
        switch state {
        case .connected:
            state = .closed
            return .closeConnection
        case .closed, .failed:
            return .none
        case .idle, .connecting, .backingOff:
            state = .closed
            return .closeConnection
        }
    }

    /// Exponential backoff: initial × 2^(n−1), capped (deterministic so that tests and logs are predictable).
    func delay(afterFailedAttempts attempts: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempts, 1) {
            delay *= 2
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }
}
