// The worker's HTTP server — /metrics, /healthz, the admin page at / and /jobs/ID (a WHEP output played at
// /jobs/ID/watch/N), live HLS at /hls/ (LiveHLSRoutes).
// Handlers run on Swift's cooperative pool, so store reads hop to a serial queue of their own and the write
// probe to its own thread: nothing here blocks a pool thread or runs media work.
import Foundation
import Hummingbird
import JobStore
import Logging
import MediaJob
import NIOCore
import ServiceLifecycle
import Sluice
import NIOConcurrencyHelpers

/// Serves the worker's metrics, health and read-only admin pages over HTTP/1.1.
public final class AdminServer: @unchecked Sendable {
    // Reason: `task` and `group` are guarded by `lock`; everything else is immutable and Sendable.
    private let address: ListenAddress
    private let store: JobStore
    private let registry: MetricsRegistry
    private let metrics: WorkerMetrics?
    private let brokerStatus: @Sendable () -> BrokerStatus
    private let health: HealthCheck
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let livePlaylists: LivePlaylistRegistry?

    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var group: ServiceGroup?

    /// Store reads leave the cooperative pool here; one at a time keeps the admin page's load on SQLite small.
    private static let reads = DispatchQueue(label: "sluice-http-store")

    /// The most jobs `/` lists (`?limit=` may ask for fewer or more, up to `maxJobs`).
    static let defaultJobs = 50
    static let maxJobs = 500
    /// A job page shows at most this many events and chart points.
    static let maxEvents = 300
    static let maxChartPoints = 400

    /// - Parameters:
    ///   - address: where to listen (port 0 picks one).
    ///   - store: the job database (read, and probed for writes by `/healthz`).
    ///   - registry: what `/metrics` renders.
    ///   - metrics: told the broker's state on every scrape; nil when nothing feeds the registry.
    ///   - brokerStatus: the broker connection's state.
    ///   - logger: the server's own messages.
    ///   - healthDeadline: how long `/healthz` waits for the database's write lock.
    ///   - now: the clock for ages on the admin page.
    ///   - freeSpaceFloors: volumes `/healthz` wants to keep space free.
    ///   - livePlaylists: the running jobs' live HLS outputs, served under `/hls/`; nil serves none.
    ///   - healthNotes: what the worker cannot do though healthy (a library it cannot load), on every `/healthz` answer.
    public init(address: ListenAddress, store: JobStore, registry: MetricsRegistry, metrics: WorkerMetrics?,
                brokerStatus: @escaping @Sendable () -> BrokerStatus, logger: Logger,
                healthDeadline: Duration = .seconds(2), now: @escaping @Sendable () -> Date = { Date() },
                freeSpaceFloors: [FreeSpaceFloor] = [], livePlaylists: LivePlaylistRegistry? = nil, healthNotes: [String] = []) {
        self.livePlaylists = livePlaylists
        self.address = address
        self.store = store
        self.registry = registry
        self.metrics = metrics
        self.brokerStatus = brokerStatus
        self.logger = logger
        self.now = now
        health = HealthCheck(store: store, brokerStatus: brokerStatus, deadline: healthDeadline, floors: freeSpaceFloors,
                             notes: healthNotes)
    }

