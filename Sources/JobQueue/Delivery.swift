/// One job message taken from `sluice.jobs` (or a class queue), to be settled exactly once with ack, retry, dead-letter or requeue.
public struct Delivery: Sendable, Equatable {
    /// The message body (job JSON).
    public var body: [UInt8]
    /// The broker's delivery tag; meaningful only on the channel of `generation`.
    public var deliveryTag: UInt64
    /// Which connection (1, 2, …) delivered it; settling it on a later connection is refused.
    public var generation: Int
    /// True when the broker delivered it before (a worker died or a channel closed without acking it).
    public var redelivered: Bool
    /// Scalar message headers as strings (e.g. `x-sluice-attempt`); arrays such as `x-death` are left out.
    public var headers: [String: String]
    /// The message priority, when the publisher set one.
    public var priority: UInt8?
    /// The class queue it came from; nil for `sluice.jobs` itself (the intake, which a worker triages).
    public var jobClass: JobClass?

    /// Builds a delivery (the connection does; tests may too).
    /// - Parameters:
    ///   - body: the message body.
    ///   - deliveryTag: the broker's delivery tag.
    ///   - generation: the connection generation that received it.
    ///   - redelivered: the broker's redelivered flag.
    ///   - headers: scalar headers as strings.
    ///   - priority: the message priority, if set.
    ///   - jobClass: the class queue that delivered it, nil for `sluice.jobs`.
    public init(body: [UInt8], deliveryTag: UInt64, generation: Int, redelivered: Bool,
                headers: [String: String] = [:], priority: UInt8? = nil, jobClass: JobClass? = nil) {
        self.body = body
        self.deliveryTag = deliveryTag
        self.generation = generation
        self.redelivered = redelivered
        self.headers = headers
        self.priority = priority
        self.jobClass = jobClass
    }
}
