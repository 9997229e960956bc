import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// Restreams longer than the broker's consumer_timeout, with two workers (docs/ARCHITECTURE.md §5, long jobs): one running
/// copy from start to end, and a take-over after kill -9 (within 30 s) or SIGTERM (within 10 s). The broker is
/// the test's second private node with consumer_timeout = 20 s; nginx-rtmp's statistics page is the referee
/// for how many publishers the destination sees.
@Suite("Long restreams, exactly once", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct LongRestreamTests {
    @Test("a 120 s restream on a broker with consumer_timeout = 20 s: one attempt, one publisher throughout, no second copy")
    func outlivesConsumerTimeout() async throws {
        let fixture = try await LongRestream("outlive", seconds: 120)
        let a = try fixture.startWorker("w-a")
        let b = try fixture.startWorker("w-b")
        try await fixture.enqueue()
        let watch = try await fixture.watchDestination(until: .seconds(150)) { try fixture.finished() }
        #expect(watch.maxPublishers == 1, "two publishers at once: \(watch.samples.suffix(5))")
        #expect(watch.publisherIDs.count == 1, "the destination saw publishers \(watch.publisherIDs): a second copy or a reconnect")
        #expect(watch.seconds >= 110, "published for \(watch.seconds) s only")
        let records = try fixture.records()
        #expect(records.filter { $0.state == .succeeded && $0.attempts == 1 }.count == 1, "\(records.map { ($0.workerID, $0.state, $0.attempts) })")
        #expect(records.allSatisfy { $0.state == .succeeded || $0.attempts == 0 }, "a second copy ran: \(records)")
        for worker in [a, b] {
            #expect(!worker.process.log.contains("PRECONDITION_FAILED"), "\(worker.process.log.suffix(2000))")
        }
    }

    @Test("kill -9 of the worker that runs a restream: the other resumes it within 30 s; the gap is recorded")
    func takeOverAfterKill() async throws {
        let (fixture, holder, other, first) = try await LongRestream.running("kill")
        let killed = ContinuousClock.now
        holder.process.kill(SIGKILL)
        let watch = try await fixture.watchDestination(until: .seconds(100)) { try fixture.finished(on: other.id) }
        let resumed = try #require(watch.firstPublish(notIn: first), "never resumed: \(other.process.log.suffix(3000))")
        #expect(resumed - killed < .seconds(30), "resumed \(resumed - killed) after the kill")
        #expect(watch.maxPublishers == 1)
        let record = try #require(try fixture.store(other.id).job(id: fixture.id))
        #expect(record.state == .succeeded)
        #expect(record.takeovers == 1)
        let gap = try #require(record.lastGapSeconds)
        #expect(gap > 0 && gap < 35, "gap \(gap) s")
        let events = try fixture.store(other.id).events(jobID: fixture.id)
        #expect(events.contains { $0.kind == .takeover && $0.message?.contains("from worker \(holder.id)") == true })
        print("take-over after kill -9: \(resumed - killed) until the destination had a publisher again; recorded gap \(gap) s")
    }

    @Test("SIGTERM of the worker that runs a restream: it hands the job over at once; the other resumes within 10 s")
    func handOverOnSigterm() async throws {
        let (fixture, holder, other, first) = try await LongRestream.running("term")
        let signalled = ContinuousClock.now
        holder.process.kill(SIGTERM)
        #expect(await holder.process.exitStatus(within: .seconds(15)) == 0, "\(holder.process.log.suffix(2000))")
        // The grace period (30 s) is for batch jobs: a live job is handed over at once.
        #expect(ContinuousClock.now - signalled < .seconds(10))
        let watch = try await fixture.watchDestination(until: .seconds(100)) { try fixture.finished(on: other.id) }
        let resumed = try #require(watch.firstPublish(notIn: first),
                                   "never resumed: \(other.process.log.suffix(3000)) \(holder.process.log.suffix(3000))")
        #expect(resumed - signalled < .seconds(10), "resumed \(resumed - signalled) after SIGTERM")
        #expect(watch.maxPublishers == 1)
        let record = try #require(try fixture.store(other.id).job(id: fixture.id))
        #expect(record.state == .succeeded && record.takeovers == 1)
        let gap = try #require(record.lastGapSeconds)
        #expect(gap >= 0 && gap < 10, "gap \(gap) s")
        let handedOver = try #require(try fixture.store(holder.id).job(id: fixture.id))
        #expect(handedOver.state == .retrying && handedOver.error?.contains("handed over") == true, "\(handedOver)")
        print("hand-over on SIGTERM: \(resumed - signalled) until the destination had a publisher again; recorded gap \(gap) s")
    }
}

