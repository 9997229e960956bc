// docs/ARCHITECTURE.md §6: one row of `job_events`; every transition and notable fact of a job's life.
import Foundation
import GRDB

/// The kind of an event (`job_events.kind`), such as `job.running` or `job.encoder_fallback`.
public struct EventKind: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible, DatabaseValueConvertible
{
    /// The text stored in the column.
    public var rawValue: String

    /// Wraps a kind's text.
    /// - Parameter rawValue: the dotted kind, `job.` first by convention.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Lets call sites write a kind as a literal.
    /// - Parameter value: the dotted kind.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The kind text.
    public var description: String { rawValue }

    /// The event of entering `state`: `job.<state>`, as on the events exchange.
    /// - Parameter state: the state entered.
    public static func entered(_ state: JobState) -> EventKind {
        EventKind(rawValue: "job.\(state.rawValue)")
    }

    /// The job was recorded for the first time.
    public static let received: EventKind = "job.received"
    /// A job whose id already succeeded was delivered again and not run.
    public static let duplicate: EventKind = "job.duplicate"
    /// A known, unfinished job was delivered again (redelivery after a crash, the retry queue, a re-run).
    public static let redelivered: EventKind = "job.redelivered"
    /// This worker resumed a job another worker was running (it died, lost the broker, or handed it over).
    public static let takeover: EventKind = "job.takeover"
    /// A copy of the job arrived while another worker holds its lease: not run here.
    public static let runningElsewhere: EventKind = "job.running_elsewhere"
    /// An attempt removed the temporary `.part` files an earlier attempt of the job left (a killed worker).
    public static let partsRemoved: EventKind = "job.parts_removed"
    /// The preferred encoder could not open and another one was used.
    public static let encoderFallback: EventKind = "job.encoder_fallback"
}

/// One row of `job_events`.
public struct EventRecord: Codable, Equatable, Sendable, TimestampedRecord {
    /// Increasing id: the order events happened in.
    public var id: Int64
    /// The job the event belongs to.
    public var jobID: String
    /// When it happened.
    public var at: Date
    /// What happened.
    public var kind: EventKind
    /// The state entered, for transition events; nil for others.
    public var state: JobState?
    /// The job's attempt number when it happened (0 before the first attempt).
    public var attempt: Int
    /// The worker the job was on.
    public var workerID: String?
    /// A human sentence (for failures, the error).
    public var message: String?
    /// Structured details as JSON text.
    public var data: String?
    /// The event's id for ever, `<worker>/<UUID>` (`event_id` on the events exchange); nil on rows written
    /// before ids were stored, whose events carried `<worker>/<row id>`.
    public var eventID: String?

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case id, at, kind, state, attempt, message, data
        case jobID = "job_id"
        case workerID = "worker_id"
        case eventID = "event_id"
    }

    /// A new event id: the worker's id (who said it) and a random UUID (unique without coordination, also
    /// across restarts of a worker whose database was reset under the same id).
    /// - Parameter worker: the worker's id; nil for a store used without one.
    public static func newID(worker: String?) -> String {
        "\(worker ?? "sluice")/\(UUID().uuidString.lowercased())"
    }

    /// Decodes `data` as `type`; nil when the event has no data.
    /// - Parameter type: the Decodable type the data was written from.
    public func decodeData<T: Decodable>(as type: T.Type) throws(JobStoreError) -> T? {
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(data.utf8))
        } catch {
            throw .invalidEventData(reason: "\(error)")
        }
    }
}
