// `/healthz` — 200 only while the broker connection is up, the database takes writes, and the output root and the
// database's volume keep their free-space floor.
import Foundation
import JobStore
import NIOConcurrencyHelpers
import NamedThreads

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

/// What `/healthz` answers: healthy, or the one-line reason it is not, and what the worker cannot do though healthy.
public struct HealthReport: Sendable, Equatable {
    public var isHealthy: Bool
    /// `ok`, or every problem found, joined by `; `.
    public var reason: String
    /// Lines after the first that do not make the worker unhealthy: a library it cannot load (its relays still run).
    public var notes: [String] = []

    /// The response body: the reason, then each note, a line each.
    public var body: String { ([reason] + notes).map { $0 + "\n" }.joined() }
}

/// A folder whose volume must keep some space free: below the floor, jobs would fail with a full disk.
public struct FreeSpaceFloor: Sendable, Equatable {
    /// How the report names it (`output root`, `database`).
    public var name: String
    /// Any path on the volume (the folder itself, or the database's folder).
    public var path: String
    public var minimumBytes: UInt64

    public init(name: String, path: String, minimumBytes: UInt64) {
        self.name = name
        self.path = path
        self.minimumBytes = minimumBytes
    }

    /// The problem with this volume, or nil when it has at least the floor free.
    public func problem() -> String? {
        var volume = statvfs()
        guard statvfs(path, &volume) == 0 else {
            return "\(name) \(path): cannot read its free space: \(String(cString: strerror(errno)))"
        }
        // f_bavail: what an unprivileged writer may still use; the worker need not run as root.
        let free = UInt64(volume.f_bavail) * UInt64(volume.f_frsize)
        guard free < minimumBytes else { return nil }
        return "\(name) \(path) has \(FreeSpaceFloor.megabytes(free)) MB free, below the floor of \(FreeSpaceFloor.megabytes(minimumBytes)) MB"
    }

    static func megabytes(_ bytes: UInt64) -> String {
        let value = Double(bytes) / 1_048_576
        return value >= 10 || value == value.rounded() ? String(Int(value.rounded(.down))) : String(format: "%.1f", value)
    }
}

/// Checks the broker flag and runs a write probe against the store. The probe may wait on SQLite's busy
/// timeout, so it runs on a thread of its own, concurrent requests share one probe, and each request waits
/// at most `deadline` for it: a caller (the container's HEALTHCHECK, a load balancer) always gets an answer.
public final class HealthCheck: Sendable {
    private let store: JobStore
    private let brokerStatus: @Sendable () -> BrokerStatus
    private let deadline: Duration
    private let floors: [FreeSpaceFloor]
    private let notes: [String]

    private typealias Waiter = CheckedContinuation<Result<Void, JobStoreError>?, Never>
    /// Requests waiting for the probe running now (at most one runs).
    private struct Probes {
        var waiters: [UInt64: Waiter] = [:]
        var probing = false
        var nextWaiter: UInt64 = 0
    }
    private let probes = NIOLockedValueBox(Probes())

    /// - Parameters:
    ///   - store: the job database to probe.
    ///   - brokerStatus: the broker connection's state.
    ///   - deadline: how long a request waits for the write probe.
    ///   - floors: volumes that must keep space free (the output root, the database's folder).
    ///   - notes: what the worker cannot do though healthy (checked at its start), added to every answer.
    public init(store: JobStore, brokerStatus: @escaping @Sendable () -> BrokerStatus, deadline: Duration = .seconds(2),
                floors: [FreeSpaceFloor] = [], notes: [String] = []) {
        self.notes = notes
        self.store = store
        self.brokerStatus = brokerStatus
        self.deadline = deadline
        self.floors = floors
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
        problems += floors.compactMap { $0.problem() }
        return HealthReport(isHealthy: problems.isEmpty, reason: problems.isEmpty ? "ok" : problems.joined(separator: "; "), notes: notes)
    }

    /// The probe's result, or nil if it took longer than `deadline`.
    private func probeStore() async -> Result<Void, JobStoreError>? {
        await withCheckedContinuation { (waiter: Waiter) in
            let (id, start) = probes.withLockedValue { probes in
                probes.nextWaiter += 1
                probes.waiters[probes.nextWaiter] = waiter
                defer { probes.probing = true }
                return (probes.nextWaiter, !probes.probing)
            }
            if start {
                startNamedThread("sluice-health") { [self] in
                    let result = Result { () throws(JobStoreError) in try store.checkWritable() }
                    let finished = probes.withLockedValue { probes in
                        probes.probing = false
                        defer { probes.waiters.removeAll() }
                        return Array(probes.waiters.values)
                    }
                    for waiter in finished { waiter.resume(returning: result) }
                }
            }
            let (seconds, attoseconds) = deadline.components
            let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
                probes.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
            }
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value.rounded() == value ? String(Int64(value)) : String(format: "%.3g", value)
    }
}