/// One restream fixture: a looping publisher into nginx-rtmp, a job that restreams it to another stream name,
/// and workers with databases of their own on the consumer_timeout broker.
final class LongRestream: @unchecked Sendable {
    // Reason: `workers` and `publisher` are set up before the test reads them concurrently; `lock` guards `workers`.
    static let amqpURL = ProcessInfo.processInfo.environment["SLUICE_TEST_AMQP_TIMEOUT_URL"]
    static let rtmpURL = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"]
    static let statSocket = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_STAT"]
    static let rabbitmqctl = ProcessInfo.processInfo.environment["SLUICE_TEST_TIMEOUT_RABBITMQCTL"]
    static var isAvailable: Bool { amqpURL != nil && rtmpURL != nil && statSocket != nil && rabbitmqctl != nil }

    struct Worker {
        let id: String
        let process: WorkerProcess
    }

    let id: String
    /// The broker URL of this fixture's own vhost (tests run in parallel; each has its own `sluice.jobs`).
    let amqpURL: String
    let folder: String
    let source: String
    let destination: String
    let seconds: Int
    private let publisher = Process()
    private let lock = NSLock()
    private var workers: [Worker] = []

    init(_ name: String, seconds: Int) async throws {
        let unique = UUID().uuidString.prefix(8).lowercased()
        id = "long-\(name)-\(unique)"
        source = "src-\(name)-\(unique)"
        destination = "dst-\(name)-\(unique)"
        self.seconds = seconds
        let vhost = "long-\(name)-\(unique)"
        let ctl = try await Subprocess.run(try #require(Self.rabbitmqctl), ["eval", """
            ok = rabbit_vhost:add(<<"\(vhost)">>, <<"tests">>), \
            rabbit_auth_backend_internal:set_permissions(<<"guest">>, <<"\(vhost)">>, \
            <<".*">>, <<".*">>, <<".*">>, <<"tests">>).
            """])
        try #require(ctl.status == 0, "\(ctl.output)")
        let broker = try #require(Self.amqpURL)
        // rabbitmq.sh prints the default vhost's URL, ending in /%2F.
        try #require(broker.hasSuffix("/%2F"), "unexpected broker URL \(broker)")
        amqpURL = String(broker.dropLast(3)) + vhost
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        folder = (base as NSString).appendingPathComponent("long-\(name)-\(unique)")
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        let clip = (Media.inputRoot as NSString).appendingPathComponent(try await Media.clip(seconds: 4))
        // A publisher that outlives every test: the clip looped at 1x.
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        publisher.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", clip,
                               "-c", "copy", "-f", "flv", "\(try #require(Self.rtmpURL))/\(source)"]
        publisher.standardInput = FileHandle.nullDevice
        publisher.standardOutput = FileHandle.nullDevice
        publisher.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try publisher.run()
        try #require(await eventually(timeout: .seconds(15)) { (try? self.publishers(of: source).count) == 1 },
                     "the source never started publishing")
    }

    deinit {
        for worker in lock.withLock({ workers }) { worker.process.kill(SIGKILL) }
        if publisher.isRunning { publisher.terminate() }
    }

    /// A 50 s restream run by one of two workers for `settle`: the fixture, the worker that holds it, the other one,
    /// and the destination's publisher ids before the holder is stopped.
    static func running(_ name: String, settle: Duration = .seconds(8)) async throws -> (LongRestream, Worker, Worker, [String]) {
        let fixture = try await LongRestream(name, seconds: 50)
        let pair = [try fixture.startWorker("w-a"), try fixture.startWorker("w-b")]
        try await fixture.enqueue()
        let (holder, other) = try await fixture.holder(of: pair)
        try await Task.sleep(for: settle)
        return (fixture, holder, other, try fixture.publishers(of: fixture.destination))
    }

    func database(_ worker: String) -> String { folder + "/\(worker).sqlite" }

    /// What `worker` knows of the job, for a failure's message: its log's end, its record, outputs and events.
    func diagnosis(_ worker: Worker) -> String {
        let store = try? store(worker.id)
        let record = (try? store?.job(id: id)).flatMap { $0 }.map { "\($0.state) \($0.error ?? "")" } ?? "no record"
        let outputs = ((try? store?.outputs(jobID: id)) ?? []).map { "\($0.index) \($0.state) \($0.lastError ?? "")" }
        let events = ((try? store?.events(jobID: id)) ?? []).map { "\($0.kind): \($0.message ?? "")" }
        return "\(worker.id): \(record); outputs \(outputs); events \(events); log: \(worker.process.log.suffix(3000))"
    }

    func store(_ worker: String) throws -> JobStore { try JobStore(path: database(worker)) }

    /// Starts a worker with a database of its own and the default lease timing.
    /// - Parameters:
    ///   - worker: its id.
    ///   - broker: the broker URL it uses (another way to the fixture's vhost, e.g. through a relay); nil: `amqpURL`.
    ///   - heartbeat: its AMQP heartbeat in seconds.
    func startWorker(_ worker: String, broker: String? = nil, heartbeat: Int = 5) throws -> Worker {
        _ = try store(worker)  // created and migrated before the worker opens it
        let process = try WorkerProcess(arguments: [
            "worker", "--amqp-url", broker ?? amqpURL, "--db", database(worker), "--input-root", folder,
            "--output-root", folder + "/out", "--worker-id", worker, "--heartbeat-s", String(heartbeat), "--progress-s", "1",
        ], log: folder + "/\(worker).log")
        let started = Worker(id: worker, process: process)
        lock.withLock { workers.append(started) }
        return started
    }

    /// Enqueues the job: a pull of the source, by default to the destination (`outputs`: the outputs array's JSON).
    func enqueue(outputs: String? = nil) async throws {
        let rtmp = try #require(Self.rtmpURL)
        let job = #"{"id": "\#(id)", "input": {"url": "\#(rtmp)/\#(source)", "timeout_s": 10}, "#
            + #""outputs": \#(outputs ?? "[\"\(rtmp)/\(destination)\"]"), "max_duration_s": \#(seconds)}"#
        try job.write(toFile: folder + "/job.json", atomically: true, encoding: .utf8)
        let result = try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", amqpURL, folder + "/job.json"])
        try #require(result.status == 0, "\(result.output)")
    }

    /// Every worker's record of the job.
    func records() throws -> [JobRecord] {
        try lock.withLock { workers }.compactMap { try store($0.id).job(id: id) }
    }

    /// True once some worker (or the named one) recorded the job as succeeded.
    func finished(on worker: String? = nil) throws -> Bool {
        let candidates = lock.withLock { workers }.filter { worker == nil || $0.id == worker }
        return try candidates.contains { try store($0.id).job(id: id)?.state == .succeeded }
    }

    /// The worker whose database shows the job running, and the other one.
    func holder(of pair: [Worker]) async throws -> (Worker, Worker) {
        var found: Worker?
        _ = try await eventually(timeout: .seconds(30)) {
            found = try pair.first { try store($0.id).job(id: id)?.state == .running }
            return found != nil && (try? publishers(of: destination).count) == 1
        }
        let holder = try #require(found, "no worker runs the job: \(pair.map { $0.process.log.suffix(1500) })")
        return (holder, pair[0].id == holder.id ? pair[1] : pair[0])
    }

    /// nginx-rtmp's client ids publishing `stream` now, from its statistics page.
    func publishers(of stream: String) throws -> [String] {
        let socket = try #require(Self.statSocket)
        let xml = try Self.fetchStat(socket: socket)
        guard let start = xml.range(of: "<name>\(stream)</name>") else { return [] }
        let block = xml[start.upperBound...].prefix { _ in true }
        let end = block.range(of: "</stream>")?.lowerBound ?? block.endIndex
        var ids: [String] = []
        for client in block[..<end].components(separatedBy: "<client>").dropFirst() where client.contains("<publishing/>") {
            if let open = client.range(of: "<id>"), let close = client.range(of: "</id>") {
                ids.append(String(client[open.upperBound..<close.lowerBound]))
            }
        }
        return ids
    }

    /// What the destination's publishers were, sampled every `interval` (twice a second) until `done` or `timeout`.
    func watchDestination(until timeout: Duration, every interval: Duration = .milliseconds(500),
                          done: () throws -> Bool) async throws -> DestinationWatch {
        var watch = DestinationWatch()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // A sample the statistics page could not answer (nginx restarted by another suite) is skipped.
            if let ids = try? publishers(of: destination) { watch.record(ids, at: .now) }
            if try done() { break }
            try await Task.sleep(for: interval)
        }
        return watch
    }

    /// GET /stat over nginx's unix socket (Foundation's URLSession speaks no unix sockets; this is HTTP/1.0).
    static func fetchStat(socket path: String) throws -> String {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Subprocess.Failure(command: "socket", output: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes + [0])
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw Subprocess.Failure(command: "connect \(path)", output: String(cString: strerror(errno))) }
        let request = Array("GET /stat HTTP/1.0\r\nHost: localhost\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        return String(decoding: response, as: UTF8.self)
    }
}

/// Publisher samples of the destination stream.
struct DestinationWatch {
    var samples: [(at: ContinuousClock.Instant, ids: [String])] = []
    var maxPublishers = 0
    var publisherIDs: [String] = []

    mutating func record(_ ids: [String], at instant: ContinuousClock.Instant) {
        samples.append((instant, ids))
        maxPublishers = max(maxPublishers, ids.count)
        for id in ids where !publisherIDs.contains(id) { publisherIDs.append(id) }
    }

    /// Seconds during which the destination had a publisher.
    var seconds: Double {
        guard let first = samples.first(where: { !$0.ids.isEmpty }), let last = samples.last(where: { !$0.ids.isEmpty }) else { return 0 }
        let (whole, fraction) = (last.at - first.at).components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// The first sample in which a publisher other than `earlier` (the stopped holder's) publishes.
    func firstPublish(notIn earlier: [String]) -> ContinuousClock.Instant? {
        samples.first { $0.ids.contains { !earlier.contains($0) } }?.at
    }
}
