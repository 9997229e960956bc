// docs/ARCHITECTURE.md §5: the RabbitMQ topology, declared idempotently on every (re)connect.

/// Names and arguments of Sluice's exchanges, queues and headers.
public enum Topology {
    /// Durable direct exchange that upstream services publish jobs to.
    public static let jobsExchange = "sluice.jobs"
    /// Durable queue of jobs (x-max-priority 9, dead-letters to `sluice.dlx`).
    public static let jobsQueue = "sluice.jobs"
    /// Durable queue of live jobs (network input), filled by every worker's triage of `sluice.jobs`; declared
    /// like `sluice.jobs` (same type and arguments).
    public static let liveQueue = "sluice.jobs.live"
    /// Durable queue of batch jobs (file input), filled by the triage of `sluice.jobs`; declared like it.
    public static let batchQueue = "sluice.jobs.batch"
    /// Durable queue of live jobs that encode video, filled by the triage of `sluice.jobs`; declared like it.
    public static let encodeQueue = "sluice.jobs.encode"
    /// Header set by the triage when the `sluice.jobs` delivery it moved to a class queue was a redelivery.
    public static let redeliveredHeader = "x-sluice-redelivered"
    /// Routing key binding `sluice.jobs` exchange to the queue.
    public static let jobsRoutingKey = "sluice.jobs"
    /// Durable fanout exchange for dead jobs.
    public static let deadLetterExchange = "sluice.dlx"
    /// Durable queue of dead jobs, each with `x-sluice-reason`.
    public static let deadQueue = "sluice.jobs.dead"
    /// Durable queue without consumers: messages wait out their per-message TTL, then dead-letter back to `sluice.jobs`.
    public static let retryQueue = "sluice.jobs.retry"
    /// Durable topic exchange of `job.<state>` events.
    public static let eventsExchange = "sluice.events"
    /// Durable queue of every job event, bound to `sluice.events` by the ledger (`sluice ledger`) only, so
    /// that events pile up for a ledger that is down but never for a fleet that runs none.
    public static let ledgerQueue = "sluice.ledger"
    /// Binding key of the ledger queue: every `job.*` event.
    public static let ledgerBindingKey = "job.#"
    /// Deliveries of one job message a quorum `sluice.jobs` allows before the broker dead-letters it.
    public static let defaultDeliveryLimit = 20
    /// Durable fanout exchange of control messages; each worker binds an exclusive, server-named queue.
    public static let controlExchange = "sluice.control"
    /// Highest job priority the queue honours (x-max-priority).
    public static let maxPriority: UInt8 = 9
    /// Header naming why a job was dead-lettered.
    public static let reasonHeader = "x-sluice-reason"
    /// Header carrying the attempt number of a retried job.
    public static let attemptHeader = "x-sluice-attempt"
    /// Longest reason kept in `x-sluice-reason` (bytes); longer reasons are cut, the full text lives in SQLite.
    public static let maxReasonBytes = 4096
}

/// One declaration of the topology, in order (exchanges before the queues and bindings that use them).
enum TopologyDeclaration: Equatable {
    case exchange(name: String, type: String)
    case queue(name: String, arguments: [(String, AMQPFieldValue)])
    case binding(queue: String, exchange: String, routingKey: String)

    static func == (lhs: TopologyDeclaration, rhs: TopologyDeclaration) -> Bool {
        switch (lhs, rhs) {
        case let (.exchange(ln, lt), .exchange(rn, rt)): return ln == rn && lt == rt
        case let (.queue(ln, la), .queue(rn, ra)): return ln == rn && AMQPFieldValue.table(la) == .table(ra)
        case let (.binding(lq, le, lk), .binding(rq, re, rk)): return lq == rq && le == re && lk == rk
        default: return false
        }
    }

    /// Everything durable with a classic `sluice.jobs` (the per-worker control queue is declared separately: it
    /// is exclusive and server-named).
    static let all: [TopologyDeclaration] = declarations(jobsQueue: .classic, ledger: false)

    /// What a connection with `configuration` declares: the jobs queue of its type, and the ledger's queue
    /// when it is the ledger.
    static func declarations(for configuration: BrokerConfiguration) -> [TopologyDeclaration] {
        declarations(jobsQueue: configuration.jobsQueueType, ledger: configuration.consumedQueue == .ledger)
    }

    private static func declarations(jobsQueue type: JobsQueueType, ledger: Bool) -> [TopologyDeclaration] {
        var declarations = common(jobsQueueArguments: type.arguments)
        if ledger {
            declarations += [
                .queue(name: Topology.ledgerQueue, arguments: []),
                .binding(queue: Topology.ledgerQueue, exchange: Topology.eventsExchange,
                         routingKey: Topology.ledgerBindingKey),
            ]
        }
        return declarations
    }