    /// Starts listening and returns the bound address once the socket is open; throws if it cannot bind.
    public func start() async throws -> ListenAddress {
        let bound = BoundAddress()
        var serverLogger = logger
        // Hummingbird's own start line would repeat ours.
        serverLogger.logLevel = .warning
        let app = Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: "sluice"),
            onServerRunning: { [address] channel in
                bound.resolve(.success(ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)))
            },
            logger: serverLogger
        )
        // No signals: the worker handles SIGTERM itself and stops the server after its jobs.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: serverLogger))
        let task = Task {
            do {
                try await group.run()
                bound.resolve(.failure(AdminServerError.stopped))
            } catch {
                bound.resolve(.failure(AdminServerError.cannotListen(address: address.description, reason: "\(error)")))
            }
        }
        lock.withLock {
            self.task = task
            self.group = group
        }
        return try await bound.value()
    }

    /// Stops listening, lets requests in flight finish, and waits until the server has shut down.
    public func stop() async {
        let (task, group) = lock.withLock { (self.task, self.group) }
        await group?.triggerGracefulShutdown()
        await task?.value
    }

    // MARK: Routes

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/metrics") { [self] _, _ in
            let status = brokerStatus()
            metrics?.broker(connected: status.connected, generation: status.generation,
                            channelErrors: status.channelErrors, leasesHeld: status.leasesHeld)
            return Self.response(.ok, bytes: registry.exposition(), type: MetricsRegistry.contentType)
        }
        router.get("/healthz") { [self] _, _ in
            let report = await health.check()
            return Self.response(report.isHealthy ? .ok : .serviceUnavailable, text: report.body)
        }
        router.get("/") { [self] request, _ in
            let query = request.uri.queryParameters
            let filter = query["state"].flatMap { JobState(rawValue: String($0)) }
            let limit = query["limit"].flatMap { Int(String($0)) }.map { min(max($0, 1), Self.maxJobs) } ?? Self.defaultJobs
            let slots = metrics?.slotUsage ?? []
            return try await page { [store, now] () throws(JobStoreError) -> String? in
                let jobs = try store.jobs(state: filter, limit: limit)
                return JobListPage(jobs: jobs, tallies: try store.outputTallies(jobIDs: jobs.map(\.id)),
                                   counts: try store.stateCounts(), filter: filter, limit: limit, now: now(),
                                   slots: slots).html()
            }
        }
        router.get("/jobs/:id") { [self] _, context in
            let id = context.parameters.get("id") ?? ""
            return try await page { [store, now] () throws(JobStoreError) -> String? in
                guard let job = try store.job(id: id) else { return nil }
                return JobDetailPage(job: job, outputs: try store.outputs(jobID: id),
                                     events: try store.events(jobID: id, limit: Self.maxEvents), eventLimit: Self.maxEvents,
                                     samples: try store.progress(jobID: id, maxPoints: Self.maxChartPoints), now: now()).html()
            } notFound: {
                NotFoundPage.html(id: id)
            }
        }
        router.get("/jobs/:id/watch/:index") { [self] _, context in
            let id = context.parameters.get("id") ?? ""
            let index = context.parameters.get("index").flatMap { Int($0) } ?? -1
            return try await page { [store] () throws(JobStoreError) -> String? in
                guard let job = try store.job(id: id) else { return nil }
                return WatchPage(job: job, outputs: try store.outputs(jobID: id), index: index)?.html()
            } notFound: {
                NotFoundPage.html(id: id, output: index)
            }
        }
        if let livePlaylists { LiveHLSRoutes(registry: livePlaylists).add(to: router) }
        return router
    }

    /// Renders a page from store reads made off the cooperative pool; a store failure is a 500 naming it.
    private func page(_ render: @escaping @Sendable () throws(JobStoreError) -> String?,
                      notFound: () -> String = { "" }) async throws -> Response {
        let result: Result<String?, JobStoreError> = await withCheckedContinuation { continuation in
            Self.reads.async { continuation.resume(returning: Result { () throws(JobStoreError) in try render() }) }
        }
        switch result {
        case let .success(html?):
            return Self.response(.ok, text: html, type: "text/html; charset=utf-8")
        case .success(nil):
            return Self.response(.notFound, text: notFound(), type: "text/html; charset=utf-8")
        case let .failure(error):
            logger.warning("admin page: \(error)")
            return Self.response(.internalServerError, text: "cannot read the job database: \(error)\n")
        }
    }

    private static func response(_ status: HTTPResponse.Status, text: String, type: String = "text/plain; charset=utf-8") -> Response {
        response(status, bytes: Array(text.utf8), type: type)
    }

    private static func response(_ status: HTTPResponse.Status, bytes: [UInt8], type: String) -> Response {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        // Health and metrics are live values, the pages refresh themselves: nothing should be cached.
        return Response(status: status, headers: [.contentType: type, .cacheControl: "no-store"], body: .init(byteBuffer: buffer))
    }
}

/// Why the HTTP server is not serving.
public enum AdminServerError: Error, Sendable, CustomStringConvertible {
    case cannotListen(address: String, reason: String)
    case stopped

    public var description: String {
        switch self {
        case let .cannotListen(address, reason): "cannot serve HTTP on \(address): \(reason)"
        case .stopped: "the HTTP server stopped before it was listening"
        }
    }
}

/// The bound address, delivered once: by `onServerRunning`, or by the server task failing first.
private final class BoundAddress: Sendable {
    private struct State {
        var result: Result<ListenAddress, AdminServerError>?
        var waiter: CheckedContinuation<ListenAddress, any Error>?
    }
    private let state = NIOLockedValueBox(State())

    func resolve(_ outcome: Result<ListenAddress, AdminServerError>) {
        let waiter: CheckedContinuation<ListenAddress, any Error>? = state.withLockedValue { state in
            guard state.result == nil else { return nil }
            state.result = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome.mapError { $0 })
    }

    func value() async throws -> ListenAddress {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<ListenAddress, AdminServerError>? = state.withLockedValue { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 }) }
        }
    }
}
