// What the worker's health check and admin page read (`SluiceHTTP`); every query is bounded by its arguments.
import Foundation
import GRDB

/// How many of a job's outputs there are and how many finished cleanly.
public struct OutputTally: Equatable, Sendable {
    /// Outputs in `succeeded`.
    public var succeeded: Int
    /// All outputs of the job.
    public var total: Int
}

extension JobStore {
    /// Proves the database takes writes: an empty `BEGIN IMMEDIATE` transaction takes (and drops) the write
    /// lock, which fails on a read-only or locked file without changing anything.
    public func checkWritable() throws(JobStoreError) {
        _ = try write { _ in true }
    }

    /// Jobs per state, over the whole table (one indexed `GROUP BY`).
    public func stateCounts() throws(JobStoreError) -> [JobState: Int] {
        try read { db in
            var counts: [JobState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state") {
                if let state = JobState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    /// Output tallies of several jobs in one query (jobs without outputs are absent).
    /// - Parameter jobIDs: the jobs, at most a page of them.
    public func outputTallies(jobIDs: [String]) throws(JobStoreError) -> [String: OutputTally] {
        guard !jobIDs.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: jobIDs.count).joined(separator: ",")
        let sql = """
            SELECT job_id, SUM(state = 'succeeded') AS ok, COUNT(*) AS total FROM job_outputs
            WHERE job_id IN (\(marks)) GROUP BY job_id
            """
        return try read { db in
            var tallies: [String: OutputTally] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(jobIDs)) {
                tallies[row["job_id"]] = OutputTally(succeeded: row["ok"], total: row["total"])
            }
            return tallies
        }
    }

    /// A job's progress samples, oldest first, thinned to at most about `maxPoints` evenly spaced ones (the
    /// newest always kept): a day-long live job stores tens of thousands of rows, a chart needs hundreds.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - maxPoints: the most samples wanted (> 1).
    public func progress(jobID: String, maxPoints: Int) throws(JobStoreError) -> [ProgressSample] {
        precondition(maxPoints > 1, "maxPoints must be at least 2")
        let sql = """
            SELECT job_id, at, media_time_s, frames, bytes_out, fps, bitrate_kbps FROM (
                SELECT *, ROW_NUMBER() OVER (ORDER BY at, rowid) AS n, COUNT(*) OVER () AS total
                FROM job_progress WHERE job_id = ?)
            WHERE (n - 1) % ((total + ? - 1) / ?) = 0 OR n = total
            ORDER BY n
            """
        return try read { try ProgressSample.fetchAll($0, sql: sql, arguments: [jobID, maxPoints, maxPoints]) }
    }

    /// A job's newest events, in the order they happened.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - limit: the most events to return (> 0).
    public func events(jobID: String, limit: Int) throws(JobStoreError) -> [EventRecord] {
        precondition(limit > 0, "limit must be positive")
        return try read {
            try EventRecord.fetchAll($0, sql: """
                SELECT * FROM (SELECT * FROM job_events WHERE job_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id
                """, arguments: [jobID, limit])
        }
    }
}
