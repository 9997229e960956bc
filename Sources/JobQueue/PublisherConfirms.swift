// RabbitMQ publisher confirms: https://www.rabbitmq.com/confirms.html#publisher-confirms
// After confirm.select, the n-th publish on the channel has sequence number n; basic.ack / basic.nack carry
// one sequence number, or with `multiple` every outstanding one up to it.

/// Bookkeeping of unconfirmed publishes on one channel: which caller waits for which sequence number.
struct PublisherConfirms<Waiter> {
    private var nextSequence: UInt64 = 1
    /// Outstanding publishes in sequence order (the broker confirms in any order, but `multiple` is a prefix).
    private var outstanding: [(sequence: UInt64, waiter: Waiter)] = []

    /// Number of publishes not yet confirmed.
    var count: Int { outstanding.count }

    /// Records a publish just sent and returns its sequence number.
    mutating func published(_ waiter: Waiter) -> UInt64 {
        let sequence = nextSequence
        nextSequence += 1
        outstanding.append((sequence, waiter))
        return sequence
    }

    /// The waiters a basic.ack / basic.nack settles (empty for an unknown tag, which is then ignored).
    mutating func settle(deliveryTag: UInt64, multiple: Bool) -> [Waiter] {
        if multiple {
            let settled = outstanding.prefix { $0.sequence <= deliveryTag }.map(\.waiter)
            outstanding.removeFirst(settled.count)
            return settled
        }
        guard let index = outstanding.firstIndex(where: { $0.sequence == deliveryTag }) else { return [] }
        return [outstanding.remove(at: index).waiter]
    }

    /// A new channel starts numbering at 1 again; returns the waiters whose confirm will never come.
    mutating func reset() -> [Waiter] {
        let lost = outstanding.map(\.waiter)
        outstanding.removeAll()
        nextSequence = 1
        return lost
    }
}
