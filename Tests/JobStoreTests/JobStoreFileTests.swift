import Foundation
import Testing

@testable import JobStore

/// Opening, migrating and sharing the database file (real SQLite files in a temp dir).
@Suite struct JobStoreFileTests {
    @Test func migratesAnEmptyFile() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(try store.appliedMigrations() == ["v1", "v2-takeovers", "v3-ledger", "v4-sealed-specs", "v5-event-ids", "v6-segments", "v7-srt-links"])
        let tables = try sqlite3Shell(store.path, ["SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"])
        #expect(tables.status == 0)
        let names = Set(tables.output.split(separator: "\n").map(String.init))
        #expect(names.isSuperset(of: ["jobs", "job_outputs", "job_events", "job_progress"]))
    }

    @Test func reopeningKeepsDataAndDoesNotMigrateAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jobs.sqlite")
        #expect(try JobStore(path: path).receive(sampleJob()) == .created)
        let reopened = try JobStore(path: path)
        #expect(try reopened.appliedMigrations() == ["v1", "v2-takeovers", "v3-ledger", "v4-sealed-specs", "v5-event-ids", "v6-segments", "v7-srt-links"])
        #expect(try reopened.job(id: sampleJob().id)?.state == .received)
    }

    /// A worker starting while `sluice jobs list` opens the same new file: every open succeeds and each migration is
    /// applied once (GRDB lets two processes both decide to run one; the later one failed with "duplicate column name").
    @Test func concurrentOpensOfANewFileAllSucceed() throws {
        for round in 0 ..< 12 {
            let directory = try TemporaryDirectory()
            let path = directory.file("race-\(round).sqlite")
            let failures = ThreadFailures()
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    _ = try JobStore(path: path)
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "round \(round): \(failures.all)")
            #expect(try JobStore(path: path).appliedMigrations().count == 7)
        }
    }

    /// The columns admins and the CLI rely on, by table.
    @Test(arguments: [
        ("jobs", [
            "id", "state", "attempts", "max_attempts", "priority", "worker_id", "input", "spec", "spec_redacted",
            "encoder", "error", "created_at", "updated_at", "started_at", "finished_at", "media_time_s", "frames",
            "bytes_in", "bytes_out", "dts_repairs", "speed", "takeovers", "last_gap_s", "spec_sealed",
        ]),
        ("job_outputs", [
            "job_id", "idx", "url", "format", "state", "bytes", "frames", "drops", "reconnects", "last_error",
            "updated_at", "srt_rtt_ms", "srt_send_mbps", "srt_packets_sent", "srt_packets_lost", "srt_packets_retransmitted",
            "srt_packets_dropped",
        ]),
        ("job_events", ["id", "job_id", "at", "kind", "state", "attempt", "worker_id", "message", "data", "event_id"]),
        ("job_progress", ["job_id", "at", "media_time_s", "frames", "bytes_out", "fps", "bitrate_kbps"]),
        ("ledger_events", ["event_id", "job_id", "kind", "at", "applied_at"]),
    ])
    func tableHasColumns(table: String, columns: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let result = try sqlite3Shell(store.path, ["SELECT name FROM pragma_table_info('\(table)') ORDER BY cid"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.split(separator: "\n").map(String.init) == columns)
    }

    @Test(arguments: [
        ("job_events", "job_events_job_id", ["job_id", "id"]),
        ("job_progress", "job_progress_job_at", ["job_id", "at"]),
    ])
    func indexCoversColumns(table: String, index: String, columns: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let result = try sqlite3Shell(store.path, ["SELECT name FROM pragma_index_info('\(index)') ORDER BY seqno"])
        #expect(result.output.split(separator: "\n").map(String.init) == columns)
    }

    @Test func databaseAndSidecarsAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(try store.receive(sampleJob()) == .created)
        #expect(permissionBits(store.path) == 0o600)
        // WAL mode keeps both sidecars while a connection is open.
        #expect(permissionBits(store.path + "-wal") == 0o600)
        #expect(permissionBits(store.path + "-shm") == 0o600)
    }

    @Test func existingWideFileIsTightened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jobs.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        #expect(permissionBits(path) == 0o644)
        _ = try JobStore(path: path)
        #expect(permissionBits(path) == 0o600)
    }

    @Test func journalModeIsWAL() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let result = try sqlite3Shell(store.path, ["PRAGMA journal_mode"])
        #expect(result.output == "wal\n")
    }

    /// Malformed opens: each fails with `cannotOpen` naming the path, never a crash.
    @Test(arguments: ["missing-dir/jobs.sqlite", "not-a-database.sqlite", "a-directory"])
    func unusablePathIsReportedClearly(name: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file(name)
        if name == "not-a-database.sqlite" {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096)))
        }
        if name == "a-directory" {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let error = #expect(throws: JobStoreError.self) { try JobStore(path: path) }
        guard case let .cannotOpen(reportedPath, reason)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(reportedPath == path)
        #expect(!reason.isEmpty)
        #expect(error?.description.contains(path) == true)
    }

    @Test func fileFromNewerReleaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jobs.sqlite")
        _ = try JobStore(path: path)
        let insert = try sqlite3Shell(path, ["INSERT INTO grdb_migrations (identifier) VALUES ('v99')"])
        #expect(insert.status == 0, "\(insert.errorOutput)")
        let error = #expect(throws: JobStoreError.self) { try JobStore(path: path) }
        #expect(error?.description.contains("newer version") == true)
    }

    /// An admin's sqlite3 shell reads the rows, with times as ISO-8601 UTC text, while the worker has the file open.
    @Test func sqlite3ShellReadsTheTables() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        #expect(try store.receive(job) == .created)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        try store.updateProgress(id: job.id, progress: JobProgress(mediaTimeSeconds: 1.5, frames: 45, bytesIn: 10, bytesOut: 20))
        let jobs = try sqlite3Shell(store.path, ["-separator", "|", "SELECT id, state, attempts, created_at FROM jobs"])
        #expect(jobs.status == 0, "\(jobs.errorOutput)")
        #expect(jobs.output == "\(job.id)|running|1|2026-11-21T05:19:16.123Z\n")
        let events = try sqlite3Shell(store.path, ["SELECT kind FROM job_events ORDER BY id"])
        #expect(events.output == "job.received\njob.running\n")
        let outputs = try sqlite3Shell(store.path, ["SELECT count(*) FROM job_outputs WHERE job_id = '\(job.id)'"])
        #expect(outputs.output == "2\n")
        let samples = try sqlite3Shell(store.path, ["SELECT frames FROM job_progress"])
        #expect(samples.output == "45\n")
    }

    /// WAL: a reader connection holding an open transaction neither blocks the writer nor sees half of it.
    @Test func openReadTransactionDoesNotBlockWrites() throws {
        let directory = try TemporaryDirectory()
        let writer = try makeStore(in: directory)
        let reader = try makeStore(in: directory)
        let first = sampleJob(id: "first")
        #expect(try writer.receive(first) == .created)
        try reader.read { db in
            // The first read fixes this transaction's snapshot.
            #expect(try JobStore.fetchJob(db, id: "first")?.state == .received)
            // The writer commits on its own connection while the read transaction stays open.
            let started = ContinuousClock.now
            #expect(try writer.receive(sampleJob(id: "second")) == .created)
            try writer.startAttempt(id: "first", workerID: "worker-a")
            #expect(ContinuousClock.now - started < .seconds(1), "the write must not wait for the reader")
            // Still the old snapshot inside the open transaction.
            #expect(try JobStore.fetchJob(db, id: "second") == nil)
            #expect(try JobStore.fetchJob(db, id: "first")?.state == .received)
        }
        #expect(try reader.job(id: "second")?.state == .received)
        #expect(try reader.job(id: "first")?.state == .running)
    }

    /// The busy timeout makes a writer wait for another connection's write lock instead of failing.
    @Test func writerWaitsForAnotherConnectionsLock() throws {
        let directory = try TemporaryDirectory()
        let holder = try makeStore(in: directory)
        let waiter = try makeStore(in: directory)
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedBox<Result<ReceiveOutcome, JobStoreError>?>(nil)
        try holder.write { _ in
            Thread.detachNewThread {
                outcome.set(Result { () throws(JobStoreError) in try waiter.receive(sampleJob(id: "waiting")) })
                done.signal()
            }
            // Hold the write lock long enough that the other write must wait on the busy timeout.
            #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(try outcome.get()?.get() == .created)
    }

    /// Without a busy timeout the same contention is an immediate, clearly typed error.
    @Test func zeroBusyTimeoutFailsWithDatabaseError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jobs.sqlite")
        let holder = try JobStore(path: path)
        let impatient = try JobStore(path: path, busyTimeout: 0)
        try holder.write { _ in
            let error = #expect(throws: JobStoreError.self) { try impatient.receive(sampleJob()) }
            guard case let .database(message)? = error else {
                Issue.record("expected a database error, got \(String(describing: error))")
                return
            }
            #expect(message.contains("database is locked"))
        }
        #expect(try impatient.job(id: sampleJob().id) == nil, "the failed write left nothing behind")
    }

    /// Two threads, each with its own connection, writing the same file at once: none fails.
    @Test func concurrentWritersFromTwoThreadsSucceed() throws {
        let directory = try TemporaryDirectory()
        let stores = [try makeStore(in: directory), try makeStore(in: directory)]
        let jobsPerThread = 40
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let store = stores[thread]
            for number in 0..<jobsPerThread {
                let id = "t\(thread)-\(number)"
                do {
                    _ = try store.receive(sampleJob(id: id))
                    try store.startAttempt(id: id, workerID: "worker-\(thread)")
                    try store.updateProgress(id: id, progress: JobProgress(mediaTimeSeconds: 1, frames: 1, bytesIn: 1, bytesOut: 1))
                    try store.transition(id: id, to: .succeeded)
                } catch {
                    failures.mutate { $0.append("\(id): \(error)") }
                }
            }
        }
        #expect(failures.get() == [])
        let succeeded = try stores[0].jobs(state: .succeeded, limit: 1000)
        #expect(succeeded.count == 2 * jobsPerThread)
        #expect(succeeded.allSatisfy { $0.attempts == 1 })
    }
}

/// A value shared between threads; `@unchecked Sendable` because every access holds `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func get() -> Value {
        lock.withLock { value }
    }

    func set(_ newValue: Value) {
        lock.withLock { value = newValue }
    }

    func mutate(_ body: (inout Value) -> Void) {
        lock.withLock { body(&value) }
    }
}

/// Errors gathered from threads.
private final class ThreadFailures: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var messages: [String] = []

    func append(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}
