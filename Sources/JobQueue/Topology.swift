// DESIGN §5: the RabbitMQ topology, declared idempotently on every (re)connect.

/// Names and arguments of Sluice's exchanges, queues and headers.
public enum Topology {
    /// Durable direct exchange that upstream services publish jobs to.
    public static let jobsExchange = "sluice.jobs"
    /// Durable queue of jobs (x-max-priority 9, dead-letters to `sluice.dlx`).
    public static let jobsQueue = "sluice.jobs"
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

    /// Everything durable (the per-worker control queue is declared separately: it is exclusive and server-named).
    static let all: [TopologyDeclaration] = [
        .exchange(name: Topology.jobsExchange, type: "direct"),
        .exchange(name: Topology.deadLetterExchange, type: "fanout"),
        .exchange(name: Topology.eventsExchange, type: "topic"),
        .exchange(name: Topology.controlExchange, type: "fanout"),
        .queue(name: Topology.jobsQueue, arguments: [
            ("x-max-priority", .int(Int32(Topology.maxPriority))),
            ("x-dead-letter-exchange", .string(Topology.deadLetterExchange)),
        ]),
        .binding(queue: Topology.jobsQueue, exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey),
        .queue(name: Topology.deadQueue, arguments: []),
        .binding(queue: Topology.deadQueue, exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue),
        .queue(name: Topology.retryQueue, arguments: [
            // The default exchange routes by queue name, so expired retries land back in sluice.jobs.
            ("x-dead-letter-exchange", .string("")),
            ("x-dead-letter-routing-key", .string(Topology.jobsQueue)),
        ]),
    ]
}
