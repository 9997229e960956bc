// docs/ARCHITECTURE.md §6: recording a job's life; each method is one transaction.
import Foundation
import GRDB

extension JobStore {
    /// Records a delivered job, or reports what is already known about its id.
    ///
    /// A new id becomes a `received` row with its outputs and a `job.received` event. A succeeded id is
    /// left alone (`job.duplicate` event). Any other known id is a redelivery: unless the job is running
    /// (or rejected, which is final) its spec and outputs are replaced by the delivered ones.
    /// - Parameter job: the delivered job, secrets redacted where `NewJob` says so.
    /// - Returns: whether the job is new, already succeeded, or known.
    public func receive(_ job: NewJob) throws(JobStoreError) -> ReceiveOutcome {
        let at = timestamp()
        let spec = try specColumns(jobID: job.id, spec: job.spec, redacted: job.specRedacted)
        return try write { db in
            if let existing = try Self.fetchJob(db, id: job.id) {
                if existing.state == .succeeded {
                    try Self.insertEvent(
                        db, job: existing, kind: .duplicate, state: nil, at: at,
                        message: "already succeeded; not run again", data: nil)
                    return .alreadySucceeded(existing)
                }
                if existing.state != .running && existing.state != .rejected {
                    try db.execute(
                        sql: """
                            UPDATE jobs SET spec = ?, spec_sealed = ?, spec_redacted = ?, input = ?, priority = ?,
                                max_attempts = ?, updated_at = ?
                            WHERE id = ?
                            """,
                        arguments: [spec.clear, spec.sealed, job.specRedacted, job.input, job.priority, job.maxAttempts,
                                    at, job.id])
                    try Self.replaceOutputs(db, jobID: job.id, outputs: job.outputs, at: at)
                }
                try Self.insertEvent(
                    db, job: existing, kind: .redelivered, state: nil, at: at,
                    message: "delivered again while \(existing.state.rawValue)", data: nil)
                return .existing(try Self.requireJob(db, id: job.id))
            }
            try db.execute(
                sql: """
                    INSERT INTO jobs (id, state, attempts, max_attempts, priority, worker_id, input, spec,
                        spec_sealed, spec_redacted, created_at, updated_at)
                    VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.id, JobState.received, job.maxAttempts, job.priority, job.workerID, job.input, spec.clear,
                    spec.sealed, job.specRedacted, at, at,
                ])
            try Self.replaceOutputs(db, jobID: job.id, outputs: job.outputs, at: at)
            let created = try Self.requireJob(db, id: job.id)
            try Self.insertEvent(
                db, job: created, kind: .received, state: .received, at: at, message: nil, data: nil)
            return .created
        }
    }

    /// Records a job whose spec did not validate as `rejected`, creating its row if needed.
    ///
    /// Rejecting an already rejected id (a redelivered bad message) changes nothing.
    /// - Parameters:
    ///   - id: the job's id, or one the caller generated when the message had no usable id.
    ///   - spec: the message text as received, if it is text; kept sealed, or not at all without a key.
    ///   - specRedacted: the message with its URLs redacted, when it is JSON; kept in clear.
    ///   - error: why the spec is invalid (names the key path).
    ///   - workerID: the worker that received it.
    /// - Returns: the rejected job.
    @discardableResult
    public func reject(
        id: String, spec: String?, specRedacted: String? = nil, error: String, workerID: String? = nil
    ) throws(JobStoreError) -> JobRecord {
        let at = timestamp()
        // An invalid document is never run again: its text is kept only to be read, so even a secret-free one
        // is kept sealed (or redacted) rather than as a runnable spec.
        let sealed = try specColumns(jobID: id, spec: spec, redacted: nil).sealed
        return try write { db in
            if let existing = try Self.fetchJob(db, id: id) {
                if existing.state == .rejected { return existing }
                var lifecycle = JobLifecycle(state: existing.state)
                _ = try lifecycle.transition(to: .rejected, jobID: id)
                try db.execute(
                    sql: """
                        UPDATE jobs SET state = ?, error = ?,
                            spec = CASE WHEN ? THEN NULL ELSE spec END,
                            spec_sealed = CASE WHEN ? THEN ? ELSE spec_sealed END,
                            spec_redacted = COALESCE(?, spec_redacted), worker_id = COALESCE(?, worker_id),
                            finished_at = ?, updated_at = ?
                        WHERE id = ?
                        """,
                    // A nil spec (the caller has no text) keeps what is stored.
                    arguments: [JobState.rejected, error, spec != nil, spec != nil, sealed, specRedacted, workerID,
                                at, at, id])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO jobs (id, state, attempts, worker_id, spec_sealed, spec_redacted, error,
                            created_at, updated_at, finished_at)
                        VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [id, JobState.rejected, workerID, sealed, specRedacted, error, at, at, at])
            }
            let rejected = try Self.requireJob(db, id: id)
            try Self.insertEvent(
                db, job: rejected, kind: .entered(.rejected), state: .rejected, at: at, message: error, data: nil)
            return rejected
        }
    }

    /// Starts a new attempt: the job goes to `running` on `workerID` and its attempt count grows by one.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - workerID: the worker running the attempt.
    /// - Returns: the attempt number, from 1.
    @discardableResult
    public func startAttempt(id: String, workerID: String) throws(JobStoreError) -> Int {
        try beginAttempt(id: id, workerID: workerID).job.attempts
    }

    /// Starts a new attempt, as `startAttempt`, and returns the job in `running` with its `job.running` event.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - workerID: the worker running the attempt.
    public func beginAttempt(id: String, workerID: String) throws(JobStoreError) -> CommittedTransition {
        let at = timestamp()
        return try write { db in
            try Self.applyTransition(
                db, id: id, to: .running, workerID: workerID, error: nil, message: nil, data: nil, at: at)
        }
    }

    /// Moves a job to `state` if `JobLifecycle` allows it, stamping `finished_at` for terminal states and
    /// writing the `job.<state>` event, all in one transaction.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - state: the state to enter; `running` starts a new attempt on the job's current worker.
    ///   - error: the failure text stored in `jobs.error` (nil clears it).
    ///   - message: the event's message; defaults to `error`.
    ///   - data: details stored as JSON in the event.
    /// - Returns: the job after the transition and the event that recorded it.
    @discardableResult
    public func transition(
        id: String, to state: JobState, error: String? = nil, message: String? = nil,
        data: (any Encodable)? = nil
    ) throws(JobStoreError) -> CommittedTransition {
        let json = try data.map { value throws(JobStoreError) in try Self.encodeJSON(value) }
        let at = timestamp()
        return try write { db in
            try Self.applyTransition(
                db, id: id, to: state, workerID: nil, error: error, message: message ?? error, data: json, at: at)
        }
    }

    /// Records an event that changes no state, such as `job.encoder_fallback`.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - kind: what happened.
    ///   - message: a sentence for admins.
    ///   - data: details stored as JSON.
    /// - Returns: the stored event.
    @discardableResult
    public func recordEvent(
        id: String, kind: EventKind, message: String? = nil, data: (any Encodable)? = nil
    ) throws(JobStoreError) -> EventRecord {
        let json = try data.map { value throws(JobStoreError) in try Self.encodeJSON(value) }
        let at = timestamp()
        return try write { db in
            let job = try Self.requireJob(db, id: id)
            return try Self.insertEvent(db, job: job, kind: kind, state: nil, at: at, message: message, data: json)
        }
    }

    /// Records a take-over: one more in `takeovers`, the gap in `last_gap_s`, and a `job.takeover` event.
    /// - Parameters:
    ///   - id: the job's id.
    ///   - gapSeconds: seconds between the previous holder's last sign of output and this worker's first output.
    ///   - message: a sentence for admins (who had it, how it ended there).
    ///   - data: details stored as JSON.
    @discardableResult
    public func recordTakeover(
        id: String, gapSeconds: Double, message: String, data: (any Encodable)? = nil
    ) throws(JobStoreError) -> EventRecord {
        let json = try data.map { value throws(JobStoreError) in try Self.encodeJSON(value) }
        let at = timestamp()
        return try write { db in
            try db.execute(
                sql: "UPDATE jobs SET takeovers = takeovers + 1, last_gap_s = ?, updated_at = ? WHERE id = ?",
                arguments: [gapSeconds, at, id])
            let job = try Self.requireJob(db, id: id)
            return try Self.insertEvent(db, job: job, kind: .takeover, state: nil, at: at, message: message, data: json)
        }
    }

    /// Records the video encoder the job actually uses (after any fallback).
    /// - Parameters:
    ///   - id: the job's id.
    ///   - encoder: the encoder's name, such as `h264_vaapi` or `libx264`.
    public func setEncoder(id: String, encoder: String) throws(JobStoreError) {
        let at = timestamp()
        try write { db in
            try db.execute(
                sql: "UPDATE jobs SET encoder = ?, updated_at = ? WHERE id = ?", arguments: [encoder, at, id])
            guard db.changesCount == 1 else { throw JobStoreError.jobNotFound(id: id) }
        }
    }

    /// Changes one output's counters or state; nil fields of `update` keep their stored values.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - index: the output's position in the spec, from 0.
    ///   - update: the new values.
    public func updateOutput(jobID: String, index: Int, update: OutputUpdate) throws(JobStoreError) {
        let at = timestamp()
        try write { db in
            try JobStore.applyOutputUpdate(db, jobID: jobID, index: index, update: update, at: at)
        }
    }

    /// An output taken out of its job (`recordOutputRemoved`) stays `removed`: a progress record made before the edit
    /// and written after it (they wait up to a second to be written together) keeps its counters, not its state.
    static func applyOutputUpdate(_ db: Database, jobID: String, index: Int, update: OutputUpdate, at: String) throws {
        try db.cachedStatement(
            sql: """
                UPDATE job_outputs SET state = CASE state WHEN 'removed' THEN state ELSE COALESCE(?, state) END,
                    bytes = COALESCE(?, bytes),
                    frames = COALESCE(?, frames), drops = COALESCE(?, drops),
                    reconnects = COALESCE(?, reconnects), last_error = COALESCE(?, last_error),
                    srt_rtt_ms = COALESCE(?, srt_rtt_ms), srt_send_mbps = COALESCE(?, srt_send_mbps),
                    srt_packets_sent = COALESCE(?, srt_packets_sent), srt_packets_lost = COALESCE(?, srt_packets_lost),
                    srt_packets_retransmitted = COALESCE(?, srt_packets_retransmitted),
                    srt_packets_dropped = COALESCE(?, srt_packets_dropped), updated_at = ?
                WHERE job_id = ? AND idx = ?
                """
        ).execute(
            arguments: [
                update.state, update.bytes, update.frames, update.drops, update.reconnects, update.lastError,
                update.srt?.roundTripMilliseconds, update.srt?.sendMegabitsPerSecond, update.srt?.packetsSent,
                update.srt?.packetsLost, update.srt?.packetsRetransmitted, update.srt?.packetsDropped,
                at, jobID, index,
            ])
        guard db.changesCount == 1 else { throw JobStoreError.outputNotFound(jobID: jobID, index: index) }
    }

    /// Deletes a job with its outputs, events and samples (admin clean-up).
    /// - Parameter id: the job's id.
    /// - Returns: whether a job was deleted.
    @discardableResult
    public func deleteJob(id: String) throws(JobStoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM jobs WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    // MARK: - Statements shared by the writes

    /// Validates and applies one state change with its event; `workerID` nil keeps the stored worker.
    private static func applyTransition(
        _ db: Database, id: String, to next: JobState, workerID: String?, error: String?, message: String?,
        data: String?, at: String
    ) throws -> CommittedTransition {
        let job = try requireJob(db, id: id)
        var lifecycle = JobLifecycle(state: job.state)
        switch try lifecycle.transition(to: next, jobID: id) {
        case .startAttempt:
            // Progress and encoder describe the latest attempt; the events keep the history.
            try db.execute(
                sql: """
                    UPDATE jobs SET state = ?, attempts = attempts + 1, worker_id = COALESCE(?, worker_id),
                        started_at = ?, finished_at = NULL, error = ?, encoder = NULL, media_time_s = NULL,
                        frames = NULL, bytes_in = NULL, bytes_out = NULL, dts_repairs = NULL, speed = NULL,
                        updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [next, workerID, at, error, at, id])
        case .finish:
            try db.execute(
                sql: "UPDATE jobs SET state = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ?",
                arguments: [next, error, at, at, id])
        case .suspend:
            try db.execute(
                sql: "UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ?",
                arguments: [next, error, at, id])
        }
        let updated = try requireJob(db, id: id)
        let event = try insertEvent(
            db, job: updated, kind: .entered(next), state: next, at: at, message: message, data: data)
        return CommittedTransition(job: updated, event: event)
    }

