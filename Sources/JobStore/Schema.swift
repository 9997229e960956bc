// docs/ARCHITECTURE.md §6: the tables admins read with `sluice jobs …` and the sqlite3 shell.
import GRDB

/// The migrations of the job database; each release appends, never edits, a migration.
enum Schema {
    /// The migration that took clear-text secrets out of `jobs.spec`.
    static let sealedSpecsMigration = "v4-sealed-specs"

    /// Registered migrations in order; `v1` creates the four tables.
    /// - Parameter secrets: the keyring `v4-sealed-specs` seals existing specs with; nil drops their secrets.
    static func migrator(secrets: SecretKeyring?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createV1)
        migrator.registerMigration("v2-takeovers", migrate: addTakeovers)
        migrator.registerMigration("v3-ledger", migrate: addLedgerEvents)
        migrator.registerMigration(sealedSpecsMigration) { db in try SpecSealing.migrate(db, secrets: secrets) }
        migrator.registerMigration("v5-event-ids", migrate: addEventIDs)
        migrator.registerMigration("v6-segments", migrate: addSegments)
        migrator.registerMigration("v7-srt-links", migrate: addSRTLinks)
        return migrator
    }

    /// An SRT output's link as libsrt measured it (NULL for other outputs): the current round trip and sending rate,
    /// packets sent, lost, retransmitted and dropped over every connection of the attempt.
    private static func addSRTLinks(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE job_outputs ADD COLUMN srt_rtt_ms REAL;
            ALTER TABLE job_outputs ADD COLUMN srt_send_mbps REAL;
            ALTER TABLE job_outputs ADD COLUMN srt_packets_sent INTEGER;
            ALTER TABLE job_outputs ADD COLUMN srt_packets_lost INTEGER;
            ALTER TABLE job_outputs ADD COLUMN srt_packets_retransmitted INTEGER;
            ALTER TABLE job_outputs ADD COLUMN srt_packets_dropped INTEGER;
            """)
    }

    /// The segments of recordings cut on the clock: a row when a segment opens (`closed_at` NULL: a `.part` a
    /// take-over salvages), completed when it closes, `removed_at` once `retain` removed its file.
    private static func addSegments(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE segments (
                job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
                idx        INTEGER NOT NULL CHECK (idx >= 0),
                path       TEXT NOT NULL,
                start_at   TEXT NOT NULL,
                duration_s REAL,
                bytes      INTEGER,
                closed_at  TEXT,
                removed_at TEXT,
                PRIMARY KEY (job_id, path)
            );
            CREATE INDEX segments_job_output ON segments(job_id, idx, start_at);
            """)
    }

    /// Each event's id for ever (`<worker>/<UUID>`), written with the row; older rows keep NULL, and their
    /// events were published as `<worker>/<row id>`. In a ledger it is the worker event the row came from.
    private static func addEventIDs(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE job_events ADD COLUMN event_id TEXT;
            CREATE UNIQUE INDEX job_events_event_id ON job_events(event_id);
            """)
    }

    /// The event ids a ledger (`sluice ledger`) has applied, so a redelivered event changes nothing.
    /// Empty in a worker's own database.
    private static func addLedgerEvents(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE ledger_events (
                event_id   TEXT PRIMARY KEY NOT NULL,
                job_id     TEXT NOT NULL,
                kind       TEXT NOT NULL,
                at         TEXT NOT NULL,
                applied_at TEXT NOT NULL
            );
            """)
    }

    /// Counts take-overs of a job by this worker (another worker died or handed it over) and the last gap in
    /// its output, in seconds.
    private static func addTakeovers(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE jobs ADD COLUMN takeovers INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE jobs ADD COLUMN last_gap_s REAL;
            """)
    }

    /// Creates `jobs`, `job_outputs`, `job_events` and `job_progress` (times are ISO-8601 UTC text).
    /// The SQL is literal on purpose: a migration must create the same schema in every later release.
    private static func createV1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE jobs (
                id            TEXT PRIMARY KEY NOT NULL,
                state         TEXT NOT NULL CHECK (state IN ('received', 'running', 'retrying', 'succeeded', 'failed', 'cancelled', 'rejected')),
                attempts      INTEGER NOT NULL DEFAULT 0,
                max_attempts  INTEGER,
                priority      INTEGER,
                worker_id     TEXT,
                input         TEXT,
                spec          TEXT,
                spec_redacted TEXT,
                encoder       TEXT,
                error         TEXT,
                created_at    TEXT NOT NULL,
                updated_at    TEXT NOT NULL,
                started_at    TEXT,
                finished_at   TEXT,
                media_time_s  REAL,
                frames        INTEGER,
                bytes_in      INTEGER,
                bytes_out     INTEGER,
                dts_repairs   INTEGER,
                speed         REAL
            );
            CREATE INDEX jobs_created_at ON jobs(created_at);
            CREATE INDEX jobs_state_created_at ON jobs(state, created_at);
            CREATE INDEX jobs_worker_state ON jobs(worker_id, state);

            CREATE TABLE job_outputs (
                job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
                idx        INTEGER NOT NULL CHECK (idx >= 0),
                url        TEXT NOT NULL,
                format     TEXT,
                state      TEXT NOT NULL DEFAULT 'pending',
                bytes      INTEGER NOT NULL DEFAULT 0,
                frames     INTEGER NOT NULL DEFAULT 0,
                drops      INTEGER NOT NULL DEFAULT 0,
                reconnects INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (job_id, idx)
            );

            CREATE TABLE job_events (
                id        INTEGER PRIMARY KEY AUTOINCREMENT,
                job_id    TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
                at        TEXT NOT NULL,
                kind      TEXT NOT NULL,
                state     TEXT,
                attempt   INTEGER NOT NULL DEFAULT 0,
                worker_id TEXT,
                message   TEXT,
                data      TEXT CHECK (data IS NULL OR json_valid(data))
            );
            CREATE INDEX job_events_job_id ON job_events(job_id, id);

            CREATE TABLE job_progress (
                job_id       TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
                at           TEXT NOT NULL,
                media_time_s REAL,
                frames       INTEGER,
                bytes_out    INTEGER,
                fps          REAL,
                bitrate_kbps REAL
            );
            CREATE INDEX job_progress_job_at ON job_progress(job_id, at);
            """)
    }
}
