// docs/ARCHITECTURE.md §5: what a worker has room for, class by class, decided without I/O so it is tested alone.
// The worker applies its answers: starts a job, returns a delivery to its queue, pauses or resumes a consumer.
import JobDocument
import JobQueue

/// The worker's capacity per class and what is in use. `live` and `batch` count jobs (a slot each); `encode`
/// counts units of `EncodeUnit` (720p30-equivalents, a job's `encodeCost`), so a worker takes the encode work its
/// cores carry, whatever the number of jobs that makes.
///
/// A class's consumer is paused while the class is full, while the worker drains, and, for a class that counts
/// units, after a delivery that did not fit in the room left (`waiting`): the delivery goes back to its queue for
/// another worker, and this worker looks again only when units free up or `relook` is called (the worker calls it
/// after `WorkerConfiguration.admissionRelook`), never at once: RabbitMQ hands a requeued message straight back to
/// a consumer with room in its prefetch, so looking again at once would spin. Not thread-safe: the worker holds its
/// lock around every call.
public struct SlotBook: Sendable, Equatable {
    /// The answer to a job that asks to start.
    public enum Admission: Equatable, Sendable {
        /// Start it: it holds `units` of its class until `release`.
        case start(units: Int)
        /// No room: return the delivery to its queue (its consumer is paused, see `paused`).
        case wait(reason: String)
    }

    /// Each class's capacity: slots, or units for `encode`. A class at 0 is not consumed.
    public let capacity: [JobClass: Int]
    /// Slots or units in use, by class.
    public private(set) var used: [JobClass: Int] = [:]
    /// Classes whose consumer is paused after a delivery did not fit in the room left, with the number of that
    /// pause (`relook` ends only the pause it was scheduled for).
    public private(set) var waiting: [JobClass: Int] = [:]
    /// Set once the worker drains: nothing starts any more, every consumer stays paused.
    public private(set) var draining = false
    private var pauses = 0

    /// - Parameter capacity: slots by class (units for `encode`); a missing class has none.
    public init(capacity: [JobClass: Int]) {
        self.capacity = capacity.mapValues { max(0, $0) }
    }

    /// The capacity of one class.
    public func capacity(_ jobClass: JobClass) -> Int { capacity[jobClass] ?? 0 }

    /// What is in use in one class.
    public func used(_ jobClass: JobClass) -> Int { used[jobClass] ?? 0 }

    /// What a job of `cost` holds in its class: a slot for `live` and `batch`; its cost for `encode` (at least 1,
    /// and at most the whole budget: a job bigger than the budget runs alone on an otherwise idle budget rather than
    /// nowhere, since another worker's budget may be no bigger).
    /// - Parameters:
    ///   - jobClass: the job's class.
    ///   - cost: its `encodeCost`.
    public func units(_ jobClass: JobClass, cost: Int) -> Int {
        switch jobClass {
        case .live, .batch: 1
        case .encode: min(max(cost, 1), max(capacity(.encode), 1))
        }
    }

    /// Whether a job would start now, without taking anything (the worker asks before it records the job).
    /// - Parameters:
    ///   - jobClass: the job's class.
    ///   - cost: its `encodeCost`.
    public func admission(_ jobClass: JobClass, cost: Int) -> Admission {
        let capacity = capacity(jobClass)
        let used = used(jobClass)
        let units = units(jobClass, cost: cost)
        if draining { return .wait(reason: "the worker is shutting down") }
        if capacity == 0 { return .wait(reason: "this worker takes no \(jobClass.rawValue) jobs") }
        if waiting[jobClass] != nil { return .wait(reason: "waiting for \(jobClass.rawValue) room to free up") }
        guard used + units <= capacity else {
            return .wait(reason: jobClass == .encode
                ? "costs \(units) encode units and \(capacity - used) of \(capacity) are free"
                : "all \(capacity) \(jobClass.rawValue) slots are busy")
        }
        return .start(units: units)
    }

    /// A job asks to start: takes its units when it fits; otherwise the class waits for room (see `waiting`).
    /// - Parameters:
    ///   - jobClass: the job's class.
    ///   - cost: its `encodeCost`.
    public mutating func admit(_ jobClass: JobClass, cost: Int) -> Admission {
        let answer = admission(jobClass, cost: cost)
        switch answer {
        case let .start(units):
            used[jobClass, default: 0] += units
        case .wait:
            if !draining, capacity(jobClass) > used(jobClass), waiting[jobClass] == nil {
                pauses += 1
                waiting[jobClass] = pauses
            }
        }
        return answer
    }

    /// A job that started ended: its units are free, and a class that waited for room looks at its queue again.
    /// - Parameters:
    ///   - jobClass: the job's class.
    ///   - cost: its `encodeCost` (the units are worked out again: the capacity never changes).
    public mutating func release(_ jobClass: JobClass, cost: Int) {
        used[jobClass] = max(0, used(jobClass) - units(jobClass, cost: cost))
        waiting[jobClass] = nil
    }

    /// The time to wait for room is up: look at the queue again (other workers may have taken the job that did not
    /// fit, and a smaller one may be next). Ends only the pause numbered `pause`, not a later one.
    /// - Parameters:
    ///   - jobClass: the class.
    ///   - pause: the number `waiting` held when the pause began.
    public mutating func relook(_ jobClass: JobClass, pause: Int) {
        if waiting[jobClass] == pause { waiting[jobClass] = nil }
    }

    /// The worker drains: nothing starts any more.
    public mutating func drain() {
        draining = true
    }

    /// Whether a class's consumer must be paused now: full, waiting for room, or draining. A class without capacity
    /// is not consumed at all, so it is never paused.
    /// - Parameter jobClass: the class.
    public func paused(_ jobClass: JobClass) -> Bool {
        let capacity = capacity(jobClass)
        guard capacity > 0 else { return false }
        return draining || used(jobClass) >= capacity || waiting[jobClass] != nil
    }
}
