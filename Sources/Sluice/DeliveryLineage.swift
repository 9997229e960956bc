// docs/ARCHITECTURE.md §5 and §8 (leases, poison jobs): where a job message comes from, read from its headers alone.
import JobQueue

/// Where a delivery of `sluice.jobs` comes from, and how many workers died running its job so far.
public struct DeliveryLineage: Equatable, Sendable {
    /// How the message got to `sluice.jobs`.
    public enum Origin: Equatable, Sendable {
        /// Published by an upstream service, `sluice enqueue`, `jobs retry` or the retry queue.
        case fresh
        /// A claim whose holder stopped renewing it (died, OOM-killed, lost the broker): it expired into the queue.
        case orphaned(holder: String, renewedAtMilliseconds: Int64?)
        /// Handed back by a worker that shut down; its output stopped at `stoppedAtMilliseconds`.
        case handedOver(holder: String, stoppedAtMilliseconds: Int64?)
    }

    public var origin: Origin
    /// Workers that died while running the job, this delivery's own evidence included.
    public var deaths: Int
    /// How often a hand-over already found the lease still held (the previous holder had not let go yet).
    public var leaseWaits: Int

    /// Most times a hand-over waits for its previous holder to let the lease go (`Worker.leaseWaitDelay` apart).
    public static let maxLeaseWaits = 30

    /// Reads the lineage of a delivery.
    /// - Parameters:
    ///   - headers: the message's scalar headers.
    ///   - redelivered: the broker's flag. It is no death by itself (a worker returns deliveries it has no slot
    ///     for, and a connection hiccup requeues): a worker that died mid-attempt is counted through its claim,
    ///     or, on a classic queue, through the local record's attempts (`DeliveryTriage`).
    public init(headers: [String: String], redelivered: Bool) {
        let carried = Self.count(headers[JobLease.deathsHeader])
        leaseWaits = Self.count(headers[JobLease.leaseWaitsHeader])
        if let holder = headers[JobLease.handoverHeader] {
            origin = .handedOver(holder: holder, stoppedAtMilliseconds: Int64(headers[JobLease.stoppedAtHeader] ?? ""))
            deaths = carried
        } else if headers[JobLease.tokenHeader] != nil {
            origin = .orphaned(holder: headers[JobLease.holderHeader] ?? "an unknown worker",
                               renewedAtMilliseconds: Int64(headers[JobLease.renewedAtHeader] ?? ""))
            deaths = carried + 1
        } else {
            origin = .fresh
            // Quorum queues count earlier deliveries themselves; a classic queue only says "delivered before".
            deaths = max(carried, Self.count(headers[JobLease.deliveryCountHeader]))
        }
    }

    /// The headers a claim or a re-published copy of this job carries forward (lease headers dropped).
    /// - Parameter headers: the delivery's headers.
    public func carriedHeaders(from headers: [String: String]) -> [String: String] {
        var kept = headers.filter { !Self.transientHeaders.contains($0.key) }
        if deaths > 0 { kept[JobLease.deathsHeader] = String(deaths) }
        return kept
    }

    /// The reason to dead-letter the job instead of running it, once `deaths` reached `maxAttempts`.
    /// - Parameters:
    ///   - id: the job id.
    ///   - maxAttempts: the job's `max_attempts`.
    public func poisonReason(id: String, maxAttempts: Int) -> String? {
        guard deaths >= maxAttempts else { return nil }
        let last: String
        switch origin {
        case let .orphaned(holder, _): last = " (the last on worker \(holder))"
        default: last = ""
        }
        return "job \(id): \(deaths) worker\(deaths == 1 ? "" : "s") died while running it\(last); "
            + "max_attempts is \(maxAttempts), so it is not run again"
    }

    /// Seconds without output since the previous holder's last sign of life, measured at `nowMilliseconds`.
    /// - Parameter nowMilliseconds: wall-clock milliseconds since 1970.
    public func gapSeconds(nowMilliseconds: Int64) -> Double? {
        let since: Int64?
        switch origin {
        case .fresh: return nil
        case let .orphaned(_, renewed): since = renewed
        case let .handedOver(_, stopped): since = stopped
        }
        guard let since, since <= nowMilliseconds else { return nil }
        return Double(nowMilliseconds - since) / 1000
    }

    /// Headers that describe one delivery or one claim, not the job.
    static let transientHeaders: Set<String> = [
        JobLease.holderHeader, JobLease.tokenHeader, JobLease.renewedAtHeader, JobLease.handoverHeader,
        JobLease.stoppedAtHeader, JobLease.deathsHeader, JobLease.deliveryCountHeader, JobLease.leaseWaitsHeader,
        Topology.reasonHeader, Topology.redeliveredHeader,
    ]

    private static func count(_ text: String?) -> Int {
        guard let text, let value = Int(text), value >= 0 else { return 0 }
        return min(value, 1_000_000)
    }
}
