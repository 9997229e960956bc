// docs/ARCHITECTURE.md §6: the ledger, one database of every worker's jobs built from their events (`sluice ledger`).
import Foundation
import GRDB

extension JobStore {
    /// How many events the ledger has applied.
    public func ledgerEventCount() throws(JobStoreError) -> Int {
        try read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ledger_events") ?? 0 }
    }

    /// Applies one worker event to this (ledger) database in one transaction, once per event id.
    ///
    /// Events of different workers arrive in any order, so the job row follows the newest event by its time
    /// (a late, older event is still kept in `job_events`); the lifecycle is the workers' to enforce, not
    /// the ledger's. `job.progress` updates the progress columns and appends a sample instead of an event.
    /// - Parameter entry: the parsed event.
    /// - Returns: `.applied`, or `.duplicate` when this event id was applied before.
    @discardableResult
    public func apply(_ entry: LedgerEntry) throws(JobStoreError) -> LedgerOutcome {
        let appliedAt = timestamp()
        let at = Timestamp.format(entry.at)
        return try write { db in
            let seen = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM ledger_events WHERE event_id = ?)", arguments: [entry.eventID])
            if seen == true { return .duplicate }
            try db.execute(
                sql: "INSERT INTO ledger_events (event_id, job_id, kind, at, applied_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [entry.eventID, entry.jobID, entry.kind, at, appliedAt])
            let existing = try Self.fetchJob(db, id: entry.jobID)
            if existing == nil {
                try db.execute(
                    sql: """
                        INSERT INTO jobs (id, state, attempts, worker_id, input, error, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [entry.jobID, entry.state, entry.attempt, entry.workerID, entry.input, entry.error, at, at])
            }
            // Fixed-width ISO-8601 UTC text orders like the times it encodes.
            let isNewest = existing.map { at >= Timestamp.format($0.updatedAt) } ?? true
            if let existing, at < Timestamp.format(existing.createdAt) {
                try db.execute(sql: "UPDATE jobs SET created_at = ? WHERE id = ?", arguments: [at, entry.jobID])
            }
            if let progress = entry.progress {
                if isNewest {
                    try db.execute(
                        sql: """
                            UPDATE jobs SET media_time_s = ?, frames = ?, bytes_in = ?, bytes_out = ?, speed = ?
                            WHERE id = ?
                            """,
                        arguments: [progress.mediaTimeSeconds, progress.frames, progress.bytesIn, progress.bytesOut,
                                    progress.speed, entry.jobID])
                }
                try db.execute(
                    sql: "INSERT INTO job_progress (job_id, at, media_time_s, frames, bytes_out) VALUES (?, ?, ?, ?, ?)",
                    arguments: [entry.jobID, at, progress.mediaTimeSeconds, progress.frames, progress.bytesOut])
                return .applied
            }
            if isNewest {
                try Self.applyNewest(db, entry, at: at)
            }
            // `state` is set only where the kind is the state's own event, as in a worker's database.
            let entered = entry.kind == EventKind.entered(entry.state).rawValue ? entry.state : nil
            let data = try Self.ledgerEventData(eventID: entry.eventID)
            try db.execute(
                sql: """
                    INSERT INTO job_events (job_id, at, kind, state, attempt, worker_id, message, data, event_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [entry.jobID, at, entry.kind, entered, entry.attempt, entry.workerID,
                            entry.message ?? entry.error, data, entry.eventID])
            return .applied
        }
    }

    /// The job row and its outputs as the newest event has them.
    private static func applyNewest(_ db: Database, _ entry: LedgerEntry, at: String) throws {
        let terminal = entry.state.isTerminal
        try db.execute(
            sql: """
                UPDATE jobs SET state = ?, attempts = max(attempts, ?), worker_id = COALESCE(?, worker_id),
                    input = COALESCE(?, input), error = ?, updated_at = ?,
                    started_at = CASE WHEN ? THEN ? ELSE started_at END,
                    finished_at = CASE WHEN ? THEN ? ELSE NULL END
                WHERE id = ?
                """,
            arguments: [entry.state, entry.attempt, entry.workerID, entry.input, entry.error, at,
                        entry.state == .running, at, terminal, at, entry.jobID])
        guard !entry.outputs.isEmpty else { return }
        try db.execute(sql: "DELETE FROM job_outputs WHERE job_id = ?", arguments: [entry.jobID])
        for output in entry.outputs {
            try db.execute(
                sql: """
                    INSERT INTO job_outputs (job_id, idx, url, state, bytes, frames, reconnects, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [entry.jobID, output.index, output.url, output.state, output.bytes, output.frames,
                            output.reconnects, at])
        }
    }

    /// `{"event_id": …}`: which worker event a ledger row came from.
    private static func ledgerEventData(eventID: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(["event_id": eventID])
        return String(decoding: data, as: UTF8.self)
    }
}
