import Foundation
import GRDB
import Testing

@testable import JobStore

/// Stream keys and credentials never reach a database file in clear, with or without a key, and
/// `runnableSpec` (what `jobs retry` runs) says what it needs when it cannot open them.
@Suite struct SecretsAtRestTests {
    static let secretSpec = #"{"id":"s1","input":"rtmp://user:password@in.example/live/cam","outputs":["rtmp://out.example/app/SECRETKEY","s1.flv"]}"#
    static let redactedSpec = #"{"id":"s1","input":"rtmp://in.example/live/***","outputs":["rtmp://out.example/app/***","s1.flv"]}"#
    static let keys = "k1:\(SecretKeyringTests.key(1))"

    static func secretJob(id: String = "s1") -> NewJob {
        NewJob(id: id, spec: secretSpec, specRedacted: redactedSpec, input: "rtmp://in.example/live/***",
               outputs: [NewOutput(url: "rtmp://out.example/app/***", format: "flv"), NewOutput(url: "s1.flv", format: "flv")],
               workerID: "w")
    }

    static func keyring(_ text: String = keys) throws -> SecretKeyring {
        try SecretKeyring(parsing: text, source: "test")
    }

    @Test("with a key: spec is NULL, spec_sealed holds it sealed, runnableSpec opens it")
    func sealedWithKey() throws {
        let directory = try TemporaryDirectory()
        let store = try JobStore(path: directory.file("jobs.sqlite"), secrets: Self.keyring())
        #expect(try store.receive(Self.secretJob()) == .created)
        let record = try #require(try store.job(id: "s1"))
        #expect(record.spec == nil)
        #expect(record.specRedacted == Self.redactedSpec)
        #expect(record.specSealed?.hasPrefix("sealed1:k1:") == true)
        #expect(try store.runnableSpec(id: "s1") == Self.secretSpec)
        try expectNoSecrets(inFilesOf: store.path)
    }

    @Test("without a key: no secret is stored, and runnableSpec says which variable it needs")
    func droppedWithoutKey() throws {
        let directory = try TemporaryDirectory()
        let store = try JobStore(path: directory.file("jobs.sqlite"))
        #expect(try store.receive(Self.secretJob()) == .created)
        let record = try #require(try store.job(id: "s1"))
        #expect(record.spec == nil && record.specSealed == nil)
        let error = try #require(throws: JobStoreError.self) { try store.runnableSpec(id: "s1") }
        #expect(error == .secretsNotStored(jobID: "s1"))
        #expect(error.description.contains("SLUICE_SECRETS_KEY"))
        try expectNoSecrets(inFilesOf: store.path)
    }

    @Test("a job without secrets keeps its spec in clear and runs again without a key")
    func secretFreeSpecStaysRunnable() throws {
        let directory = try TemporaryDirectory()
        let store = try JobStore(path: directory.file("jobs.sqlite"))
        var job = Self.secretJob(id: "plain")
        job.spec = #"{"id":"plain","input":"in.mp4","outputs":["out.flv"]}"#
        job.specRedacted = job.spec
        _ = try store.receive(job)
        #expect(try store.job(id: "plain")?.spec == job.spec)
        #expect(try store.runnableSpec(id: "plain") == job.spec)
    }