    private static func common(jobsQueueArguments: [(String, AMQPFieldValue)]) -> [TopologyDeclaration] { [
        .exchange(name: Topology.jobsExchange, type: "direct"),
        .exchange(name: Topology.deadLetterExchange, type: "fanout"),
        .exchange(name: Topology.eventsExchange, type: "topic"),
        .exchange(name: Topology.controlExchange, type: "fanout"),
        .queue(name: Topology.jobsQueue, arguments: jobsQueueArguments),
        .binding(queue: Topology.jobsQueue, exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey),
        // The class queues take copies through the default exchange (routing key = queue name), from the triage.
        .queue(name: Topology.liveQueue, arguments: jobsQueueArguments),
        .queue(name: Topology.batchQueue, arguments: jobsQueueArguments),
        .queue(name: Topology.encodeQueue, arguments: jobsQueueArguments),
        .queue(name: Topology.deadQueue, arguments: []),
        .binding(queue: Topology.deadQueue, exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue),
        .queue(name: Topology.retryQueue, arguments: [
            // The default exchange routes by queue name, so expired retries land back in sluice.jobs.
            ("x-dead-letter-exchange", .string("")),
            ("x-dead-letter-routing-key", .string(Topology.jobsQueue)),
        ]),
    ] }
}

/// How `sluice.jobs` is declared. Every client of one broker must use the same type: the broker refuses a
/// declaration whose arguments differ from the existing queue's (406 PRECONDITION_FAILED).
public enum JobsQueueType: Sendable, Equatable, CustomStringConvertible {
    /// A classic queue with priorities 0…9 (`x-max-priority`), on one node.
    case classic
    /// A quorum queue (Raft-replicated over the cluster's nodes) that dead-letters a message after
    /// `deliveryLimit` deliveries (`x-delivery-limit`), so a job that crashes its workers ends without them.
    /// RabbitMQ 3.10's quorum queues have no priorities: `priority` in a job is ignored.
    case quorum(deliveryLimit: Int)

    /// Parses `classic` or `quorum`.
    /// - Parameters:
    ///   - text: the type's name.
    ///   - deliveryLimit: the quorum queue's delivery limit (≥ 1).
    public init?(name text: String, deliveryLimit: Int = Topology.defaultDeliveryLimit) {
        switch text {
        case "classic": self = .classic
        case "quorum" where deliveryLimit >= 1 && deliveryLimit <= Int(Int32.max): self = .quorum(deliveryLimit: deliveryLimit)
        default: return nil
        }
    }

    /// `classic` or `quorum`.
    public var description: String {
        switch self {
        case .classic: "classic"
        case .quorum: "quorum"
        }
    }

    /// The `sluice.jobs` declaration's arguments; both dead-letter to `sluice.dlx`.
    var arguments: [(String, AMQPFieldValue)] {
        switch self {
        case .classic:
            [("x-max-priority", .int(Int32(Topology.maxPriority))),
             ("x-dead-letter-exchange", .string(Topology.deadLetterExchange))]
        case let .quorum(deliveryLimit):
            [("x-queue-type", .string("quorum")),
             ("x-delivery-limit", .long(Int64(deliveryLimit))),
             ("x-dead-letter-exchange", .string(Topology.deadLetterExchange))]
        }
    }
}

/// The kinds of job a worker runs side by side, each from its own queue with its own capacity, so that a burst
/// of one kind never starves another.
public enum JobClass: String, Sendable, CaseIterable, Hashable {
    /// A job whose input is a network stream (an RTMP/RTMPS pull or listen) and that encodes no video: a restream
    /// with no end in sight, costing little CPU.
    case live
    /// A job with a file input: it ends on its own.
    case batch
    /// A live job that encodes video: it holds CPU for as long as it runs, so a worker takes as many as its encode
    /// budget carries (in 720p30-equivalents), not as many as it has live slots.
    case encode

    /// The class queue this kind of job waits in.
    public var queueName: String {
        switch self {
        case .live: Topology.liveQueue
        case .batch: Topology.batchQueue
        case .encode: Topology.encodeQueue
        }
    }
}

/// Which queue a consuming connection takes its deliveries from.
public enum ConsumedQueue: Sendable, Equatable {
    /// `sluice.jobs`: a worker.
    case jobs
    /// `sluice.ledger`: the ledger, which reads every worker's events.
    case ledger

    /// The queue's name.
    public var name: String {
        switch self {
        case .jobs: Topology.jobsQueue
        case .ledger: Topology.ledgerQueue
        }
    }
}
