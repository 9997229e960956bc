import NIOCore
import Synchronization

/// One value per event loop of a group (its housekeeping, its read pacer), made on first use.
final class PerLoop<Value: AnyObject & Sendable>: Sendable {
    private let values = Mutex<[ObjectIdentifier: Value]>([:])
    private let make: @Sendable (any EventLoop) -> Value

    init(_ make: @escaping @Sendable (any EventLoop) -> Value) {
        self.make = make
    }

    /// The value of `loop`.
    func on(_ loop: any EventLoop) -> Value {
        values.withLock { values in
            if let existing = values[ObjectIdentifier(loop)] { return existing }
            let made = make(loop)
            values[ObjectIdentifier(loop)] = made
            return made
        }
    }
}
