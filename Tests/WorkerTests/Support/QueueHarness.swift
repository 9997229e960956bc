import Foundation
import SluiceTestSupport
import Testing
@testable import JobQueue
import JobStore

extension Subprocess {
    /// The `sluice` binary built by `scripts/test` (SLUICE_BIN), or the debug build next to the tests.
    static var sluice: String {
        if let path = ProcessInfo.processInfo.environment["SLUICE_BIN"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../.build/debug/sluice").standardizedFileURL.path
    }
}

/// Media made with the ffmpeg CLI once per test process; the folder is every worker's input root.
enum Media {
    static let inputRoot: String = {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("worker-media-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [Int: Task<String, any Error>] = [:]

    /// `clip-N.mp4`: N seconds of 320x240 H.264 (1 s GOP) with AAC; returns the file name under `inputRoot`.
    static func clip(seconds: Int) async throws -> String {
        let task = lock.withLock {
            if let task = made[seconds] { return task }
            let task = Task { try await makeClip(seconds: seconds) }
            made[seconds] = task
            return task
        }
        return try await task.value
    }

    private static func makeClip(seconds: Int) async throws -> String {
            let name = "clip-\(seconds).mp4"
            let path = (inputRoot as NSString).appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: path) {
                _ = try await Subprocess.check("ffmpeg", [
                    "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-t", String(seconds), "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-shortest", path + ".tmp.mp4",
                ])
                try FileManager.default.moveItem(atPath: path + ".tmp.mp4", toPath: path)
            }
            return name
    }

    /// Decoded video frame hashes (ffmpeg framemd5), the referee for "the output is complete and lossless".
    static func videoHashes(_ path: String) async throws -> [String] {
        var options: [String] = []
        if path.hasSuffix(".mp4") { options = ["-ignore_editlist", "1"] }
        let text = try await Subprocess.check("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error"] + options
            + ["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            return line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The container duration ffprobe reads, in seconds.
    static func duration(_ path: String) async throws -> Double {
        let text = try await Subprocess.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}

/// One test's world: its own vhost, folders, database, event tap and publisher, and the workers it starts.
final class QueueHarness: @unchecked Sendable {
    // Reason: `workers` is guarded by `lock`; everything else is immutable after init.
    let vhost: String
    let folder: String
    let outputRoot: String
    let database: String
    let store: JobStore
    let configuration: BrokerConfiguration
    let publisher: BrokerConnection
    let events: EventTap
    private let lock = NSLock()
    private var workers: [WorkerProcess] = []

    /// The broker URL of this test's vhost, as the CLI takes it.
    var url: String {
        let base = configuration.url
        return "amqp://\(base.user):\(base.password)@\(base.host):\(base.port)/\(vhost)"
    }

    /// - Parameters:
    ///   - name: the test's vhost (this process's own, `PrivateBroker.vhost`), created afresh.
    ///   - jobsQueueType: how the harness's publisher declares `sluice.jobs` (workers must agree).
    init(_ name: String, jobsQueueType: JobsQueueType = .classic) async throws {
        // This process's own name for it: a vhost of the same name that an earlier run on this broker left (CI's
        // tests stage, before its ThreadSanitizer stage) is never deleted and made again at once, which RabbitMQ
        // can leave "down" for good (its old message store still stopping as the new one starts).
        let vhost = PrivateBroker.vhost(name)
        self.vhost = vhost
        let base = try BrokerURL(parsing: try #require(PrivateBroker.url))
        try await PrivateBroker.ctl(["eval", """
            _ = (catch rabbit_vhost:delete(<<"\(vhost)">>, <<"tests">>)), \
            ok = rabbit_vhost:add(<<"\(vhost)">>, <<"tests">>), \
            rabbit_auth_backend_internal:set_permissions(<<"\(base.user)">>, <<"\(vhost)">>, \
            <<".*">>, <<".*">>, <<".*">>, <<"tests">>).
            """])
        var url = base
        url.vhost = vhost
        var configuration = BrokerConfiguration(url: url, connectionName: "worker-tests-\(vhost)")
        configuration.consumesJobs = false
        configuration.consumesControl = false
        configuration.jobsQueueType = jobsQueueType
        self.configuration = configuration

        let workBase = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        folder = (workBase as NSString).appendingPathComponent("worker-\(vhost)-\(UUID().uuidString.prefix(6))")
        outputRoot = (folder as NSString).appendingPathComponent("out")
        try FileManager.default.createDirectory(atPath: outputRoot, withIntermediateDirectories: true)
        database = (folder as NSString).appendingPathComponent("jobs.sqlite")
        // Created (and migrated) here first, so the worker and the test never race on the schema.
        store = try JobStore(path: database)

        events = try EventTap(configuration: configuration)
        publisher = BrokerConnection(configuration: configuration, logger: { _ in })
        publisher.start()
    }

    deinit {
        for worker in lock.withLock({ workers }) { worker.kill(SIGKILL) }
        publisher.close()
        events.stop()
    }

    /// Starts `sluice worker` on this vhost; `extra` adds or overrides options, `environment` adds variables.
    func startWorker(id: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> WorkerProcess {
        let log = (folder as NSString).appendingPathComponent("worker-\(id)-\(lock.withLock { workers.count }).log")
        let worker = try WorkerProcess(environment: QueueHarness.secretsEnvironment.merging(environment) { $1 }, arguments: [
            "worker", "--amqp-url", url, "--db", database, "--input-root", Media.inputRoot,
            "--output-root", outputRoot, "--worker-id", id, "--retry-delay-s", "0.2", "--progress-s", "1",
            // Take-overs within seconds, so the tests of dead workers stay short.
            "--lease-orphan-s", "8",
        ] + extra, log: log)
        lock.withLock { workers.append(worker) }
        return worker
    }

    /// Publishes a raw job body with a confirm (no validation: malformed bodies are what some tests send).
    func enqueue(_ body: String, priority: UInt8? = nil) async throws {
        try await publisher.publishJob(Array(body.utf8), priority: priority)
    }

    /// Runs a `sluice` admin command against this vhost and database, with the workers' secrets key.
    func sluice(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await Subprocess.run(Subprocess.sluice, arguments, environment: QueueHarness.secretsEnvironment)
    }

    /// The secrets key every worker and admin command of the tests runs with, as an operator sets it.
    static let secretsEnvironment = ["SLUICE_SECRETS_KEY": "k1:" + Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()]

    /// Whether any of the database's files (main, -wal, -shm) holds `text`'s bytes.
    func databaseFilesContain(_ text: String) throws -> Bool {
        try [database, database + "-wal", database + "-shm"].contains { file in
            guard FileManager.default.fileExists(atPath: file) else { return false }
            return try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(text.utf8)) != nil
        }
    }

    /// The `.part` files anywhere under the output root.
    func partFiles() -> [String] {
        let walker = FileManager.default.enumerator(atPath: outputRoot)
        var parts: [String] = []
        while let path = walker?.nextObject() as? String {
            if (path as NSString).lastPathComponent.hasSuffix(".part") { parts.append(path) }
        }
        return parts
    }

    func job(_ id: String) throws -> JobRecord? { try store.job(id: id) }

    func output(_ name: String) -> String { (outputRoot as NSString).appendingPathComponent(name) }

    func counts() async throws -> [String: Int] { try await PrivateBroker.messageCounts(vhost: vhost) }

    /// Messages ready for a consumer (neither delivered nor unacked) per queue.
    func readyCounts() async throws -> [String: Int] {
        try await PrivateBroker.messageCounts(vhost: vhost, column: "messages_ready")
    }

    /// Jobs waiting (ready or unacked) in `sluice.jobs` and in the class queues the workers triage it into.
    func queued() async throws -> Int {
        let counts = try await counts()
        return [Topology.jobsQueue, Topology.liveQueue, Topology.batchQueue, Topology.encodeQueue].reduce(0) { $0 + (counts[$1] ?? 0) }
    }

    /// Messages in `sluice.jobs.dead`, taken off the queue: each body with its `x-sluice-reason`.
    func deadLetters(count: Int, timeout: Duration = .seconds(10)) async throws -> [(body: String, reason: String?)] {
        let connection = try AMQPConnection(configuration: configuration)
        _ = try connection.consume(queue: Topology.deadQueue, autoAck: true)
        var found: [(String, String?)] = []
        let deadline = ContinuousClock.now + timeout
        while found.count < count, ContinuousClock.now < deadline {
            if case let .delivery(_, _, _, _, body, headers, _) = try connection.nextEvent() {
                found.append((String(decoding: body, as: UTF8.self), headers[Topology.reasonHeader]))
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return found
    }
}

/// `sluice worker` as a child process; its standard error goes to a file the test reads.
final class WorkerProcess: @unchecked Sendable {
    // Reason: `process` is started in init and afterwards only queried or signalled, which Foundation allows.
    private let process = Process()
    let logPath: String

    init(environment: [String: String] = [:], arguments: [String], log: String) throws {
        logPath = log
        guard FileManager.default.createFile(atPath: log, contents: nil) else {
            throw Subprocess.Failure(command: "create \(log)", output: "")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.executableURL = URL(fileURLWithPath: Subprocess.sluice)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    var isRunning: Bool { process.isRunning }

    var pid: Int32 { process.processIdentifier }

    /// The files the process has mapped now (/proc/PID/maps: its executable, the shared libraries it loaded).
    func mappedFiles() throws -> Set<String> {
        // Read to the end: procfs reports a size of 0, and reading a file whole by its size would stop after a page.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        // A line is "address perms offset device inode path"; only the path has a slash.
        return Set(maps.split(separator: "\n").compactMap { line in line.firstIndex(of: "/").map { String(line[$0...]) } })
    }

    /// The names of the process's threads now.
    func threadNames() -> [String] { WorkerProcess.threadNames(of: "\(pid)") }

    /// The names of a process's threads now (/proc/PROCESS/task/TID/comm; "self" for this one).
    static func threadNames(of process: String) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(process)/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func kill(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// The exit status once the process ended, or nil if it is still running after `timeout`.
    func exitStatus(within timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// Every event on `sluice.events` of one vhost, read on a thread of its own through a queue bound with `#`.
final class EventTap: @unchecked Sendable {
    // Reason: `received` and `running` are guarded by `lock`; `connection` is used only by the tap thread
    // once it has started.
    struct Event: Sendable {
        let kind: String
        let id: String
        let state: String
        let attempt: Int
        let json: String
    }

    private let lock = NSLock()
    private var received: [Event] = []
    private var running = true
    private let stopped = DispatchSemaphore(value: 0)

    init(configuration: BrokerConfiguration) throws {
        let connection = try AMQPConnection(configuration: configuration)
        try connection.declare(.exchange(name: Topology.eventsExchange, type: "topic"))
        try connection.declare(.queue(name: "test.events", arguments: []))
        try connection.declare(.binding(queue: "test.events", exchange: Topology.eventsExchange, routingKey: "#"))
        _ = try connection.consume(queue: "test.events", autoAck: true)
        // Handed over to the tap thread, the only one that touches it from here on.
        nonisolated(unsafe) let owned = connection
        let thread = Thread { [self] in
            defer { stopped.signal() }
            while lock.withLock({ running }) {
                do {
                    if case let .delivery(_, _, _, _, body, _, _) = try owned.nextEvent() {
                        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { continue }
                        let event = Event(kind: object["event"] as? String ?? "", id: object["id"] as? String ?? "",
                                          state: object["state"] as? String ?? "", attempt: object["attempt"] as? Int ?? -1,
                                          json: String(decoding: body, as: UTF8.self))
                        lock.withLock { received.append(event) }
                    } else {
                        usleep(10_000)
                    }
                } catch {
                    lock.withLock { received.append(Event(kind: "tap.error", id: "", state: "", attempt: -1, json: "\(error)")) }
                    return
                }
            }
        }
        thread.name = "event-tap"
        thread.start()
    }

    var all: [Event] { lock.withLock { received } }

    func of(_ id: String) -> [Event] { all.filter { $0.id == id } }

    func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        if wasRunning { stopped.wait() }
    }
}
