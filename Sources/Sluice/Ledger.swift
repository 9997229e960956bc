// docs/ARCHITECTURE.md §5 and §6: `sluice ledger`, one database of every worker's jobs, fed by `sluice.events`.
import Foundation
import JobQueue
import JobStore
import JobDocument
import NIOConcurrencyHelpers
import NamedThreads

/// Why an event on `sluice.ledger` could not be applied (it is acked and dropped: it will never parse).
public struct LedgerEventError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key path of the bad field, `$` for the document.
    public var path: String
    /// What is wrong with it.
    public var reason: String

    public var description: String { "event \(path): \(reason)" }
}

extension LedgerEntry {
    /// Parses one `sluice.events` body (a `JobEvent`). An event without `event_id` (a worker older than the
    /// ledger) gets one made from its content, which a redelivery repeats.
    /// - Parameter body: the message body.
    public init(parsingEvent body: [UInt8]) throws(LedgerEventError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(Data(body))
        } catch {
            throw LedgerEventError(path: "$", reason: "not JSON")
        }
        guard case let .object(fields) = document else { throw LedgerEventError(path: "$", reason: "not an object") }
        let kind = try Self.string(fields, "event")
        let jobID = try Self.string(fields, "id")
        let stateText = try Self.string(fields, "state")
        guard let state = JobState(rawValue: stateText) else {
            throw LedgerEventError(path: "state", reason: "unknown state '\(stateText)'")
        }
        let attempt = try Self.count(fields, "attempt")
        let atText = try Self.string(fields, "at")
        guard let at = JobsFormatting.parseTime(atText) else {
            throw LedgerEventError(path: "at", reason: "not an ISO-8601 time")
        }
        let workerID = try Self.optionalString(fields, "worker")
        let eventID = try Self.optionalString(fields, "event_id")
            ?? "legacy/\(workerID ?? "-")/\(jobID)/\(kind)/\(attempt)/\(atText)"
        var outputs: [LedgerOutput] = []
        if let list = fields["outputs"], list != .null {
            guard case let .array(items) = list else { throw LedgerEventError(path: "outputs", reason: "not an array") }
            for (position, item) in items.enumerated() {
                let path = "outputs[\(position)]"
                guard case let .object(output) = item else { throw LedgerEventError(path: path, reason: "not an object") }
                let stateText = try Self.string(output, "state", in: path)
                guard let outputState = OutputState(rawValue: stateText) else {
                    throw LedgerEventError(path: "\(path).state", reason: "unknown output state '\(stateText)'")
                }
                let index = try Self.count(output, "index", in: path)
                guard !outputs.contains(where: { $0.index == index }) else {
                    throw LedgerEventError(path: "\(path).index", reason: "index \(index) appears twice")
                }
                outputs.append(LedgerOutput(
                    index: index, url: try Self.string(output, "url", in: path), state: outputState,
                    bytes: Int64(try Self.count(output, "bytes", in: path)),
                    frames: try Self.count(output, "frames", in: path),
                    reconnects: try Self.optionalCount(output, "reconnects", in: path) ?? 0))
            }
        }
        var progress: LedgerProgress?
        if kind == "job.progress" {
            progress = LedgerProgress(
                mediaTimeSeconds: try Self.number(fields, "media_time_s"), frames: try Self.count(fields, "frames"),
                bytesIn: Int64(try Self.count(fields, "bytes_in")), bytesOut: Int64(try Self.count(fields, "bytes_out")),
                speed: try Self.number(fields, "speed"))
        }
        self.init(eventID: eventID, kind: kind, jobID: jobID, state: state, attempt: attempt, workerID: workerID, at: at,
                  input: try Self.optionalString(fields, "input"), error: try Self.optionalString(fields, "error"),
                  message: try Self.optionalString(fields, "message"), outputs: outputs, progress: progress)
    }

    private static func key(_ name: String, in parent: String?) -> String {
        parent.map { "\($0).\(name)" } ?? name
    }

    private static func optionalString(_ fields: [String: JSONValue], _ name: String, in parent: String? = nil)
        throws(LedgerEventError) -> String?
    {
        switch fields[name] {
        case nil, .null?: return nil
        case let .string(text)?: return text
        case let other?: throw LedgerEventError(path: key(name, in: parent), reason: "\(other.typeName), not a string")
        }
    }

    private static func string(_ fields: [String: JSONValue], _ name: String, in parent: String? = nil)
        throws(LedgerEventError) -> String
    {
        guard let text = try optionalString(fields, name, in: parent), !text.isEmpty else {
            throw LedgerEventError(path: key(name, in: parent), reason: "missing")
        }
        return text
    }

    private static func number(_ fields: [String: JSONValue], _ name: String, in parent: String? = nil)
        throws(LedgerEventError) -> Double
    {
        guard case let .number(value)? = fields[name], value.isFinite else {
            throw LedgerEventError(path: key(name, in: parent), reason: "missing or not a number")
        }
        return value
    }

    /// The largest count accepted: anything bigger is not a real byte or frame count.
    private static let maxCount = Double(Int64(1) << 53)

    private static func optionalCount(_ fields: [String: JSONValue], _ name: String, in parent: String? = nil)
        throws(LedgerEventError) -> Int?
    {
        guard let value = fields[name], value != .null else { return nil }
        guard case let .number(number) = value, number >= 0, number <= maxCount, number.rounded() == number else {
            throw LedgerEventError(path: key(name, in: parent), reason: "not a whole number in 0…2^53")
        }
        return Int(number)
    }

    private static func count(_ fields: [String: JSONValue], _ name: String, in parent: String? = nil)
        throws(LedgerEventError) -> Int
    {
        guard let value = try optionalCount(fields, name, in: parent) else {
            throw LedgerEventError(path: key(name, in: parent), reason: "missing")
        }
        return value
    }
}