    @Test("sealed with a key, reopened without one or with only a newer key: the error names the key to set")
    func reopenedWithoutTheKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jobs.sqlite")
        _ = try JobStore(path: path, secrets: Self.keyring()).receive(Self.secretJob())
        let without = try JobStore(path: path)
        #expect(throws: JobStoreError.secrets(jobID: "s1", .keyNotConfigured(keyID: "k1"))) { try without.runnableSpec(id: "s1") }
        let newer = try JobStore(path: path, secrets: Self.keyring("k2:\(SecretKeyringTests.key(2))"))
        #expect(throws: JobStoreError.secrets(jobID: "s1", .unknownKey(keyID: "k1", known: ["k2"]))) { try newer.runnableSpec(id: "s1") }
        let rotated = try JobStore(path: path, secrets: Self.keyring("k2:\(SecretKeyringTests.key(2)),\(Self.keys)"))
        #expect(try rotated.runnableSpec(id: "s1") == Self.secretSpec)
    }

    @Test("a rejected message is kept sealed (or not at all) and redacted in clear")
    func rejectedMessage() throws {
        let directory = try TemporaryDirectory()
        let body = #"{"id":"bad","input":"rtmp://user:password@in.example/live/cam","outputs":[],"extra":"rtmp://h/app/SECRETKEY"}"#
        let keyed = try JobStore(path: directory.file("keyed.sqlite"), secrets: Self.keyring())
        let sealed = try keyed.reject(id: "bad", spec: body, specRedacted: #"{"id":"bad"}"#, error: "outputs: empty")
        #expect(sealed.spec == nil && sealed.specSealed?.hasPrefix("sealed1:k1:") == true && sealed.specRedacted == #"{"id":"bad"}"#)
        try expectNoSecrets(inFilesOf: keyed.path)
        let plain = try JobStore(path: directory.file("plain.sqlite"))
        let dropped = try plain.reject(id: "bad", spec: body, error: "outputs: empty")
        #expect(dropped.spec == nil && dropped.specSealed == nil)
        try expectNoSecrets(inFilesOf: plain.path)
    }

    /// A database as the release before sealing wrote it: clear specs, rewritten a few times so that older copies
    /// of the rows sit in free pages too.
    static func writeOldDatabase(at path: String, jobs: Int) throws {
        let pool = try DatabasePool(path: path)
        try Schema.migrator(secrets: nil).migrate(pool, upTo: "v3-ledger")
        try pool.write { db in
            for index in 0..<jobs {
                let id = "old-\(index)"
                let spec = secretSpec.replacingOccurrences(of: #""s1""#, with: "\"\(id)\"")
                try db.execute(
                    sql: """
                        INSERT INTO jobs (id, state, attempts, spec, spec_redacted, created_at, updated_at)
                        VALUES (?, 'failed', 1, ?, ?, '2026-11-20T00:00:00.000Z', '2026-11-20T00:00:00.000Z')
                        """,
                    arguments: [id, spec + String(repeating: " ", count: 2000), redactedSpec])
            }
            try db.execute(sql: "INSERT INTO jobs (id, state, attempts, spec, spec_redacted, created_at, updated_at) VALUES ('plain', 'failed', 1, '{\"id\":\"plain\"}', '{\"id\":\"plain\"}', '2026-11-20T00:00:00.000Z', '2026-11-20T00:00:00.000Z')")
        }
        // Rewritten rows leave their older copies in pages SQLite frees but does not clear by default.
        try pool.write { db in try db.execute(sql: "UPDATE jobs SET updated_at = '2026-11-21T00:00:00.000Z'") }
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    @Test("migrating an old file with a key seals its clear specs and leaves no clear copy in any file")
    func migrationSeals() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try Self.writeOldDatabase(at: path, jobs: 40)
        #expect(try fileBytesContain(path, "SECRETKEY"), "the fixture must start with clear secrets")
        let store = try JobStore(path: path, secrets: Self.keyring())
        #expect(try store.appliedMigrations().contains("v4-sealed-specs"))
        try expectNoSecrets(inFilesOf: path)
        #expect(try store.job(id: "old-7")?.spec == nil)
        #expect(try store.runnableSpec(id: "old-7").hasPrefix(#"{"id":"old-7","input":"rtmp://user:password@"#))
        #expect(try store.runnableSpec(id: "plain") == #"{"id":"plain"}"#)
    }

    @Test("migrating an old file without a key drops the secrets and keeps the redacted specs")
    func migrationDrops() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try Self.writeOldDatabase(at: path, jobs: 40)
        let store = try JobStore(path: path)
        try expectNoSecrets(inFilesOf: path)
        let record = try #require(try store.job(id: "old-3"))
        #expect(record.spec == nil && record.specSealed == nil && record.specRedacted == Self.redactedSpec)
        #expect(throws: JobStoreError.secretsNotStored(jobID: "old-3")) { try store.runnableSpec(id: "old-3") }
    }
}

/// Whether the file at `path` holds `text`'s bytes anywhere (false when the file does not exist).
func fileBytesContain(_ path: String, _ text: String) throws -> Bool {
    guard FileManager.default.fileExists(atPath: path) else { return false }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return bytes.range(of: Data(text.utf8)) != nil
}

/// Fails unless none of the database's files (main, -wal, -shm) holds the key or the password of the fixtures.
func expectNoSecrets(inFilesOf path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for file in [path, path + "-wal", path + "-shm"] {
        for secret in ["SECRETKEY", "password"] {
            #expect(try !fileBytesContain(file, secret), "\(secret) in \(file)", sourceLocation: sourceLocation)
        }
    }
}
