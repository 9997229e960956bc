/// What the owner thread read from the socket.
enum InboundEvent {
    /// A message from one of our consumers, on `channel`.
    case delivery(channel: UInt16, consumerTag: String, deliveryTag: UInt64, redelivered: Bool, body: [UInt8],
                  headers: [String: String], priority: UInt8?)
    /// The broker closed one lease channel (channels 1 and 2 closing end the connection instead).
    case leaseChannelClosed(channel: UInt16, error: AMQPError)
    /// basic.ack (`acked`) or basic.nack for publishes up to/at `deliveryTag`.
    case confirm(deliveryTag: UInt64, multiple: Bool, acked: Bool)
    /// The broker cancelled a consumer (queue deleted, node failover): consumer_cancel_notify.
    case consumerCancelled(consumerTag: String)
    /// An unroutable mandatory publish came back (Sluice never sets mandatory; read and dropped).
    case returned(replyText: String)
    /// Any other frame (heartbeats are swallowed by librabbitmq).
    case ignored
}