/// Consumes `sluice.ledger` into one job database: each event applied once, then acked. Its stop is bounded like a
/// worker's (`stopOverrun`), whatever the broker does meanwhile.
public final class Ledger: Sendable {
    /// How long a stop waits for the event in hand to be applied and its ack handed to the broker connection: an
    /// SQLite write, or the pause after a failed one. Past it the consuming ends under it (the event is redelivered).
    public static let drainTimeout = Duration.seconds(2)
    /// How long closing the broker may take (it flushes the last acks): a connect, a login or a call to a broker that
    /// stopped answering would otherwise wait out its own timeouts.
    public static let brokerCloseTimeout = Duration.seconds(3)
    /// The ledger returns from `run()` at most this long after `shutdown()`, whatever the broker does.
    public static var stopOverrun: Duration { drainTimeout + brokerCloseTimeout }

    private let broker: BrokerConnection
    private let store: JobStore
    private let log: WorkerLog
    /// The consuming task, and whether a stop was asked for (either may come first).
    private let stop = NIOLockedValueBox<(consuming: Task<Void, Never>?, requested: Bool)>((nil, false))

    /// - Parameters:
    ///   - broker: a connection whose `consumedQueue` is `.ledger`.
    ///   - store: the ledger database.
    ///   - log: where applied and refused events are reported.
    public init(broker: BrokerConnection, store: JobStore, log: WorkerLog) {
        self.broker = broker
        self.store = store
        self.log = log
    }

    /// Applies events until `shutdown()`, then closes the connection: returns within `stopOverrun` of the shutdown.
    public func run() async {
        broker.start()
        log("ledger: consuming \(Topology.ledgerQueue) (bound to \(Topology.eventsExchange) \(Topology.ledgerBindingKey)) into \(store.path)")
        let consuming = Task { [self] in
            for await delivery in broker.deliveries {
                await handle(delivery)
            }
        }
        let requested = stop.withLockedValue { state in
            state.consuming = consuming
            return state.requested
        }
        if requested { endConsuming(consuming) }
        await consuming.value
        // close() blocks until the owner thread has flushed the mailbox (the last acks), or until the bound.
        let closed = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            startNamedThread("sluice-ledger") { [broker] in
                done.resume(returning: broker.close(within: Ledger.brokerCloseTimeout))
            }
        }
        if !closed {
            log("ledger: the broker connection did not close within \(Ledger.brokerCloseTimeout); stopping without it: the broker redelivers what was not acked", level: .warning)
        }
        log("ledger: stopped")
    }

    /// Stops consuming; the delivery in hand is applied and acked first, within `drainTimeout`.
    public func shutdown() {
        log("ledger: shutdown requested")
        broker.stopConsuming()
        let consuming = stop.withLockedValue { state in
            defer { state.requested = true }
            return state.requested ? nil : state.consuming
        }
        if let consuming { endConsuming(consuming) }
    }

    /// Ends the consuming `drainTimeout` from now if the broker has not finished the stream by then: the owner thread
    /// that finishes it may be held by a call to a broker that stopped answering.
    private func endConsuming(_ consuming: Task<Void, Never>) {
        Task {
            try? await Task.sleep(for: Ledger.drainTimeout)
            consuming.cancel()
        }
    }

    private func handle(_ delivery: Delivery) async {
        let entry: LedgerEntry
        do {
            entry = try LedgerEntry(parsingEvent: delivery.body)
        } catch {
            log("ledger: dropped an event that cannot be applied: \(error)", level: .warning)
            broker.ack(delivery)
            return
        }
        do {
            switch try store.apply(entry) {
            case .applied:
                log("ledger: \(entry.kind) from \(entry.workerID ?? "unknown worker")", job: entry.jobID,
                    state: entry.state.rawValue, attempt: entry.attempt)
            case .duplicate:
                log("ledger: \(entry.eventID) was applied before; skipped", job: entry.jobID)
            }
            broker.ack(delivery)
        } catch {
            // The database is the problem, not the event: keep it on the queue and slow down.
            log("ledger: cannot apply \(entry.eventID): \(error); returning it to the queue in 1 s", job: entry.jobID,
                level: .error)
            try? await Task.sleep(for: .seconds(1))
            broker.requeue(delivery)
        }
    }
}
