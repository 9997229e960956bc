// Issue #5: `/healthz` — 200 only while the broker connection is up and the database takes writes.
import Foundation
import JobStore

/// The broker connection as the HTTP side sees it (read from `BrokerConnection` by the worker).
public struct BrokerStatus: Sendable, Equatable {
    /// Whether a connection is up (topology declared, consumers running).
    public var connected: Bool
    /// Connections made so far: 1 for the first, +1 per reconnect.
    public var generation: Int
    /// Channels the broker closed so far, by AMQP reply code (406: a delivery outlived consumer_timeout).
    public var channelErrors: [UInt16: Int]
    /// Job leases held now.
    public var leasesHeld: Int

    public init(connected: Bool, generation: Int, channelErrors: [UInt16: Int] = [:], leasesHeld: Int = 0) {
        self.connected = connected
        self.generation = generation
        self.channelErrors = channelErrors
        self.leasesHeld = leasesHeld
    }
}

/// What `/healthz` answers: healthy, or the one-line reason it is not.
public struct HealthReport: Sendable, Equatable {
    public var isHealthy: Bool
    /// `ok`, or every problem found, joined by `; `.
    public var reason: String
}

/// Checks the broker flag and runs a write probe against the store. The probe may wait on SQLite's busy
/// timeout, so it runs on a thread of its own, concurrent requests share one probe, and each request waits
/// at most `deadline` for it: a caller (the container's HEALTHCHECK, a load balancer) always gets an answer.
public final class HealthCheck: @unchecked Sendable {
    // Reason: `waiters`, `probing` and `nextWaiter` are guarded by `lock`; `store` and `brokerStatus` are thread-safe.
    private let store: JobStore
    private let brokerStatus: @Sendable () -> BrokerStatus
    private let deadline: Duration

    private typealias Waiter = CheckedContinuation<Result<Void, JobStoreError>?, Never>
    private let lock = NSLock()
    private var waiters: [UInt64: Waiter] = [:]
    private var probing = false
    private var nextWaiter: UInt64 = 0

    /// - Parameters:
    ///   - store: the job database to probe.
    ///   - brokerStatus: the broker connection's state.
    ///   - deadline: how long a request waits for the write probe.
    public init(store: JobStore, brokerStatus: @escaping @Sendable () -> BrokerStatus, deadline: Duration = .seconds(2)) {
        self.store = store
        self.brokerStatus = brokerStatus
        self.deadline = deadline
    }

    /// Checks both; never throws and returns within about `deadline`.
    public func check() async -> HealthReport {
        var problems: [String] = []
        if !brokerStatus().connected { problems.append("broker connection is down") }
        switch await probeStore() {
        case .success?: break
        case let .failure(error)?: problems.append("database is not writable: \(error)")
        case nil: problems.append("database is not writable: no write lock within \(HealthCheck.seconds(deadline)) s")
        }
        return HealthReport(isHealthy: problems.isEmpty, reason: problems.isEmpty ? "ok" : problems.joined(separator: "; "))
    }

    /// The probe's result, or nil if it took longer than `deadline`.
    private func probeStore() async -> Result<Void, JobStoreError>? {
        await withCheckedContinuation { (waiter: Waiter) in
            let (id, start) = lock.withLock {
                nextWaiter += 1
                waiters[nextWaiter] = waiter
                defer { probing = true }
                return (nextWaiter, !probing)
            }
            if start {
                let thread = Thread { [self] in
                    let result = Result { () throws(JobStoreError) in try store.checkWritable() }
                    let finished = lock.withLock {
                        probing = false
                        defer { waiters.removeAll() }
                        return Array(waiters.values)
                    }
                    for waiter in finished { waiter.resume(returning: result) }
                }
                thread.name = "sluice-health-probe"
                thread.start()
            }
            let (seconds, attoseconds) = deadline.components
            let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
                lock.withLock { waiters.removeValue(forKey: id) }?.resume(returning: nil)
            }
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value.rounded() == value ? String(Int64(value)) : String(format: "%.3g", value)
    }
}
