// docs/ARCHITECTURE.md §6: what `sluice jobs list|show|events` and worker reconciliation read.
import Foundation
import GRDB

extension JobStore {
    /// The job with this id, if any.
    /// - Parameter id: the job's id.
    public func job(id: String) throws(JobStoreError) -> JobRecord? {
        try read { try Self.fetchJob($0, id: id) }
    }

    /// Jobs newest first (by `created_at`), optionally only those in one state or created since a time.
    /// - Parameters:
    ///   - state: only jobs in this state; nil for all.
    ///   - since: only jobs created at or after this time; nil for all.
    ///   - limit: the most rows to return (> 0).
    public func jobs(state: JobState? = nil, since: Date? = nil, limit: Int = 100) throws(JobStoreError)
        -> [JobRecord]
    {
        precondition(limit > 0, "limit must be positive")
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let state {
            conditions.append("state = ?")
            arguments += [state]
        }
        if let since {
            // Fixed-width ISO-8601 UTC text orders like the times it encodes.
            conditions.append("created_at >= ?")
            arguments += [Timestamp.format(since)]
        }
        arguments += [limit]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM jobs \(filter) ORDER BY created_at DESC, rowid DESC LIMIT ?"
        return try read { try JobRecord.fetchAll($0, sql: sql, arguments: arguments) }
    }

    /// Every job id in the store (a worker names the owners of stale temporary files by them).
    public func jobIDs() throws(JobStoreError) -> [String] {
        try read { try String.fetchAll($0, sql: "SELECT id FROM jobs") }
    }

    /// The jobs `running` on this worker: at worker start these are attempts a crash interrupted.
    /// - Parameter workerID: the worker's id.
    public func runningJobs(workerID: String) throws(JobStoreError) -> [JobRecord] {
        try read {
            try JobRecord.fetchAll(
                $0, sql: "SELECT * FROM jobs WHERE state = ? AND worker_id = ? ORDER BY created_at, rowid",
                arguments: [JobState.running, workerID])
        }
    }

    /// A job's outputs in spec order (empty for an unknown job).
    /// - Parameter jobID: the job's id.
    public func outputs(jobID: String) throws(JobStoreError) -> [OutputRecord] {
        try read {
            try OutputRecord.fetchAll(
                $0, sql: "SELECT * FROM job_outputs WHERE job_id = ? ORDER BY idx", arguments: [jobID])
        }
    }

    /// A job's events in the order they happened (empty for an unknown job).
    /// - Parameter jobID: the job's id.
    public func events(jobID: String) throws(JobStoreError) -> [EventRecord] {
        try read {
            try EventRecord.fetchAll(
                $0, sql: "SELECT * FROM job_events WHERE job_id = ? ORDER BY id", arguments: [jobID])
        }
    }

    /// A job's progress samples, oldest first (empty for an unknown job).
    /// - Parameter jobID: the job's id.
    public func progress(jobID: String) throws(JobStoreError) -> [ProgressSample] {
        try read {
            try ProgressSample.fetchAll(
                $0, sql: "SELECT * FROM job_progress WHERE job_id = ? ORDER BY at, rowid", arguments: [jobID])
        }
    }
}
