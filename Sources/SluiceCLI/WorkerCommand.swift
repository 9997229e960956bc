import ArgumentParser
import Foundation
import MediaFormats
import JobQueue
import JobStore
import LiveRelay
import MediaEngine
import Sluice
import SluiceHTTP
import MediaJob
import JobDocument

/// `--amqp-url`, shared by every command that talks to the broker (environment: SLUICE_AMQP_URL).
struct BrokerOptions: ParsableArguments {
    @Option(name: .customLong("amqp-url"), help: ArgumentHelp("RabbitMQ URL, amqp:// or amqps:// (env SLUICE_AMQP_URL).", valueName: "url"))
    var amqpURL: String = ProcessInfo.processInfo.environment["SLUICE_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2F"

    @Option(name: .customLong("amqp-ca"), help: ArgumentHelp("CA file for amqps:// peer verification (env SLUICE_AMQP_CA).", valueName: "path"))
    var caCertPath: String = ProcessInfo.processInfo.environment["SLUICE_AMQP_CA"] ?? ""

    @Option(name: .customLong("jobs-queue-type"), help: ArgumentHelp("How sluice.jobs is declared: classic (priorities 0…9) or quorum (replicated, delivery limit); the same on every client of the broker (env SLUICE_JOBS_QUEUE_TYPE).", valueName: "type"))
    var jobsQueueType: String = ProcessInfo.processInfo.environment["SLUICE_JOBS_QUEUE_TYPE"] ?? "classic"

    @Option(name: .customLong("jobs-delivery-limit"), help: ArgumentHelp("Quorum queue only: deliveries of one job message before the broker dead-letters it (env SLUICE_JOBS_DELIVERY_LIMIT).", valueName: "n"))
    var jobsDeliveryLimit: Int = Int(ProcessInfo.processInfo.environment["SLUICE_JOBS_DELIVERY_LIMIT"] ?? "") ?? Topology.defaultDeliveryLimit

    /// The parsed URL; a bad URL is a usage error whose message never quotes the URL (it may hold a password).
    func configuration() throws -> BrokerConfiguration {
        guard let queueType = JobsQueueType(name: jobsQueueType, deliveryLimit: jobsDeliveryLimit) else {
            throw ValidationError(
                "--jobs-queue-type must be classic or quorum and --jobs-delivery-limit at least 1, got \(jobsQueueType) and \(jobsDeliveryLimit)")
        }
        do {
            var configuration = BrokerConfiguration(url: try BrokerURL(parsing: amqpURL))
            configuration.caCertPath = caCertPath.isEmpty ? nil : caCertPath
            configuration.jobsQueueType = queueType
            return configuration
        } catch {
            throw ValidationError("--amqp-url: \(error)")
        }
    }

    /// A connection that only publishes (no consumers) and fails fast if the broker cannot be reached.
    func publisher() throws -> BrokerConnection {
        var configuration = try configuration()
        configuration.consumesJobs = false
        configuration.consumesControl = false
        configuration.maxConnectAttempts = 3
        configuration.connectionName = "sluice-cli"
        return BrokerConnection(configuration: configuration, logger: { printError("sluice: \($0)") })
    }
}

/// Runs an async body from a synchronous command (the CLI's commands are synchronous).
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    guard let result else { throw ExitCode(1) }
    return try result.get()
}

struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Consume jobs from RabbitMQ, run them, record them in SQLite and publish their events.",
        discussion: """
            SIGTERM/SIGINT stop consuming and give running jobs --grace-s seconds to finish; then they are \
            interrupted and requeued, and the process exits at most 8 s later whatever the broker or the database \
            do. A second signal interrupts at once. Paths stay inside --input-root and \
            --output-root. Every option also reads its environment variable.
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var broker: BrokerOptions
    @OptionGroup var service: ServiceOptions

    @Option(name: [.customLong("batch-slots"), .customLong("concurrency")],
            help: ArgumentHelp("Batch jobs (file input) run at once; --concurrency is its older name; 0 runs none (env SLUICE_BATCH_SLOTS, or SLUICE_CONCURRENCY).", valueName: "n"))
    var batchSlots: Int = Int(ProcessInfo.processInfo.environment["SLUICE_BATCH_SLOTS"] ?? "")
        ?? Int(ProcessInfo.processInfo.environment["SLUICE_CONCURRENCY"] ?? "") ?? 1

    @Option(name: .customLong("live-slots"), help: ArgumentHelp("Live jobs (RTMP pull or listen input) that encode no video, run at once beside the other classes; 0 runs none (env SLUICE_LIVE_SLOTS).", valueName: "n"))
    var liveSlots: Int = Int(ProcessInfo.processInfo.environment["SLUICE_LIVE_SLOTS"] ?? "") ?? WorkerConfiguration.defaultLiveSlots

    @Option(name: .customLong("encode-slots"), help: ArgumentHelp("Encode budget for live jobs that encode video, in 720p30-equivalents (1080p30 costs 3); default one per core; 0 runs none (env SLUICE_ENCODE_SLOTS).", valueName: "units"))
    var encodeSlots: Int = Int(ProcessInfo.processInfo.environment["SLUICE_ENCODE_SLOTS"] ?? "") ?? WorkerConfiguration.defaultEncodeSlots

    @Option(name: .customLong("input-root"), help: ArgumentHelp("Input paths must lie under this folder (env SLUICE_INPUT_ROOT).", valueName: "dir"))
    var inputRoot: String = ProcessInfo.processInfo.environment["SLUICE_INPUT_ROOT"] ?? FileManager.default.currentDirectoryPath

    @Option(name: .customLong("output-root"), help: ArgumentHelp("Output paths must lie under this folder (env SLUICE_OUTPUT_ROOT).", valueName: "dir"))
    var outputRoot: String = ProcessInfo.processInfo.environment["SLUICE_OUTPUT_ROOT"] ?? FileManager.default.currentDirectoryPath

    @Option(name: .customLong("worker-id"), help: ArgumentHelp("This worker's id in the database and events (env SLUICE_WORKER_ID).", valueName: "id"))
    var workerID: String = ProcessInfo.processInfo.environment["SLUICE_WORKER_ID"] ?? "\(ProcessInfo.processInfo.hostName)-worker"

    @Option(name: .customLong("grace-s"), help: ArgumentHelp("Seconds running jobs may finish after SIGTERM (env SLUICE_GRACE_S).", valueName: "s"))
    var graceSeconds: Double = Double(ProcessInfo.processInfo.environment["SLUICE_GRACE_S"] ?? "") ?? 30

    @Option(name: .customLong("lease-orphan-s"), help: ArgumentHelp("TTL of a lease's claim: once the broker drops a worker's connection (kill -9, crash), its jobs are taken over within this long of their last renewal (every third of it); a worker that lost the broker keeps its jobs this long at most, one cut off from it its heartbeat timeout (env SLUICE_LEASE_ORPHAN_S).", valueName: "s"))
    var leaseOrphanSeconds: Double = Double(ProcessInfo.processInfo.environment["SLUICE_LEASE_ORPHAN_S"] ?? "") ?? 3

    @Option(name: .customLong("stale-part-age-s"), help: ArgumentHelp("Temporary output files (.part) nobody has written for this long, held open by no writer and of a job whose lease nobody holds, are removed from the output root at start and every 10 minutes (env SLUICE_STALE_PART_AGE_S).", valueName: "s"))
    var stalePartAgeSeconds: Double = Double(ProcessInfo.processInfo.environment["SLUICE_STALE_PART_AGE_S"] ?? "") ?? 86_400

    @Option(name: .customLong("retry-delay-s"), help: ArgumentHelp("First retry backoff in seconds; it doubles per attempt, up to 300 (env SLUICE_RETRY_DELAY_S).", valueName: "s"))
    var retryDelaySeconds: Double = Double(ProcessInfo.processInfo.environment["SLUICE_RETRY_DELAY_S"] ?? "") ?? 5

    @Option(name: .customLong("progress-s"), help: ArgumentHelp("Seconds between job.progress events (env SLUICE_PROGRESS_S).", valueName: "s"))
    var progressSeconds: Double = Double(ProcessInfo.processInfo.environment["SLUICE_PROGRESS_S"] ?? "") ?? 5

    @Option(name: .customLong("http"), help: ArgumentHelp("Serve /metrics, /healthz and the admin page on HOST:PORT; off when empty (env SLUICE_HTTP).", valueName: "host:port"))
    var http: String = ProcessInfo.processInfo.environment["SLUICE_HTTP"] ?? ""

    @Option(name: .customLong("min-free-mb"), help: ArgumentHelp("/healthz is unhealthy when the output root or the database's volume has less free space, in MB (env SLUICE_MIN_FREE_MB).", valueName: "mb"))
    var minFreeMB: Int = Int(ProcessInfo.processInfo.environment["SLUICE_MIN_FREE_MB"] ?? "") ?? 512

    func validate() throws {
        guard (0...(1 << 30)).contains(minFreeMB) else { throw ValidationError("--min-free-mb must be 0…\(1 << 30), got \(minFreeMB)") }
        guard (0...256).contains(batchSlots) else { throw ValidationError("--batch-slots (--concurrency) must be 0…256, got \(batchSlots)") }
        guard (0...4096).contains(liveSlots) else { throw ValidationError("--live-slots must be 0…4096, got \(liveSlots)") }
        guard (0...1024).contains(encodeSlots) else { throw ValidationError("--encode-slots must be 0…1024, got \(encodeSlots)") }
        guard batchSlots + liveSlots + encodeSlots > 0 else {
            throw ValidationError("--batch-slots, --live-slots and --encode-slots cannot all be 0")
        }
        guard graceSeconds >= 0, graceSeconds <= 86_400 else { throw ValidationError("--grace-s must be 0…86400") }
        guard leaseOrphanSeconds >= 2, leaseOrphanSeconds <= 600 else { throw ValidationError("--lease-orphan-s must be 2…600") }
        guard retryDelaySeconds > 0, retryDelaySeconds <= 300 else { throw ValidationError("--retry-delay-s must be in (0, 300]") }
        guard progressSeconds > 0 else { throw ValidationError("--progress-s must be positive") }
        // At least an hour: a writer that is alive touches its part far more often than that.
        guard stalePartAgeSeconds >= 3600, stalePartAgeSeconds <= 31_536_000 else {
            throw ValidationError("--stale-part-age-s must be 3600…31536000")
        }
        guard http.isEmpty || ListenAddress(parsing: http) != nil else { throw ValidationError("--http must be HOST:PORT, got \(http)") }
        guard JobSpec.isValidID(workerID) else {
            throw ValidationError("--worker-id must match \(JobSpec.idPattern)")
        }
        for (name, root) in [("--input-root", inputRoot), ("--output-root", outputRoot)] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("\(name) \(root) is not a directory")
            }
        }
    }

    /// The volumes /healthz watches: the output root and the database's folder (each named on its own).
    func freeSpaceFloors(database: String) -> [FreeSpaceFloor] {
        let minimum = UInt64(minFreeMB) * 1_048_576
        let databaseFolder = PathText.parent(database)
        return [FreeSpaceFloor(name: "output root", path: outputRoot, minimumBytes: minimum),
                FreeSpaceFloor(name: "database folder", path: databaseFolder.isEmpty ? "." : databaseFolder, minimumBytes: minimum)]
    }

    /// How long past the grace and the worker's own stop bound the watchdog waits: time to log and return.
    static let watchdogMargin = Duration.seconds(5)

    func run() throws {
        let log = service.startLogging(as: workerID)
        var brokerConfiguration = try broker.configuration()
        // The intake (sluice.jobs) is only triaged into the class queues: a few in flight keep it moving.
        brokerConfiguration.prefetch = 16
        brokerConfiguration.heartbeatSeconds = service.heartbeatSeconds
        brokerConfiguration.leaseTiming = LeaseTiming(orphanAfter: .milliseconds(Int64(leaseOrphanSeconds * 1000)))
        brokerConfiguration.connectionName = "sluice-worker \(workerID)"
        let store = try database.open()
        // libav and libsrt are opened on a job's first need; whether they can be is checked now, in a child process.
        let libraryProblems = LibraryCheck.problems()
        if libraryProblems.isEmpty {
            log("codec libraries: libav and libsrt load (checked in a child process; this one opens them on first use)")
        }
        for problem in libraryProblems { log(problem, level: .warning) }

        var configuration = WorkerConfiguration(workerID: workerID, batchSlots: batchSlots, liveSlots: liveSlots,
                                                encodeSlots: encodeSlots,
                                                paths: .rooted(inputRoot: inputRoot, outputRoot: outputRoot))
        brokerConfiguration.classPrefetch = configuration.classPrefetch
        configuration.grace = .milliseconds(ClockConversion.milliseconds(graceSeconds))
        let base = Duration.milliseconds(ClockConversion.milliseconds(retryDelaySeconds))
        configuration.retryBackoff = RetryBackoff(base: base, cap: max(base, .seconds(300)))
        configuration.progressEventInterval = progressSeconds
        configuration.stalePartAge = .milliseconds(ClockConversion.milliseconds(stalePartAgeSeconds))
        // Live HLS outputs publish their playlists here for the HTTP server, which is the only reader.
        let livePlaylists = ListenAddress(parsing: http) == nil ? nil : LivePlaylistRegistry()
        configuration.livePlaylists = livePlaylists
        let connection = BrokerConnection(configuration: brokerConfiguration, logger: { log($0) })
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        // One relay engine for the whole process, shut down when the worker stopped.
        let relayEngine = RelayEngine(RelaySettings(environment: ProcessInfo.processInfo.environment))
        defer { relayEngine.shutdown() }
        let worker = Worker(configuration: configuration, store: store, broker: connection, log: log, metrics: metrics,
                            relayEngine: relayEngine)
        var server: AdminServer?
        if let address = ListenAddress(parsing: http) {
            server = try ServiceLoop.start(
                AdminServer(address: address, store: store, registry: registry, metrics: metrics,
                            brokerStatus: { ServiceLoop.status(of: connection) }, logger: log.logger,
                            freeSpaceFloors: freeSpaceFloors(database: store.path), livePlaylists: livePlaylists,
                            healthNotes: libraryProblems),
                serving: "/metrics, /healthz, the admin page and live HLS (/hls/)", log: log)
        }
        // The worker stops within the grace plus its overrun by itself; the watchdog is for a bound that did not hold.
        let stopWithin = configuration.grace + configuration.stopOverrun + Self.watchdogMargin
        try ServiceLoop.run(shutdown: { worker.shutdown() }, server: server, stopWithin: stopWithin) { await worker.run() }
    }
}
