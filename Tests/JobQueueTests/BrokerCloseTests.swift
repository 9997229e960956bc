import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// Stopping a connection whose broker is gone is bounded: closing does not wait out librabbitmq's own timeouts, a
/// publish still waiting for the broker then fails instead of waiting for a reconnect, and the delivery stream ends at
/// `stopConsuming` even when the connection dies under it. The broker is reached through a relay of the test's own,
/// which the test cuts.
@Suite(.timeLimit(.minutes(1)))
struct BrokerCloseTests {
    /// A started publisher connection to a broker that was cut off (`cut`) before it connected; stop the relay after.
    private func started(_ cut: TCPRelay.Cut) throws -> (TCPRelay, BrokerConnection) {
        let relay = try TCPRelay(to: "127.0.0.1", port: 9)
        relay.cut(cut)
        var configuration = try BrokerConfiguration(url: "amqp://guest:guest@127.0.0.1:\(relay.port)/%2F")
        configuration.consumesJobs = false
        configuration.consumesControl = false
        let connection = BrokerConnection(configuration: configuration, logger: { _ in })
        connection.start()
        return (relay, connection)
    }

    @Test("a broker that accepts and never answers: close(within:) gives up at its bound while the login still waits")
    func silentBroker() async throws {
        let (relay, connection) = try started(.silent)
        defer { relay.stop() }
        // Once the relay accepted, the owner thread is in the login, which waits for the handshake timeout (15 s).
        try #require(await eventually { relay.accepted > 0 })
        let started = ContinuousClock.now
        let closed = connection.close(within: .milliseconds(500))
        let waited = ContinuousClock.now - started
        #expect(!closed, "the owner thread cannot have finished: the login is still waiting")
        #expect(waited >= .milliseconds(450) && waited < .seconds(5), "close waited \(waited)")
    }

    @Test("a broker that is gone (reset, refused): close(within:) returns at once and a publish waiting for a reconnect fails as closed")
    func goneBroker() async throws {
        let (relay, connection) = try started(.reset)
        defer { relay.stop() }
        // While it backs off, a publish waits in the mailbox for the next connection.
        let publish = Task { () async -> AMQPError? in
            do throws(AMQPError) {
                try await connection.publishJob(Array("{}".utf8))
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        #expect(connection.close(within: .seconds(5)))
        #expect(ContinuousClock.now - started < .seconds(2))
        let failure = await publish.value
        guard case .closed = failure else {
            Issue.record("expected .closed, got \(String(describing: failure))")
            return
        }
    }

    @Test("stopConsuming ends the delivery stream at once, even when the basic.cancel then fails on a broker that stopped answering",
          .enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason))
    func stopConsumingOnDeadConnection() async throws {
        let base = try await TestBroker.configuration(vhost: "jq-stop-dead")
        let relay = try TCPRelay(to: base.url.host == "localhost" ? "127.0.0.1" : base.url.host, port: base.url.port)
        defer { relay.stop() }
        var configuration = base
        configuration.url.host = "127.0.0.1"
        configuration.url.port = relay.port
        // The basic.cancel waits this long for its answer before the connection counts as lost.
        configuration.rpcTimeout = .seconds(1)
        let connection = BrokerConnection(configuration: configuration, logger: { _ in })
        connection.start()
        defer { connection.close(within: .seconds(5)) }
        try #require(await eventually { connection.isConnected })
        relay.cut(.silent)
        connection.stopConsuming()
        let ended = Task {
            for await _ in connection.deliveries {}
            return ContinuousClock.now
        }
        let asked = ContinuousClock.now
        // Before the fix the stream stayed open for good once the cancel failed: the test's time limit would end it.
        let endedAt = await ended.value
        #expect(endedAt - asked < .milliseconds(900), "the stream ended \(endedAt - asked) after stopConsuming, not before the cancel's timeout")
        #expect(try await eventually(timeout: .seconds(5)) { !connection.isConnected }, "the failed cancel counts as a lost connection")
    }
}
