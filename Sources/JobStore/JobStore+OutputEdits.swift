// Outputs on the fly (docs/ARCHITECTURE.md §6): an output added to or removed from a running job, recorded in one
// transaction with the job's edited spec (sealed like any spec with a secret), so `jobs retry` runs the edited job too.
import GRDB

extension EventKind {
    /// An output was added to the running job (`sluice jobs outputs add` or the control message).
    public static let outputAdded: EventKind = "job.output_added"
    /// An output was taken out of the running job (`sluice jobs outputs remove` or the control message).
    public static let outputRemoved: EventKind = "job.output_removed"
}

extension JobStore {
    /// Records an output added to a running job: its `pending` row at `index`, the edited spec, and a
    /// `job.output_added` event.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - index: the output's index (the number of outputs the attempt had so far).
    ///   - output: the output, its URL redacted.
    ///   - spec: the edited spec JSON (sealed when it holds a secret).
    ///   - specRedacted: the edited spec without secrets.
    ///   - message: the event's sentence (redacted).
    /// - Returns: the job and its event.
    @discardableResult
    public func recordOutputAdded(jobID: String, index: Int, output: NewOutput, spec: String, specRedacted: String,
                                  message: String) throws(JobStoreError) -> CommittedTransition {
        let at = timestamp()
        let columns = try specColumns(jobID: jobID, spec: spec, redacted: specRedacted)
        let data = try Self.encodeJSON(OutputEditData(index: index, url: output.url))
        return try write { db in
            try Self.updateSpec(db, jobID: jobID, columns: columns, redacted: specRedacted, at: at)
            try db.execute(
                sql: "INSERT OR REPLACE INTO job_outputs (job_id, idx, url, format, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [jobID, index, output.url, output.format, OutputState.pending, at])
            let job = try Self.requireJob(db, id: jobID)
            let event = try Self.insertEvent(db, job: job, kind: .outputAdded, state: nil, at: at, message: message, data: data)
            return CommittedTransition(job: job, event: event)
        }
    }

    /// Records an output taken out of a running job: its row becomes `removed`, the spec is the edited one, and a
    /// `job.output_removed` event is written.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - index: the output's index in this attempt.
    ///   - url: the output's redacted URL.
    ///   - spec: the edited spec JSON.
    ///   - specRedacted: the edited spec without secrets.
    ///   - message: the event's sentence (redacted).
    /// - Returns: the job and its event.
    @discardableResult
    public func recordOutputRemoved(jobID: String, index: Int, url: String, spec: String, specRedacted: String,
                                    message: String) throws(JobStoreError) -> CommittedTransition {
        let at = timestamp()
        let columns = try specColumns(jobID: jobID, spec: spec, redacted: specRedacted)
        let data = try Self.encodeJSON(OutputEditData(index: index, url: url))
        return try write { db in
            try Self.updateSpec(db, jobID: jobID, columns: columns, redacted: specRedacted, at: at)
            try db.execute(sql: "UPDATE job_outputs SET state = ?, updated_at = ? WHERE job_id = ? AND idx = ?",
                           arguments: [OutputState.removed, at, jobID, index])
            let job = try Self.requireJob(db, id: jobID)
            let event = try Self.insertEvent(db, job: job, kind: .outputRemoved, state: nil, at: at, message: message, data: data)
            return CommittedTransition(job: job, event: event)
        }
    }

    private static func updateSpec(_ db: Database, jobID: String, columns: SpecSealing.Columns, redacted: String, at: String) throws {
        try db.execute(sql: "UPDATE jobs SET spec = ?, spec_sealed = ?, spec_redacted = ?, updated_at = ? WHERE id = ?",
                       arguments: [columns.clear, columns.sealed, redacted, at, jobID])
        guard db.changesCount == 1 else { throw JobStoreError.jobNotFound(id: jobID) }
    }
}

/// The event data of an output edit: which output, and its redacted URL.
private struct OutputEditData: Encodable {
    var index: Int
    var url: String
}
