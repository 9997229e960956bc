/// How to reach the broker and how the connection behaves.
public struct BrokerConfiguration: Sendable {
    /// The broker URL (credentials inside; only `url.redacted` is ever logged).
    public var url: BrokerURL
    /// How job leases are renewed and how soon a dead holder's job is taken over.
    public var leaseTiming = LeaseTiming()
    /// basic.qos prefetch: how many unacked job deliveries this worker holds, i.e. its concurrency.
    public var prefetch: UInt16
    /// Heartbeat interval in seconds negotiated at login (0 disables, which long jobs should never do).
    public var heartbeatSeconds: Int
    /// TCP (and TLS) connect timeout.
    public var connectTimeout: Duration
    /// Upper bound on each synchronous AMQP call (login, declares, qos, consume, cancel).
    public var rpcTimeout: Duration
    /// PEM file of trusted CAs for amqps://; nil uses the system bundle.
    public var caCertPath: String?
    /// Whether job deliveries are consumed (a worker) or not (a publisher such as `sluice enqueue`).
    public var consumesJobs: Bool
    /// The queue `deliveries` come from when `consumesJobs` is set: `sluice.jobs`, or the ledger's queue.
    public var consumedQueue: ConsumedQueue = .jobs
    /// A worker's class queues and the prefetch of each (its slots). When not empty (and `consumedQueue` is
    /// `.jobs`), `sluice.jobs` is the intake the worker triages (prefetch `prefetch`) and each class queue is
    /// consumed too, paused on its own (`pauseConsuming(_:jobClass:)`); empty: `sluice.jobs` alone, as before.
    public var classPrefetch: [JobClass: UInt16] = [:]
    /// How `sluice.jobs` is declared; the same on every client of the broker.
    public var jobsQueueType: JobsQueueType = .classic
    /// Whether this connection binds its own queue to `sluice.control` and yields control messages.
    public var consumesControl: Bool
    /// Longest wait for socket input before the mailbox and heartbeats are looked at again.
    public var pollInterval: Duration
    /// First reconnect delay; it doubles per failed attempt up to `maxReconnectDelay`.
    public var initialReconnectDelay: Duration
    /// Cap of the reconnect backoff.
    public var maxReconnectDelay: Duration
    /// Connection attempts before giving up (nil: retry forever, what a worker wants; 1: fail fast, for the CLI).
    public var maxConnectAttempts: Int?
    /// The `connection_name` client property, shown by `rabbitmqctl list_connections client_properties`.
    public var connectionName: String

    /// Builds a configuration with worker defaults (30 s heartbeat, prefetch 1, retry forever).
    /// - Parameters:
    ///   - url: the parsed broker URL.
    ///   - prefetch: basic.qos prefetch count, the number of jobs run at once.
    ///   - heartbeatSeconds: AMQP heartbeat in seconds.
    ///   - connectionName: shown in the broker's connection list.
    public init(url: BrokerURL, prefetch: UInt16 = 1, heartbeatSeconds: Int = 30, connectionName: String = "sluice") {
        self.url = url
        self.prefetch = prefetch
        self.heartbeatSeconds = heartbeatSeconds
        connectTimeout = .seconds(10)
        rpcTimeout = .seconds(15)
        caCertPath = nil
        consumesJobs = true
        consumesControl = true
        pollInterval = .milliseconds(150)
        initialReconnectDelay = .milliseconds(100)
        maxReconnectDelay = .seconds(5)
        maxConnectAttempts = nil
        self.connectionName = connectionName
    }

    /// Parses `url` and builds a configuration with worker defaults.
    /// - Parameters:
    ///   - url: an `amqp://` or `amqps://` URL.
    ///   - prefetch: basic.qos prefetch count, the number of jobs run at once.
    ///   - heartbeatSeconds: AMQP heartbeat in seconds.
    public init(url: String, prefetch: UInt16 = 1, heartbeatSeconds: Int = 30) throws(AMQPError) {
        self.init(url: try BrokerURL(parsing: url), prefetch: prefetch, heartbeatSeconds: heartbeatSeconds)
    }
}
