import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue
import NIOConcurrencyHelpers

/// Every broker write has a deadline (docs/ARCHITECTURE.md §5): librabbitmq waits for a full socket without one, so a
/// publish into a broker that stopped taking bytes would hold the owner thread, and with it every lease, for good.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct BrokerWriteDeadlineTests {
    @Test("the socket carries the call bound as its write deadline (TCP_USER_TIMEOUT) from the login on")
    func socketDeadline() async throws {
        var configuration = try await TestBroker.configuration(vhost: "jq-write-bound")
        configuration.rpcTimeout = .milliseconds(2500)
        let connection = try AMQPConnection(configuration: configuration)
        #expect(connection.socketSendDeadline == .milliseconds(2500))
        try connection.setSendDeadline(.milliseconds(400))
        #expect(connection.socketSendDeadline == .milliseconds(400))
    }

    @Test("a publish into a broker that stopped reading fails within the call bound, and the connection counts as lost")
    func publishIntoFullWindow() async throws {
        let base = try await TestBroker.configuration(vhost: "jq-write-deadline")
        let relay = try TCPRelay(to: base.url.host == "localhost" ? "127.0.0.1" : base.url.host, port: base.url.port)
        defer { relay.stop() }
        var configuration = base
        configuration.url.host = "127.0.0.1"
        configuration.url.port = relay.port
        // No lease is held, so this is the whole bound of every call and write.
        configuration.rpcTimeout = .seconds(2)
        let connection = BrokerConnection(configuration: configuration, logger: { _ in })
        connection.start()
        defer { connection.close(within: .seconds(5)) }
        try #require(await eventually { connection.isConnected })
        relay.cut(.silent)

        // More than the relay's receive buffer and our send buffer hold together (tcp_rmem and tcp_wmem maxima of 32
        // and 4 MiB here), so the sender ends up waiting on a zero window that the relay's kernel keeps acknowledging.
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 20)
        let outcome = NIOLockedValueBox<String?>(nil)
        let sent = ContinuousClock.now
        let publishing = Task {
            do throws(AMQPError) {
                try await connection.publishJob(body)
                outcome.withLockedValue { $0 = "confirmed" }
            } catch {
                outcome.withLockedValue { $0 = "\(error)" }
            }
        }
        // Before the deadline the owner thread waited in librabbitmq's send for ever: nothing came back.
        let ended = await eventually(timeout: .seconds(45)) { outcome.withLockedValue { $0 } != nil }
        let elapsed = ContinuousClock.now - sent
        try #require(ended, "the publish into a full window still waits \(elapsed) after it was sent")
        let result = try #require(outcome.withLockedValue { $0 })
        #expect(result != "confirmed")
        #expect(result.contains("lost") || result.contains("closed"), "\(result)")
        // The bound (2 s) plus the zero-window probe that notices it, plus a loaded machine's slack.
        #expect(elapsed < .seconds(30), "failed after \(elapsed)")
        #expect(try await eventually(timeout: .seconds(5)) { !connection.isConnected })
        await publishing.value
    }
}
