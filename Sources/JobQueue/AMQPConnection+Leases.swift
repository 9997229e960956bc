// docs/ARCHITECTURE.md §5 (leases): the AMQP methods behind a job's lease, each on the lease's own channel, so that a
// refusal (the broker closes the channel) costs that one lease attempt and never the connection.
import CRabbitMQ

extension AMQPConnection {
    /// channel.open for a lease channel.
    func openLeaseChannel(_ channel: amqp_channel_t) throws(AMQPError) {
        amqp_channel_open(state, channel)
        try leaseReply(channel, "amqp_channel_open(\(channel))")
    }

    /// Declares a job's lease queue: durable (its claim survives a broker restart), dead-lettering expired
    /// claims to `sluice.jobs` (that is the take-over), and deleted after an hour without any use.
    func declareLeaseQueue(_ name: String, on channel: amqp_channel_t) throws(AMQPError) {
        withAMQPTable(JobLease.queueArguments) { table in
            withAMQPBytes(name, "") { name, _ in
                // passive 0, durable 1, exclusive 0, auto_delete 0
                _ = amqp_queue_declare(state, channel, name, 0, 1, 0, 0, table)
            }
        }
        try leaseReply(channel, "amqp_queue_declare(lease)")
    }

    /// basic.consume with `exclusive`: the broker refuses it (403, channel closed) while any other consumer,
    /// on any connection, holds the queue. That refusal is the mutual exclusion between workers.
    func consumeExclusively(_ queue: String, on channel: amqp_channel_t) throws(AMQPError) -> String {
        let ok = withAMQPBytes(queue, "") { queue, _ in
            // consumer_tag empty (broker assigns), no_local 0, no_ack 0, exclusive 1
            amqp_basic_consume(state, channel, queue, amqp_empty_bytes, 0, 0, 1, amqp_empty_table)
        }
        try leaseReply(channel, "amqp_basic_consume(lease, exclusive)")
        guard let tag = ok.map({ String(amqpBytes: $0.pointee.consumer_tag) }), !tag.isEmpty else {
            throw .library(function: "amqp_basic_consume(lease)", status: AMQP_STATUS_BAD_AMQP_DATA.rawValue,
                           message: "the broker assigned no consumer tag")
        }
        return tag
    }

    /// queue.delete of a lease queue: its claims go with it (deleting never dead-letters), so nothing takes over.
    /// With `ifUnused` the broker refuses (406) while anyone consumes it.
    func deleteLeaseQueue(_ name: String, on channel: amqp_channel_t, ifUnused: Bool = false) throws(AMQPError) {
        withAMQPBytes(name, "") { name, _ in
            // if_empty 0: a claim in it is deleted with it
            _ = amqp_queue_delete(state, channel, name, ifUnused ? 1 : 0, 0)
        }
        try leaseReply(channel, "amqp_queue_delete(lease)")
    }

    /// queue.declare with `passive`: the number of consumers of a lease queue (1 while a worker holds the lease),
    /// creating nothing. A queue that does not exist is refused (404, channel closed).
    func leaseConsumers(_ name: String, on channel: amqp_channel_t) throws(AMQPError) -> UInt32 {
        try leaseQueueCounts(name, on: channel).consumers
    }

    /// queue.declare with `passive`: a lease queue's consumers and the claims waiting in it (ready, not held by a
    /// consumer), creating nothing. A queue that does not exist is refused (404, channel closed).
    func leaseQueueCounts(_ name: String, on channel: amqp_channel_t) throws(AMQPError) -> (consumers: UInt32, messages: UInt32) {
        let ok = withAMQPBytes(name, "") { name, _ in
            // passive 1, durable 0, exclusive 0, auto_delete 0 (a passive declare compares none of them)
            amqp_queue_declare(state, channel, name, 1, 0, 0, 0, amqp_empty_table)
        }
        try leaseReply(channel, "amqp_queue_declare(lease, passive)")
        return (ok?.pointee.consumer_count ?? 0, ok?.pointee.message_count ?? 0)
    }

    /// channel.close of a lease channel we are done with.
    func closeLeaseChannel(_ channel: amqp_channel_t) throws(AMQPError) {
        let reply = amqp_channel_close(state, channel, Int32(AMQP_REPLY_SUCCESS))
        try leaseReply(channel, "amqp_channel_close(\(channel))", reply)
    }

    /// basic.ack of a claim on its lease channel.
    func ack(deliveryTag: UInt64, on channel: amqp_channel_t) throws(AMQPError) {
        try AMQPCheck.status(amqp_basic_ack(state, channel, deliveryTag, 0), "amqp_basic_ack(lease)")
    }

    /// Checks an RPC on a lease channel. A channel.close from the broker is answered with close-ok here (the
    /// channel number is then free again) and thrown as `.channelClosed`; a connection.close breaks the connection.
    func leaseReply(_ channel: amqp_channel_t, _ function: String,
                            _ given: amqp_rpc_reply_t? = nil) throws(AMQPError) {
        let reply = given ?? amqp_get_rpc_reply(state)
        if reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION, reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD {
            var closeOk = amqp_channel_close_ok_t()
            _ = amqp_send_method(state, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &closeOk)
            throw AMQPCheck.serverClose(method: reply.reply, function: function)
        }
        if reply.reply_type != AMQP_RESPONSE_NORMAL { markBroken() }
        try AMQPCheck.reply(reply, function)
    }
}
