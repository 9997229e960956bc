// docs/ARCHITECTURE.md §6: a running job's periodic progress record (the job's counters, a `job_progress` sample,
// its outputs' counters), alone or many jobs' in one transaction.
import Foundation
import GRDB

/// One running job's progress record, as `JobStore.updateProgress(_:)` writes it.
public struct ProgressRecord: Sendable {
    /// The job's id.
    public var id: String
    /// The report.
    public var progress: JobProgress
    /// Each output's position in the spec (from 0) and its new values; nil fields keep the stored ones.
    public var outputs: [(index: Int, update: OutputUpdate)]

    public init(id: String, progress: JobProgress, outputs: [(index: Int, update: OutputUpdate)] = []) {
        self.id = id
        self.progress = progress
        self.outputs = outputs
    }
}

extension JobStore {
    /// Stores the job's latest progress in `jobs` and appends it as a `job_progress` sample.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - progress: the report.
    public func updateProgress(id: String, progress: JobProgress) throws(JobStoreError) {
        try updateProgress(id: id, progress: progress, outputs: [])
    }

    /// Stores the job's latest progress, its sample and its outputs' counters in one transaction.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - progress: the report.
    ///   - outputs: each output's position in the spec (from 0) and its new values; nil fields keep the stored ones.
    public func updateProgress(id: String, progress: JobProgress, outputs: [(index: Int, update: OutputUpdate)]) throws(JobStoreError) {
        try updateProgress(ProgressRecord(id: id, progress: progress, outputs: outputs))
    }

    /// Stores one job's record in a transaction of its own.
    /// - Parameter record: the record.
    /// - Throws: why it was not written (its job or one of its outputs has no row, or the transaction failed).
    public func updateProgress(_ record: ProgressRecord) throws(JobStoreError) {
        if let refused = try updateProgress([record])[0] { throw refused }
    }

    /// Stores many running jobs' records in one transaction: with a hundred jobs, a commit each was most of the
    /// progress queue's work (docs/BENCHMARKS.md, density). Each record is applied in a savepoint of its own, so a
    /// record that cannot be (its job or one of its outputs has no row) leaves nothing and costs only itself.
    /// - Parameter records: the records, in the order to apply them.
    /// - Returns: why the records that were not written were not, by their position in `records`.
    /// - Throws: when the transaction fails; then none is written.
    @discardableResult
    public func updateProgress(_ records: [ProgressRecord]) throws(JobStoreError) -> [Int: JobStoreError] {
        guard !records.isEmpty else { return [:] }
        let at = timestamp()
        return try write { db in
            var refused: [Int: JobStoreError] = [:]
            for (position, record) in records.enumerated() {
                do {
                    try db.inSavepoint {
                        try Self.applyProgress(db, record, at: at)
                        return .commit
                    }
                } catch let error as JobStoreError {
                    refused[position] = error
                }
            }
            return refused
        }
    }

    private static func applyProgress(_ db: Database, _ record: ProgressRecord, at: String) throws {
        let progress = record.progress
        // Cached: compiled once per connection, not for every record (parsing and GRDB's authorizer were most of it).
        try db.cachedStatement(
            sql: """
                UPDATE jobs SET media_time_s = ?, frames = ?, bytes_in = ?, bytes_out = ?, dts_repairs = ?,
                    speed = ?, updated_at = ?
                WHERE id = ?
                """
        ).execute(
            arguments: [
                progress.mediaTimeSeconds, progress.frames, progress.bytesIn, progress.bytesOut,
                progress.dtsRepairs, progress.speed, at, record.id,
            ])
        guard db.changesCount == 1 else { throw JobStoreError.jobNotFound(id: record.id) }
        try db.cachedStatement(
            sql: """
                INSERT INTO job_progress (job_id, at, media_time_s, frames, bytes_out, fps, bitrate_kbps)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                record.id, at, progress.mediaTimeSeconds, progress.frames, progress.bytesOut, progress.fps,
                progress.bitrateKbps,
            ])
        for output in record.outputs {
            try applyOutputUpdate(db, jobID: record.id, index: output.index, update: output.update, at: at)
        }
    }
}
