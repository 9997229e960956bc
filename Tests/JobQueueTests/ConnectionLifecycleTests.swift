import Testing
@testable import JobQueue

struct ConnectionLifecycleTests {
    typealias Action = ConnectionLifecycle.Action

    private func machine(maxAttempts: Int? = nil) -> ConnectionLifecycle {
        ConnectionLifecycle(initialDelay: .milliseconds(100), maxDelay: .seconds(5), maxAttempts: maxAttempts)
    }

    @Test("connect, lose, reconnect: each successful connect is a new generation")
    func generations() {
        var m = machine()
        #expect(m.start() == .connect(attempt: 1))
        #expect(m.connectSucceeded() == .serve(generation: 1))
        #expect(m.connectionLost() == .reconnect(after: .milliseconds(100), failedAttempts: 0))
        #expect(m.backoffElapsed() == .connect(attempt: 1))
        #expect(m.connectSucceeded() == .serve(generation: 2))
        #expect(m.state == .connected(generation: 2))
    }

    @Test("failed connects back off exponentially up to the 5 s cap")
    func backoff() {
        var m = machine()
        _ = m.start()
        var delays: [Duration] = []
        for _ in 0..<9 {
            guard case let .reconnect(delay, _) = m.connectFailed(reason: "refused") else {
                Issue.record("expected a reconnect")
                return
            }
            delays.append(delay)
            _ = m.backoffElapsed()
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                           .milliseconds(1600), .milliseconds(3200), .seconds(5), .seconds(5), .seconds(5)])
        #expect(m.generation == 0)
    }

    @Test("maxAttempts gives up after that many failures")
    func givesUp() {
        var m = machine(maxAttempts: 2)
        _ = m.start()
        #expect(m.connectFailed(reason: "refused") == .reconnect(after: .milliseconds(100), failedAttempts: 1))
        #expect(m.backoffElapsed() == .connect(attempt: 2))
        #expect(m.connectFailed(reason: "refused") == .giveUp(reason: "refused"))
        #expect(m.state == .failed(reason: "refused"))
        #expect(m.close() == .none)
    }

    @Test("a single attempt fails fast (the CLI's setting)")
    func failFast() {
        var m = machine(maxAttempts: 1)
        _ = m.start()
        #expect(m.connectFailed(reason: "ACCESS_REFUSED") == .giveUp(reason: "ACCESS_REFUSED"))
    }

    static let outOfOrder: [(name: String, drive: @Sendable (inout ConnectionLifecycle) -> Action)] = [
        ("success before start", { $0.connectSucceeded() }),
        ("loss before start", { $0.connectionLost() }),
        ("backoff before start", { $0.backoffElapsed() }),
        ("failure before start", { $0.connectFailed(reason: "x") }),
    ]

    @Test("events that do not fit the state are ignored", arguments: outOfOrder.map(\.name))
    func ignoresOutOfOrder(_ name: String) throws {
        let drive = try #require(Self.outOfOrder.first { $0.name == name }).drive
        var m = machine()
        #expect(drive(&m) == .none)
        #expect(m.state == .idle)
    }

    @Test("close from each state")
    func close() {
        var m = machine()
        #expect(m.close() == .closeConnection)
        #expect(m.start() == .none)
        #expect(m.close() == .none)

        var live = machine()
        _ = live.start()
        _ = live.connectSucceeded()
        #expect(live.close() == .closeConnection)
        #expect(live.state == .closed)
        #expect(live.connectionLost() == .none)

        var backingOff = machine()
        _ = backingOff.start()
        _ = backingOff.connectFailed(reason: "refused")
        #expect(backingOff.close() == .closeConnection)
        #expect(backingOff.backoffElapsed() == .none)
    }
}