    /// Appends an event carrying the job's current attempt and worker.
    @discardableResult
    static func insertEvent(
        _ db: Database, job: JobRecord, kind: EventKind, state: JobState?, at: String, message: String?,
        data: String?
    ) throws -> EventRecord {
        try db.execute(
            sql: """
                INSERT INTO job_events (job_id, at, kind, state, attempt, worker_id, message, data, event_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [job.id, at, kind, state, job.attempts, job.workerID, message, data,
                        EventRecord.newID(worker: job.workerID)])
        let rowID = db.lastInsertedRowID
        guard let event = try EventRecord.fetchOne(db, sql: "SELECT * FROM job_events WHERE id = ?", arguments: [rowID])
        else {
            throw JobStoreError.database("event \(rowID) vanished right after its insert")
        }
        return event
    }

    /// Replaces a job's outputs with fresh `pending` rows.
    private static func replaceOutputs(_ db: Database, jobID: String, outputs: [NewOutput], at: String) throws {
        try db.execute(sql: "DELETE FROM job_outputs WHERE job_id = ?", arguments: [jobID])
        for (index, output) in outputs.enumerated() {
            try db.execute(
                sql: "INSERT INTO job_outputs (job_id, idx, url, format, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [jobID, index, output.url, output.format, OutputState.pending, at])
        }
    }

    /// The job row, or `jobNotFound`.
    static func requireJob(_ db: Database, id: String) throws -> JobRecord {
        guard let job = try fetchJob(db, id: id) else { throw JobStoreError.jobNotFound(id: id) }
        return job
    }

    /// The job row, if any.
    static func fetchJob(_ db: Database, id: String) throws -> JobRecord? {
        try JobRecord.fetchOne(db, sql: "SELECT * FROM jobs WHERE id = ?", arguments: [id])
    }

    /// Event data as compact JSON with sorted keys, so equal data is equal text.
    static func encodeJSON(_ value: any Encodable) throws(JobStoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .invalidEventData(reason: "\(error)")
        }
    }
}
