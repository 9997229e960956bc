// docs/ARCHITECTURE.md §5: every message a worker publishes (jobs, copies into class queues, retries, dead letters,
// hand-overs, events, control), each confirmed by the broker except events; the owner thread sends them from its
// mailbox.
import CRabbitMQ
import Foundation

extension BrokerConnection {
    /// Moves a delivery to `sluice.jobs.dead` with `x-sluice-reason`: republished there (confirmed), then acked.
    /// A plain reject through the DLX could not carry the reason, so it is only the fallback if the broker
    /// refuses the republish.
    /// - Parameters:
    ///   - delivery: a delivery from `deliveries`.
    ///   - reason: why the job is dead (no secrets; cut to `Topology.maxReasonBytes`).
    public func deadLetter(_ delivery: Delivery, reason: String) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        headers[Topology.reasonHeader] = String(decoding: reason.utf8.prefix(Topology.maxReasonBytes), as: UTF8.self)
        let message = OutgoingMessage(exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue,
                                      body: delivery.body, priority: delivery.priority, headers: headers)
        do throws(AMQPError) {
            try await publish(message)
        } catch .publishRefused {
            mailbox.post(.reject(delivery, requeue: false))
            return
        }
        ack(delivery)
    }

    /// Sends a delivery to `sluice.jobs.retry` with a per-message TTL, after which the broker returns it to
    /// `sluice.jobs`; acks the original once the broker confirmed the copy.
    /// - Parameters:
    ///   - delivery: a delivery from `deliveries`.
    ///   - delay: the backoff before the job is delivered again (rounded to milliseconds, at least 1).
    ///   - attempt: the attempt number the retried job will carry in `x-sluice-attempt`.
    public func retry(_ delivery: Delivery, after delay: Duration, attempt: Int) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        headers[Topology.attemptHeader] = String(attempt)
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let message = OutgoingMessage(exchange: "", routingKey: Topology.retryQueue, body: delivery.body,
                                      priority: delivery.priority, expirationMilliseconds: milliseconds,
                                      headers: headers)
        try await publish(message)
        ack(delivery)
    }

    /// Publishes a job to `sluice.jobs` (persistent) and returns once the broker confirmed it.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: 0…9 (higher first); values above 9 are treated as 9, as the queue itself would.
    public func publishJob(_ body: [UInt8], priority: UInt8? = nil) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey,
                                          body: body, priority: priority.map { min($0, Topology.maxPriority) }))
    }

    /// Publishes an event to `sluice.events` without waiting (a refused or lost event is logged, not thrown).
    /// - Parameters:
    ///   - routingKey: `job.<state>`, e.g. `job.succeeded`.
    ///   - body: the event JSON (secrets already redacted).
    public func publishEvent(routingKey: String, body: [UInt8]) {
        mailbox.post(.publish(OutgoingMessage(exchange: Topology.eventsExchange, routingKey: routingKey, body: body),
                              nil))
    }

    /// Publishes a control message to every worker and returns once the broker confirmed it.
    /// - Parameter message: the control message.
    public func publishControl(_ message: ControlMessage) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.controlExchange, routingKey: "", body: message.json))
    }

    /// Copies a job from the intake (`sluice.jobs`) into its class queue, same body, priority and headers (plus
    /// `x-sluice-redelivered` when the delivery was a redelivery), confirmed, then acks the delivery.
    /// - Parameters:
    ///   - delivery: a delivery from `sluice.jobs`.
    ///   - jobClass: the class queue it goes to.
    public func triage(_ delivery: Delivery, to jobClass: JobClass) async throws(AMQPError) {
        try checkCurrent(delivery)
        var headers = delivery.headers
        if delivery.redelivered { headers[Topology.redeliveredHeader] = "1" }
        try await publish(OutgoingMessage(exchange: "", routingKey: jobClass.queueName, body: delivery.body,
                                          priority: delivery.priority, headers: headers))
        ack(delivery)
    }

    /// Publishes a job back to `sluice.jobs` (persistent, confirmed): a hand-over on shutdown, carrying
    /// `headers` (who handed it over, when its output stopped).
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: message headers.
    public func handOver(body: [UInt8], priority: UInt8?, headers: [String: String]) async throws(AMQPError) {
        try await publish(OutgoingMessage(exchange: Topology.jobsExchange, routingKey: Topology.jobsRoutingKey,
                                          body: body, priority: priority, headers: headers))
    }

    /// Publishes a job to `sluice.jobs.dead` with `x-sluice-reason` (confirmed), without a delivery to settle.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: headers to keep.
    ///   - reason: why it is dead (cut to `Topology.maxReasonBytes`).
    public func deadLetter(body: [UInt8], priority: UInt8?, headers: [String: String], reason: String) async throws(AMQPError) {
        var headers = headers
        headers[Topology.reasonHeader] = String(decoding: reason.utf8.prefix(Topology.maxReasonBytes), as: UTF8.self)
        try await publish(OutgoingMessage(exchange: Topology.deadLetterExchange, routingKey: Topology.deadQueue,
                                          body: body, priority: priority, headers: headers))
    }

    /// Publishes a job to `sluice.jobs.retry` with a per-message TTL (confirmed), without a delivery to settle.
    /// - Parameters:
    ///   - body: the job JSON.
    ///   - priority: its priority.
    ///   - headers: headers to keep.
    ///   - delay: the wait before `sluice.jobs` gets it back (at least 1 ms).
    public func retry(body: [UInt8], priority: UInt8?, headers: [String: String], after delay: Duration) async throws(AMQPError) {
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        try await publish(OutgoingMessage(exchange: "", routingKey: Topology.retryQueue, body: body, priority: priority,
                                          expirationMilliseconds: milliseconds, headers: headers))
    }
}
