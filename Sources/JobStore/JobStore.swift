// docs/ARCHITECTURE.md §6: the SQLite record of every job's life, shared by the worker, `sluice run` and `sluice jobs`.
import Foundation
import GRDB

/// The job database: a WAL-mode SQLite file that the worker writes and admins read at the same time.
///
/// Every write is one `BEGIN IMMEDIATE` transaction, so concurrent writers (another worker process,
/// `sluice jobs cancel`) wait on the busy timeout instead of failing half-way; readers never block writers.
/// Methods are synchronous and block the calling thread for the length of one short transaction.
public final class JobStore: Sendable {
    /// The database file.
    public let path: String
    /// One writer connection and a few reader connections, all in WAL mode.
    private let pool: DatabasePool
    /// The clock that stamps rows and events; injected so tests control time.
    private let now: @Sendable () -> Date
    /// The keys job secrets are sealed with; nil stores no secret at all (only redacted specs).
    let secrets: SecretKeyring?

    /// How long a write waits for another connection's lock before failing, unless told otherwise.
    public static let defaultBusyTimeout: TimeInterval = 5

    /// Opens (creating if needed, mode 0600) the database at `path` and applies pending migrations.
    /// - Parameters:
    ///   - path: the database file; its directory must exist.
    ///   - busyTimeout: seconds a statement waits for a lock held by another connection (≥ 0).
    ///   - now: the clock for `created_at`, `updated_at`, event times and samples.
    ///   - secrets: the keys that seal job secrets (the current one seals, any opens); nil keeps no secret.
    public init(
        path: String, busyTimeout: TimeInterval = JobStore.defaultBusyTimeout,
        now: @escaping @Sendable () -> Date = { Date() }, secrets: SecretKeyring? = nil
    ) throws(JobStoreError) {
        precondition(busyTimeout >= 0, "busyTimeout must not be negative")
        try DatabaseFile.preparePrivate(at: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "JobStore"
        configuration.prepareDatabase { db in
            // Deleted and overwritten rows are zeroed in their pages, not left in free space for a file reader.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = Schema.migrator(secrets: secrets)
            let (superseded, applied) = try pool.read { db in (try migrator.hasBeenSuperseded(db), try migrator.appliedIdentifiers(db)) }
            // A file migrated by a newer release may hold columns or states this build does not understand.
            if superseded {
                throw JobStoreError.cannotOpen(
                    path: path, reason: "it was written by a newer version of sluice (unknown migrations)")
            }
            // Only a file that held jobs before specs were sealed can have clear secrets in its free pages; a new
            // one has none, and skips the rewrite (a VACUUM and a checkpoint: the costliest part of a first start).
            let scrubs = !applied.isEmpty && !applied.contains(Schema.sealedSpecsMigration)
            try Self.migrate(pool, with: migrator, applied: applied)
            if scrubs { try Self.scrubFreedPages(pool) }
        } catch let error as JobStoreError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        try DatabaseFile.restrictSidecars(of: path)
        self.path = path
        self.pool = pool
        self.now = now
        self.secrets = secrets
    }

    /// Migrations another process applies at the same time (a worker starting while `sluice jobs list` opens the same new
    /// file) are taken as done: GRDB reads which migrations a file has before it takes the write lock, so two processes
    /// can both decide to run one, and the later one's fails (SQLite's "duplicate column name") and rolls back. That
    /// failure is retried while the file's applied migrations keep changing under it; any other failure stands.
    private static func migrate(_ pool: DatabasePool, with migrator: DatabaseMigrator, applied: Set<String>) throws {
        var seen = applied
        for attempt in 1 ... migrationAttempts {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                let now = try pool.read { try migrator.appliedIdentifiers($0) }
                guard attempt < migrationAttempts, now != seen else { throw error }
                seen = now
            }
        }
    }

    /// One attempt per migration another process could apply first, and one more.
    private static let migrationAttempts = 8

    /// Rewrites the whole file and empties the WAL after the migration that removed clear secrets, so that no
    /// old page (in the main file's free list or in WAL frames) still holds them.
    private static func scrubFreedPages(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// The identifiers of the migrations applied to this file, oldest first.
    public func appliedMigrations() throws(JobStoreError) -> [String] {
        try read { try Schema.migrator(secrets: secrets).appliedMigrations($0) }
    }

    // MARK: - Transactions

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: it takes the write lock up front, so the
    /// busy timeout applies, instead of failing with SQLITE_BUSY when a deferred read upgrades to a write.
    func write<T>(_ body: (Database) throws -> T) throws(JobStoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else {
                    throw JobStoreError.database("the transaction committed without a result")
                }
                return result
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` on a reader connection, in a snapshot that writers do not block.
    func read<T>(_ body: (Database) throws -> T) throws(JobStoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The current time as column text.
    func timestamp() -> String {
        Timestamp.format(now())
    }

    /// Keeps the store's own errors and wraps GRDB's (whose description omits statement arguments).
    private static func storeError(_ error: any Error) -> JobStoreError {
        if let error = error as? JobStoreError { return error }
        return .database("\(error)")
    }
}
