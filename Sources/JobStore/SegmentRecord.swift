// docs/ARCHITECTURE.md §6: one row of `segments`, a piece of a recording cut on the clock.
import Foundation
import GRDB

/// One segment of a segmented recording as stored in `segments`.
public struct SegmentRecord: Codable, Equatable, Sendable, TimestampedRecord {
    public var jobID: String
    /// The output's position in the spec.
    public var index: Int
    /// The segment's path as the job named it (its pattern filled in).
    public var path: String
    /// The wall time of its first packet (UTC).
    public var startAt: Date
    /// Media seconds; nil while it is open.
    public var durationSeconds: Double?
    public var bytes: Int64?
    /// When it was closed (complete and renamed into place, or salvaged by a take-over); nil while it is written.
    public var closedAt: Date?
    /// When `retain` removed its file; nil while it is on disk.
    public var removedAt: Date?

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case path, bytes
        case jobID = "job_id"
        case index = "idx"
        case startAt = "start_at"
        case durationSeconds = "duration_s"
        case closedAt = "closed_at"
        case removedAt = "removed_at"
    }
}

extension EventKind {
    /// A segment of a recording closed (complete, synced, in place) or was salvaged after a kill.
    public static let segmentClosed: EventKind = "output.segment_closed"
}

extension JobStore {
    /// Records a segment being written (a `.part` until `closeSegment`); an existing row of that path is replaced.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - index: the output's position in the spec.
    ///   - path: the segment's path.
    ///   - start: when it started.
    public func openSegment(jobID: String, index: Int, path: String, start: Date) throws(JobStoreError) {
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO segments (job_id, idx, path, start_at) VALUES (?, ?, ?, ?)",
                arguments: [jobID, index, path, Timestamp.format(start)])
        }
    }

    /// Records a closed segment and its `output.segment_closed` event in one transaction.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - index: the output's position in the spec.
    ///   - path: the segment's path.
    ///   - start: when it started.
    ///   - duration: media seconds it holds.
    ///   - bytes: its size.
    ///   - message: the event's sentence.
    ///   - data: the event's details, stored as JSON.
    /// - Returns: the job and the event, to publish.
    public func closeSegment(jobID: String, index: Int, path: String, start: Date, duration: Double, bytes: Int64,
                             message: String, data: (any Encodable)? = nil) throws(JobStoreError) -> CommittedTransition {
        let json = try data.map { value throws(JobStoreError) in try Self.encodeJSON(value) }
        let at = timestamp()
        return try write { db in
            try db.execute(
                sql: """
                    INSERT INTO segments (job_id, idx, path, start_at, duration_s, bytes, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (job_id, path) DO UPDATE SET idx = excluded.idx, start_at = excluded.start_at,
                        duration_s = excluded.duration_s, bytes = excluded.bytes, closed_at = excluded.closed_at
                    """,
                arguments: [jobID, index, path, Timestamp.format(start), duration, bytes, at])
            let job = try Self.requireJob(db, id: jobID)
            let event = try Self.insertEvent(db, job: job, kind: .segmentClosed, state: nil, at: at, message: message, data: json)
            return CommittedTransition(job: job, event: event)
        }
    }

    /// Records that `retain` removed a segment's file.
    public func removeSegment(jobID: String, path: String) throws(JobStoreError) {
        let at = timestamp()
        try write { db in
            try db.execute(sql: "UPDATE segments SET removed_at = ? WHERE job_id = ? AND path = ?", arguments: [at, jobID, path])
        }
    }

    /// Forgets a segment whose `.part` a take-over found nothing playable in (or no part at all).
    public func forgetSegment(jobID: String, path: String) throws(JobStoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM segments WHERE job_id = ? AND path = ? AND closed_at IS NULL", arguments: [jobID, path])
        }
    }

    /// A job's segments, by output and start (empty for an unknown job).
    public func segments(jobID: String) throws(JobStoreError) -> [SegmentRecord] {
        try read {
            try SegmentRecord.fetchAll(
                $0, sql: "SELECT * FROM segments WHERE job_id = ? ORDER BY idx, start_at, path", arguments: [jobID])
        }
    }
}
