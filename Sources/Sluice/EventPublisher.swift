// docs/ARCHITECTURE.md §8: every committed transition becomes a `job.<state>` event on `sluice.events` and a log line.
import Foundation
import JobDocument
import JobQueue
import JobStore
import MediaEngine

/// Publishes `job.<state>` events built from committed records, and logs each one.
final class EventPublisher: Sendable {
    private let broker: BrokerConnection
    private let store: JobStore
    private let log: WorkerLog
    private let metrics: WorkerMetrics?
    private let workerID: String

    init(broker: BrokerConnection, store: JobStore, log: WorkerLog, metrics: WorkerMetrics?, workerID: String) {
        self.broker = broker
        self.store = store
        self.log = log
        self.metrics = metrics
        self.workerID = workerID
    }

    /// Publishes a committed transition under the id its event row was stored with.
    /// An event that enters no state (`output.segment_closed`) goes out under its own kind, with its message and data.
    func transitioned(_ transition: CommittedTransition, message: String? = nil) {
        guard transition.event.state == nil else {
            transitioned(transition.job, event: transition.event, message: message)
            return
        }
        transitioned(transition.job, event: transition.event, kind: transition.event.kind.rawValue,
                     message: message ?? transition.event.message)
    }

    /// Publishes the event of the state `job` is in (or of `kind`), with its outputs read from the store.
    /// - Parameters:
    ///   - job: the job as committed.
    ///   - event: the stored event this publishes, whose id it carries; nil for a fresh id.
    ///   - kind: the routing key, when it is not `job.<state>`.
    ///   - message: a sentence for humans.
    func transitioned(_ job: JobRecord, event: EventRecord? = nil, kind: String? = nil, message: String? = nil) {
        var outputs: [OutputRecord] = []
        do {
            outputs = try store.outputs(jobID: job.id)
        } catch {
            log("cannot read the outputs for the event: \(error)", job: job.id)
        }
        // The id the write stored with the row: the same in this database, on the exchange and in the ledger.
        let data = event?.data.flatMap { try? JSONValue.parse(Data($0.utf8)) }
        let event = JobEvent(job: job, outputs: outputs, kind: kind, message: message, eventID: event?.eventID, data: data)
        broker.publishEvent(routingKey: event.kind, body: event.json)
        // A duplicate's record is the earlier success, not a new transition.
        if kind == nil { metrics?.transitioned(job, outputs: outputs) }
        var line = "\(event.kind) (attempt \(job.attempts))"
        if let message { line += ": \(message)" } else if let error = job.error { line += ": \(error)" }
        log(line, job: job.id, state: job.state.rawValue, attempt: job.attempts)
    }
}
