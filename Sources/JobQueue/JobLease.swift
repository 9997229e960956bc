// docs/ARCHITECTURE.md §5 (leases): one running copy of a job, for any length of job, whatever the broker's
// consumer_timeout, with take-over within seconds when the worker that runs it dies.
//
// The job message is acked as soon as the job's lease is taken, so no delivery ever stays unacked for long.
// The lease is a durable queue per job, `sluice.lease.<id>`, consumed *exclusively* by the worker that runs
// the job: a second exclusive consumer is refused (403) by the broker, on any connection, so two workers can
// never both hold it. The queue carries a *claim*: a persistent copy of the job, held unacked by its holder
// for at most `renewInterval`, then replaced by a fresh copy (publish the new one, ack the old one once it
// has arrived). Each claim carries a short per-message TTL, `orphanAfter`; while it is held it cannot expire.
// When the holder's connection dies (kill -9, OOM, host loss), the broker returns the claim to the queue with
// its original expiry, where nobody consumes it; it expires at most `orphanAfter` after it was published and
// dead-letters into `sluice.jobs`, and any worker takes the job over from it. A holder cut off from the broker
// cannot be dropped by it before the heartbeat timeout, so it keeps its jobs that long after its last claim came
// back, and no longer (`LeaseBook`). Only RabbitMQ 3.x primitives available in 3.10 are used: exclusive
// consumers, per-message TTL, dead-lettering, publisher confirms, heartbeats.

/// Names, headers and timing of job leases.
public enum JobLease {
    /// The lease queue of a job id: `sluice.lease.<id>` for a live (or unclassified) job, `sluice.batch-lease.<id>`
    /// for a batch job and `sluice.encode-lease.<id>` for a live encode job, so that running jobs of each class can be
    /// counted apart (KEDA scales each class on its own capacity). Live jobs keep the name every worker used before
    /// classes existed: during a rolling upgrade an old and a new worker still exclude each other on a restream.
    /// - Parameters:
    ///   - jobID: the job id.
    ///   - jobClass: the job's class; nil (no class known) names the original form.
    public static func queueName(jobID: String, jobClass: JobClass? = nil) -> String {
        switch jobClass {
        case .batch?: "\(batchQueuePrefix)\(jobID)"
        case .encode?: "\(encodeQueuePrefix)\(jobID)"
        case .live?, nil: "\(queuePrefix)\(jobID)"
        }
    }
    /// The lease queues of live (and unclassified) jobs start with this.
    public static let queuePrefix = "sluice.lease."
    /// The lease queues of batch jobs start with this.
    public static let batchQueuePrefix = "sluice.batch-lease."
    /// The lease queues of live encode jobs start with this.
    public static let encodeQueuePrefix = "sluice.encode-lease."

    /// Header: the worker id that published the claim.
    public static let holderHeader = "x-sluice-lease-holder"
    /// Header: random per lease; claims with another token are stale and dropped by the holder.
    public static let tokenHeader = "x-sluice-lease-token"
    /// Header: wall-clock milliseconds since 1970 when the claim was published (the holder was alive then).
    public static let renewedAtHeader = "x-sluice-lease-renewed-at"
    /// Header: how many workers died (or lost the broker for good) while running this job.
    public static let deathsHeader = "x-sluice-deaths"
    /// Header: the worker that handed the job back on shutdown (a graceful hand-over, not a death).
    public static let handoverHeader = "x-sluice-handover-from"
    /// Header: wall-clock milliseconds when the handing-over worker stopped the job's output.
    public static let stoppedAtHeader = "x-sluice-stopped-at"
    /// Header: how many times a hand-over found the lease still held and waited for it.
    public static let leaseWaitsHeader = "x-sluice-lease-waits"
    /// Header on quorum queues: the broker's own count of earlier deliveries.
    public static let deliveryCountHeader = "x-delivery-count"

    /// A lease queue unused (no holder, no claim) for this long is removed by the broker.
    public static let unusedQueueExpiry: Int32 = 3_600_000

