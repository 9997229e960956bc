import Foundation
import Testing
@testable import JobQueue

/// The private broker `scripts/test` starts with `scripts/lib/rabbitmq.sh`: its URL and its rabbitmqctl wrapper.
enum TestBroker {
    static let url = ProcessInfo.processInfo.environment["SLUICE_TEST_AMQP_URL"]
    static let rabbitmqctl = ProcessInfo.processInfo.environment["SLUICE_TEST_RABBITMQCTL"]

    /// For `.enabled(if:)`: integration tests need a real broker. Under CI they run regardless, so a missing
    /// broker fails them instead of skipping them.
    static var isAvailable: Bool { (url != nil && rabbitmqctl != nil) || ProcessInfo.processInfo.environment["CI"] == "true" }
    static let unavailableReason: Comment =
        "SLUICE_TEST_AMQP_URL and SLUICE_TEST_RABBITMQCTL are unset: scripts/test sets them after starting a broker"

    /// A fresh, empty vhost for one test (so tests can run in parallel without sharing `sluice.jobs`), and a
    /// configuration pointing at it with short timeouts.
    static func configuration(vhost: String, prefetch: UInt16 = 10, heartbeatSeconds: Int = 30) throws -> BrokerConfiguration {
        let base = try BrokerURL(parsing: try #require(url))
        try ctl(["eval", """
            _ = (catch rabbit_vhost:delete(<<"\(vhost)">>, <<"tests">>)), \
            ok = rabbit_vhost:add(<<"\(vhost)">>, <<"tests">>), \
            rabbit_auth_backend_internal:set_permissions(<<"\(base.user)">>, <<"\(vhost)">>, \
            <<".*">>, <<".*">>, <<".*">>, <<"tests">>).
            """])
        var url = base
        url.vhost = vhost
        var configuration = BrokerConfiguration(url: url, prefetch: prefetch, heartbeatSeconds: heartbeatSeconds,
                                                connectionName: "jobqueue-tests-\(vhost)")
        configuration.initialReconnectDelay = .milliseconds(50)
        configuration.maxReconnectDelay = .seconds(1)
        return configuration
    }

    /// Runs the node's rabbitmqctl; throws with its output when it fails.
    @discardableResult
    static func ctl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(rabbitmqctl))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(command: "rabbitmqctl \(arguments.first ?? "")", output: output)
        }
        return output
    }

    /// Ready + unacked messages per queue of a vhost, from the broker's own bookkeeping.
    static func messageCounts(vhost: String) throws -> [String: Int] {
        let output = try ctl(["list_queues", "-p", vhost, "--quiet", "--no-table-headers", "name", "messages"])
        var counts: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if fields.count == 2, let count = Int(fields[1]) { counts[String(fields[0])] = count }
        }
        return counts
    }

    struct CommandFailed: Error, CustomStringConvertible {
        let command: String
        let output: String
        var description: String { "\(command) failed: \(output)" }
    }
}

/// Collects an AsyncStream's elements in the background so tests can wait for them with a deadline.
final class Collector<Element: Sendable>: @unchecked Sendable {
    // Reason: `elements` is guarded by `lock`.
    private let lock = NSLock()
    private var elements: [Element] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in stream {
                self?.lock.withLock { self?.elements.append(element) }
            }
        }
    }

    deinit { task?.cancel() }

    var all: [Element] { lock.withLock { elements } }

    /// Waits until at least `count` elements arrived, or the timeout passed; returns what arrived.
    func wait(for count: Int, timeout: Duration = .seconds(10)) async -> [Element] {
        _ = await eventually(timeout: timeout) { self.all.count >= count }
        return all
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

/// A logger that keeps the lines for assertions.
final class LogLines: @unchecked Sendable {
    // Reason: `lines` is guarded by `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    var logger: @Sendable (String) -> Void { { line in self.lock.withLock { self.lines.append(line) } } }
    var all: [String] { lock.withLock { lines } }
}
