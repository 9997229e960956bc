import NIOCore

/// One value per event loop of a group (its housekeeping, its read pacer, its chunk scratch), made for every loop of
/// the group at once: the table never changes afterwards, so any thread (a session made on the codec job's thread,
/// sessions beginning on two loops at the same moment) reads it without a lock. Each value is its loop's and is
/// reached only there: the box checks that (so the values need not be `Sendable`, and are not).
final class PerLoop<Value: AnyObject>: Sendable {
    private let values: [ObjectIdentifier: NIOLoopBoundBox<Value>]

    init(_ group: any EventLoopGroup, _ make: (any EventLoop) -> sending Value) {
        var values: [ObjectIdentifier: NIOLoopBoundBox<Value>] = [:]
        for loop in group.makeIterator() {
            values[ObjectIdentifier(loop)] = NIOLoopBoundBox.makeBoxSendingValue(make(loop), eventLoop: loop)
        }
        self.values = values
    }

    /// The value of `loop`, a loop of the group this was made for; read `value` on that loop.
    func on(_ loop: any EventLoop) -> NIOLoopBoundBox<Value> {
        guard let value = values[ObjectIdentifier(loop)] else {
            preconditionFailure("an event loop of another group: the relay engine hands out only its own loops")
        }
        return value
    }
}
