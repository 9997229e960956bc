// Outputs on the fly (docs/ARCHITECTURE.md §5, §8): the requester's side of an output edit (`sluice jobs outputs
// add|remove`): is the job's lease held by any worker, then the request on `sluice.control` and the wait for the
// holder's answer on a queue of our own. One short-lived connection, used from the calling thread only (no owner
// thread needed).
import CRabbitMQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends output edits to whichever worker holds a job, and waits for its answer.
/// Not thread-safe (like librabbitmq): use it from one thread, then let it go (deinit closes the connection).
public final class ControlRequester {
    private let connection: AMQPConnection
    /// This requester's exclusive, server-named queue: the worker answers there through the default exchange.
    public let replyQueue: String
    private let consumerTag: String

    /// Connects, declares `sluice.control` (so a request before any worker started is not refused) and the reply queue.
    /// - Parameter configuration: the broker to reach.
    public init(configuration: BrokerConfiguration) throws(AMQPError) {
        connection = try AMQPConnection(configuration: configuration)
        try connection.declare(.exchange(name: Topology.controlExchange, type: "fanout"))
        replyQueue = try connection.declareReplyQueue()
        consumerTag = try connection.consume(queue: replyQueue, autoAck: true)
    }

    /// Whether any worker holds the job's lease (a consumer on `sluice.lease.<id>`, `sluice.encode-lease.<id>` or
    /// `sluice.batch-lease.<id>`), by a passive declare on a channel of its own (a missing queue closes only that).
    /// - Parameter jobID: the job id.
    /// - Returns: the class whose lease is held, or nil when no worker holds the job.
    public func leaseHolderClass(jobID: String) throws(AMQPError) -> JobClass? {
        for jobClass in [JobClass.live, .encode, .batch] {
            if try consumers(ofLease: JobLease.queueName(jobID: jobID, jobClass: jobClass)) > 0 { return jobClass }
        }
        return nil
    }

    private func consumers(ofLease queue: String) throws(AMQPError) -> Int {
        let channel = AMQPConnection.firstLeaseChannel
        try connection.openLeaseChannel(channel)
        do throws(AMQPError) {
            let consumers = try connection.passiveConsumerCount(queue, on: channel)
            try connection.closeLeaseChannel(channel)
            return consumers
        } catch .channelClosed(_, 404, _) {
            // No such lease queue: the broker closed the channel (answered with close-ok), nobody holds the job.
            return 0
        }
    }

    /// Publishes `request` on `sluice.control` with this requester's reply queue and a fresh correlation id, then
    /// waits up to `timeout` for the answer with that id.
    /// - Parameters:
    ///   - request: the edit; its `replyTo` and `correlationID` are replaced.
    ///   - timeout: how long to wait for the holder's answer.
    /// - Returns: the answer, or nil when none came in time.
    public func send(_ request: OutputEditRequest, timeout: Duration) throws(AMQPError) -> OutputEditReply? {
        var request = request
        request.replyTo = replyQueue
        let correlationID = UUID().uuidString.lowercased()
        request.correlationID = correlationID
        try connection.publish(OutgoingMessage(exchange: Topology.controlExchange, routingKey: "", body: request.json))
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !connection.hasBufferedInput {
                let left = deadline - ContinuousClock.now
                let (seconds, attoseconds) = left.components
                let milliseconds = max(1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
                var descriptor = pollfd(fd: connection.socketDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, milliseconds)
            }
            while let event = try connection.nextEvent() {
                guard case let .delivery(_, tag, _, _, body, _, _) = event, tag == consumerTag,
                      let reply = OutputEditReply(json: body), reply.correlationID == correlationID else { continue }
                return reply
            }
        }
        return nil
    }
}

extension AMQPConnection {
    /// Declares an exclusive, auto-delete, server-named queue bound to nothing: a requester's reply queue.
    func declareReplyQueue() throws(AMQPError) -> String {
        try declareServerNamedQueue("reply")
    }

    /// Declares an exclusive, auto-delete queue the broker names, on the consume channel; `purpose` names it in errors.
    func declareServerNamedQueue(_ purpose: String) throws(AMQPError) -> String {
        let declared = amqp_queue_declare(state, Self.consumeChannel, amqp_empty_bytes, 0, 0, 1, 1, amqp_empty_table)
        try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_queue_declare(\(purpose))")
        guard let name = declared.map({ String(amqpBytes: $0.pointee.queue) }), !name.isEmpty else {
            throw .library(function: "amqp_queue_declare(\(purpose))", status: AMQP_STATUS_BAD_AMQP_DATA.rawValue,
                           message: "the broker named no queue")
        }
        return name
    }

    /// The consumer count of a queue by a passive declare on `channel` (404, channel closed, when it does not exist).
    func passiveConsumerCount(_ queue: String, on channel: amqp_channel_t) throws(AMQPError) -> Int {
        let ok = withAMQPBytes(queue, "") { queue, _ in
            // passive 1: only look
            amqp_queue_declare(state, channel, queue, 1, 0, 0, 0, amqp_empty_table)
        }
        try leaseReply(channel, "amqp_queue_declare(passive lease)")
        return ok.map { Int($0.pointee.consumer_count) } ?? 0
    }
}
