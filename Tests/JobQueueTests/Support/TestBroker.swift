import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue

/// A test's own vhost on the private broker (`PrivateBroker`, SluiceTestSupport).
enum TestBroker {
    /// A fresh, empty vhost for one test (so tests can run in parallel without sharing `sluice.jobs`), and a
    /// configuration pointing at it with short timeouts. `creatingVhost: false` only points at a vhost the test made
    /// already: making it again would close every connection the test has in it.
    static func configuration(vhost: String, prefetch: UInt16 = 10, heartbeatSeconds: Int = 30,
                              creatingVhost: Bool = true) async throws -> BrokerConfiguration {
        // This process's own name for the vhost (`PrivateBroker.vhost`: never one an earlier run left, deleted and
        // made again at once).
        let vhost = PrivateBroker.vhost(vhost)
        let base = try BrokerURL(parsing: try #require(PrivateBroker.url))
        if creatingVhost { try await PrivateBroker.ctl(["eval", """
            _ = (catch rabbit_vhost:delete(<<"\(vhost)">>, <<"tests">>)), \
            ok = rabbit_vhost:add(<<"\(vhost)">>, <<"tests">>), \
            rabbit_auth_backend_internal:set_permissions(<<"\(base.user)">>, <<"\(vhost)">>, \
            <<".*">>, <<".*">>, <<".*">>, <<"tests">>).
            """]) }
        var url = base
        url.vhost = vhost
        var configuration = BrokerConfiguration(url: url, prefetch: prefetch, heartbeatSeconds: heartbeatSeconds,
                                                connectionName: "jobqueue-tests-\(vhost)")
        configuration.initialReconnectDelay = .milliseconds(50)
        configuration.maxReconnectDelay = .seconds(1)
        return configuration
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

/// A logger that keeps the lines for assertions.
final class LogLines: @unchecked Sendable {
    // Reason: `lines` is guarded by `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    var logger: @Sendable (String) -> Void { { line in self.lock.withLock { self.lines.append(line) } } }
    var all: [String] { lock.withLock { lines } }
}