    /// Expired claims go to the default exchange, which routes by queue name: into `sluice.jobs`.
    static let queueArguments: [(String, AMQPFieldValue)] = [
        ("x-dead-letter-exchange", .string("")),
        ("x-dead-letter-routing-key", .string(Topology.jobsQueue)),
        ("x-expires", .int(unusedQueueExpiry)),
    ]
}

/// How often a lease is renewed and how long a claim outlives its holder's connection.
public struct LeaseTiming: Sendable, Equatable {
    /// A held claim is replaced after this long: a dead holder's job is taken over between `orphanAfter` less this
    /// and `orphanAfter` after it died (and it is kept far below any broker's consumer_timeout).
    public var renewInterval: Duration
    /// A claim's TTL: once its holder's connection is gone, the job is taken over at most this long after the
    /// claim was published. A reconnect within it keeps the lease.
    public var orphanAfter: Duration
    /// The holder gives a lease up this long before another worker could take its job over.
    public var safetyMargin: Duration

    /// Defaults: renew every second, take over at most 3 s after the last renewal (after the broker dropped the
    /// holder's connection).
    public init(renewInterval: Duration = .seconds(1), orphanAfter: Duration = .seconds(3)) {
        self.renewInterval = renewInterval
        self.orphanAfter = max(orphanAfter, renewInterval * 2)
        safetyMargin = min(.seconds(1), self.orphanAfter / 6)
    }

    /// The timing `sluice worker --lease-orphan-s` sets: claims renewed every third of their TTL.
    /// - Parameter orphanAfter: the claim TTL.
    public init(orphanAfter: Duration) {
        self.init(renewInterval: orphanAfter / 3, orphanAfter: orphanAfter)
    }
}

/// What a worker asks for when it is about to run a job.
public struct LeaseRequest: Sendable, Equatable {
    /// The job id.
    public var jobID: String
    /// The job document, carried by every claim so that a take-over needs nothing else.
    public var body: [UInt8]
    /// The job's priority, kept on claims so a take-over keeps its place.
    public var priority: UInt8?
    /// Headers every claim carries (deaths, attempt).
    public var headers: [String: String]
    /// The worker id that holds the lease.
    public var holder: String
    /// The job's class, which names its lease queue (`JobLease.queueName(jobID:jobClass:)`).
    public var jobClass: JobClass?

    /// The lease queue.
    public var queueName: String { JobLease.queueName(jobID: jobID, jobClass: jobClass) }

    /// A second lease queue held with the first, empty, for exclusion only: an encode job also holds the live name
    /// `sluice.lease.<id>`, so that a copy of the job classed live (by a worker from before the encode class, or
    /// re-enqueued as a copy job) is refused like any second holder, while KEDA still counts it under its own name.
    public var exclusionQueueName: String? {
        jobClass == .encode ? JobLease.queueName(jobID: jobID, jobClass: .live) : nil
    }

    /// - Parameters:
    ///   - jobID: the job id.
    ///   - body: the job JSON.
    ///   - priority: the AMQP priority of the job.
    ///   - headers: headers to keep on every claim.
    ///   - holder: this worker's id.
    ///   - jobClass: the job's class (names the lease queue).
    public init(jobID: String, body: [UInt8], priority: UInt8?, headers: [String: String], holder: String,
                jobClass: JobClass? = nil) {
        self.jobClass = jobClass
        self.jobID = jobID
        self.body = body
        self.priority = priority
        self.headers = headers
        self.holder = holder
    }
}

/// The answer to a lease request.
public enum LeaseOutcome: Sendable, Equatable {
    /// This worker holds the lease: its first claim is in the broker, the job message may be acked.
    case acquired
    /// Another consumer holds it (or the queue vanished under us): the job runs elsewhere right now.
    case heldElsewhere(reason: String)
    /// The broker could not be asked (connection down, timeout).
    case failed(reason: String)
}
