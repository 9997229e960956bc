import Foundation
import JobStore
import Testing

@testable import Sluice

/// A job whose URLs carry a stream key and a password, run through the store (in-process and as
/// `sluice run`), then its events applied to a ledger: neither secret is in any byte of any database file (main,
/// -wal, -shm), while `jobs retry` still gets the whole spec back with the key and says what it needs without.
@Suite("secrets at rest")
struct SecretsAtRestTests {
    static let key = "k1:" + Data((0..<32).map { UInt8($0) }).base64EncodedString()
    static let secrets = ["SECRETKEY", "password"]

    /// A file job whose two RTMP outputs cannot connect (port 9 has no listener), one with a key, one with
    /// credentials: every output fails, so the job does, and can be retried. Read at 1x, so that the input cannot
    /// reach its end before the refusals are counted (unpaced, a 3 s clip sometimes did, and the job succeeded).
    static func document(id: String, input: String) -> String {
        #"""
        {"id": "\#(id)", "input": {"url": "\#(input)", "realtime": true}, "reconnect": {"attempts": 0},
         "outputs": ["rtmp://127.0.0.1:9/app/SECRETKEY", "rtmp://user:password@127.0.0.1:9/live/cam"]}
        """#
    }

    /// Every database file that exists for `path`, with whether each secret is in its bytes.
    static func leaks(_ path: String) throws -> [String] {
        var found: [String] = []
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for secret in secrets where bytes.range(of: Data(secret.utf8)) != nil { found.append("\(secret) in \(file)") }
        }
        return found
    }

    @Test("in-process: the worker's store and a ledger fed its events hold neither the key nor the password")
    func storeAndLedger() throws {
        let folder = Fixtures.scratch("secrets")
        let keyring = try SecretKeyring(parsing: Self.key, source: "test")
        let store = try JobStore(path: folder + "/worker.sqlite", secrets: keyring)
        let transitions = Transitions()
        let runner = JobRunner(store: store, workerID: "w-secret", paths: .trusted, storeInterval: 0.2) { transition in
            transitions.append(transition)
        }
        let input = try Fixtures.mp4BFrames()
        let outcome = try runner.run(document: Data(Self.document(id: "secret-1", input: input).utf8))
        #expect(outcome.exitCode == 1, "both RTMP outputs are refused: \(outcome)")

        // The store is still open: its -wal and -shm exist now, as they do under a running worker.
        #expect(FileManager.default.fileExists(atPath: store.path + "-wal"))
        #expect(try Self.leaks(store.path) == [])
        // Kept sealed, not dropped: `jobs retry` gets the whole spec back.
        #expect(try store.runnableSpec(id: "secret-1").contains("rtmp://user:password@127.0.0.1:9/live/cam"))

        let ledger = try JobStore(path: folder + "/ledger.sqlite")
        let published = transitions.all
        #expect(published.map { $0.job.state } == [.running, .failed])
        for transition in published {
            let event = JobEvent(job: transition.job, outputs: try store.outputs(jobID: "secret-1"), eventID: transition.event.eventID)
            for secret in Self.secrets { #expect(!event.body.jsonText().contains(secret)) }
            #expect(try ledger.apply(LedgerEntry(parsingEvent: event.json)) == .applied)
        }
        #expect(try ledger.job(id: "secret-1")?.state == .failed)
        #expect(try Self.leaks(ledger.path) == [])
    }

    @Test("sluice run with SLUICE_SECRETS_KEY, then jobs retry without the key and with it")
    func runThenRetry() throws {
        let folder = Fixtures.scratch("secrets-cli")
        let db = folder + "/run.sqlite"
        let job = folder + "/job.json"
        try Self.document(id: "secret-2", input: try Fixtures.mp4BFrames()).write(toFile: job, atomically: true, encoding: .utf8)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", db, job], environment: ["SLUICE_SECRETS_KEY": Self.key], check: false)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        for secret in Self.secrets { #expect(!run.stderr.contains(secret), "stderr: \(run.stderr)") }
        #expect(try Self.leaks(db) == [])

        // A broker nobody listens on: with the key, retry gets past the secrets and fails only at the broker.
        let broker = ["SLUICE_AMQP_URL": "amqp://guest:guest@127.0.0.1:9/"]
        let without = try Command.run(Command.sluiceBinary, ["jobs", "retry", "--db", db, "secret-2"], environment: broker, check: false)
        #expect(without.status == 1)
        #expect(without.stderr.contains("sealed with key 'k1'") && without.stderr.contains("SLUICE_SECRETS_KEY"), "stderr: \(without.stderr)")
        let with = try Command.run(Command.sluiceBinary, ["jobs", "retry", "--db", db, "secret-2"],
                                   environment: broker.merging(["SLUICE_SECRETS_KEY": Self.key]) { $1 }, check: false)
        #expect(with.status == 1)
        #expect(with.stderr.contains("not enqueued") || with.stderr.contains("broker"), "stderr: \(with.stderr)")
        #expect(!with.stderr.contains("SLUICE_SECRETS_KEY"), "stderr: \(with.stderr)")
        for secret in Self.secrets { #expect(!with.stderr.contains(secret) && !without.stderr.contains(secret)) }
    }

    @Test("sluice run without a key keeps no secret, and jobs retry says which variable it needs")
    func runWithoutKey() throws {
        let folder = Fixtures.scratch("secrets-nokey")
        let db = folder + "/run.sqlite"
        let job = folder + "/job.json"
        try Self.document(id: "secret-3", input: try Fixtures.mp4BFrames()).write(toFile: job, atomically: true, encoding: .utf8)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", db, job], check: false)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(try Self.leaks(db) == [])
        let retry = try Command.run(Command.sluiceBinary, ["jobs", "retry", "--db", db, "secret-3"],
                                    environment: ["SLUICE_AMQP_URL": "amqp://guest:guest@127.0.0.1:9/"], check: false)
        #expect(retry.status == 1)
        #expect(retry.stderr.contains("were not stored") && retry.stderr.contains("SLUICE_SECRETS_KEY"), "stderr: \(retry.stderr)")
    }
}

/// The transitions a runner reports, from its threads; `@unchecked Sendable` because every access holds `lock`.
final class Transitions: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CommittedTransition] = []

    func append(_ transition: CommittedTransition) { lock.withLock { items.append(transition) } }
    var all: [CommittedTransition] { lock.withLock { items } }
}
