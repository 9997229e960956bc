import Foundation
import JobDocument
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import SRTTransport
import RTSP
import WebRTC
import Synchronization
import NIOConcurrencyHelpers

/// The event-driven relay engine: live copy jobs (an RTMP or SRT pull or listen; RTMP/RTMPS and SRT outputs, FLV
/// archives) relayed on a fixed set of event-loop threads, whatever the number of streams.
///
/// Each job is a `RelaySession` pinned to one event loop with its source and outputs; listen jobs on one
/// host:port share one ingest listener (`IngestRegistry`).
public final class RelayEngine: JobEngine {
    /// The engine's settings (the CLI reads them from its environment: `RelaySettings(environment:)`).
    public let settings: RelaySettings

    let group: MultiThreadedEventLoopGroup
    let ingest: IngestRegistry
    /// The shared SRT ports of SRT listen jobs.
    let srtIngest: SRTIngestRegistry
    /// Blocking file work (creating, writing, syncing and renaming every file output) off the event loops, for every
    /// job. Each output's work is one chain of tasks, so its writes stay in order on any thread. Started by the first
    /// job with a file output (`startFilePool`): a worker that only relays runs no file thread.
    let pool: NIOThreadPool
    private let poolStarted = Atomic<Bool>(false)
    /// The file pool's threads: two, so that one output's fsync (a recording's segment, a job's commit) never holds
    /// every other output's writes behind it.
    static let fileThreads = 2
    /// One housekeeping timer per event loop, shared by its sessions.
    let housekeeping: PerLoop<LoopHousekeeping>
    /// Each event loop's buffer for encoding a message's chunks.
    let chunkScratch: PerLoop<ChunkScratch>
    /// Paced reads of the pulls, per event loop (nil: pulls read as data arrives).
    let readPacers: PerLoop<ReadPacer>?
    /// What every live file output has handed to the pool and is not written yet; past its limit the pulls pause.
    let fileBacklog: FileBacklog
    /// The client ports of RTSP pulls over UDP.
    let rtspPorts: RTSPPortBlocks
    /// The shared HTTP ports of WHIP jobs.
    let whip: WHIPRegistry
    /// The one UDP port of every WebRTC session, bound by the first.
    let webrtcPort: WebRTCMediaPort
    /// Each loop's DTLS certificate, made by its first WebRTC session (OpenSSL is not loaded before).
    private let webrtcCertificates: PerLoop<WebRTCCertificateSlot>
    private let caFile: String?
    private let tls = NIOLockedValueBox<Result<NIOSSLContext, TLSSetupError>?>(nil)
    /// One line for the operator (stderr by default): what the engine did that no job's state shows, such as a
    /// codec sent to a destination that announced none.
    let report: @Sendable (String) -> Void
    private let runs = Atomic<Int>(0)
    /// The sessions of jobs started by `start`, by their interrupter: where output edits go.
    let editableRuns = EditableRuns()
    private let shutDown = Atomic<Bool>(false)

    /// - Parameters:
    ///   - settings: threads, read pacing, RTMPS trust and certificate, latency measuring (`RelaySettings`).
    ///   - report: where the engine's notes go (never a stream key: output names are redacted); stderr by default.
    public init(_ settings: RelaySettings = RelaySettings(),
                report: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(("sluice: " + $0 + "\n").utf8)) }) {
        self.settings = settings
        self.report = report
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(settings.threads, 1))
        ingest = IngestRegistry(group: group, certificate: settings.ingestCertificate)
        srtIngest = SRTIngestRegistry(report: report)
        pool = NIOThreadPool(numberOfThreads: Self.fileThreads)
        let pacing = TimeAmount.milliseconds(Int64(max(settings.readPacingMilliseconds, 0)))
        housekeeping = PerLoop(group) { LoopHousekeeping(loop: $0) }
        chunkScratch = PerLoop(group) { _ in ChunkScratch() }
        let backlog = FileBacklog(limit: settings.fileBacklogMiB << 20)
        fileBacklog = backlog
        rtspPorts = RTSPPortBlocks(range: settings.rtspUDPPorts)
        whip = WHIPRegistry(group: group)
        webrtcPort = WebRTCMediaPort(group: group, port: settings.webrtcUDPPort,
                                     readPacing: .milliseconds(Int64(min(max(settings.webrtcReadPacingMilliseconds, 0), 100))))
        webrtcCertificates = PerLoop(group) { _ in WebRTCCertificateSlot() }
        readPacers = settings.readPacingMilliseconds > 0 ? PerLoop(group) { ReadPacer(loop: $0, maximum: pacing, backlog: backlog) } : nil
        caFile = settings.rtmpsCAFile.flatMap { $0.isEmpty ? nil : $0 }
        // The SRT thread is the process's, shared by every engine: the last engine made sets its pacing.
        SRTRuntime.setReadPacing(milliseconds: settings.srtReadPacingMilliseconds)
    }

    deinit {
        ingest.closeAll()
        srtIngest.closeAll()
        whip.closeAll()
        webrtcPort.close()
        group.shutdownGracefully { _ in }
        pool.shutdownGracefully { _ in }
    }

    /// Starts the file pool's threads, once; called by a session before it makes its first file output.
    func startFilePool() {
        guard poolStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        pool.start()
    }

    /// Runs in flight.
    public var activeRuns: Int { runs.load(ordering: .relaxed) }

    /// Whether `shutdown` was called: new jobs are refused.
    var isShutDown: Bool { shutDown.load(ordering: .acquiring) }

    /// Ingest ports listening now.
    public var listeningPorts: Int { ingest.listeningPorts + srtIngest.listeningPorts + whip.listeningPorts }

    /// Whether this engine runs these job options: a live rtmp(s) or srt pull or listen, video and audio
    /// copied or dropped alike for every output, and every output a publish to rtmp:// or rtmps:// (FLV), to srt://
    /// (MPEG-TS), or a file of any format (no multivariant playlist).
    public static func supports(_ options: MediaJobOptions) -> Bool {
        guard options.liveInput, source(options) != nil else { return false }
        guard options.video == .copy || options.video == .drop, options.audio == .copy || options.audio == .drop,
              options.video == .copy || options.audio == .copy else { return false }
        // Outputs with renditions of their own (an audio-only output, a ladder rung) go through the codec stage, and so
        // does a ladder's multivariant playlist.
        guard !options.outputs.isEmpty, !options.hasRenditions, options.multivariant == nil else { return false }
        return options.outputs.allSatisfy { output in
            switch output.target {
            case let .network(url):
                if output.kind == .flv, let whep = try? WHIPURL(parsing: url) { return whep.scheme == .whep }
                return output.kind == .flv ? RTMPEndpoint(parsing: url) != nil : output.kind == .mpegts && (try? SRTURL(parsing: url)) != nil
            // Every file format: FLV archives as they come, the others through their sinks on the file pool.
            case .file: return true
            }
        }
    }

    /// Where a live job's input comes from: an RTMP or SRT URL, pulled or listened for; nil for any other.
    static func source(_ options: MediaJobOptions) -> RelaySession.Source? {
        if let endpoint = RTMPEndpoint(parsing: options.inputURL) { return options.listens ? .listen(endpoint) : .pull(endpoint) }
        if let url = try? SRTURL(parsing: options.inputURL) { return options.listens ? .srtListen(url) : .srtPull(url) }
        if options.listens, let url = try? WHIPURL(parsing: options.inputURL), url.scheme == .whip { return .whipListen(url) }
        // A camera is pulled; nothing publishes RTSP to a worker.
        if !options.listens, let url = try? RTSPURL(parsing: options.inputURL) { return .rtspPull(url) }
        return nil
    }

    /// Whether this engine runs these options (`supports`).
    public func runs(_ options: MediaJobOptions) -> Bool { Self.supports(options) }

    /// Starts a job; never blocks. `progress` about once a second and `completion` exactly once, both on an event loop.
    public func start(_ options: MediaJobOptions, interrupter: Interrupter, callbacks: JobCallbacks) {
        var options = options
        // Recordings in segments report each segment from the file pool, in order, before the completion.
        options.segmentReports = callbacks.segment
        start(options, interrupter: interrupter, progress: callbacks.progress) { result in
            callbacks.completion(result.mapError { $0 as any Error })
        }
    }

    /// Starts a job; never blocks. `progress` about once a second and `completion` exactly once, both on an
    /// event loop (callers must not block there). Cancel through `interrupter` (polled every 250 ms).
    public func start(_ options: MediaJobOptions, interrupter: Interrupter,
                      progress: @escaping @Sendable (MediaJobProgress) -> Void,
                      completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) {
        let loop = group.next()
        guard RelayEngine.supports(options), let source = RelayEngine.source(options) else {
            loop.execute { completion(.failure(.liveInput(name: options.inputName, reason: "not a live copy job the relay engine runs"))) }
            return
        }
        guard !isShutDown else {
            loop.execute { completion(.failure(.liveInput(name: options.inputName, reason: "the relay engine is shutting down"))) }
            return
        }
        let key = ObjectIdentifier(interrupter)
        let session = launch(options, source: source, on: loop, interrupter: interrupter,
                             progress: progress) { [editableRuns] result in
            editableRuns.ended(key)
            completion(result)
        }
        editableRuns.started(key, session)
    }

    /// Starts a session for `options` on `loop`: its network outputs and files, its source (a listen is registered
    /// with the shared ingest listener first), and an optional tap for the codec engine.
    @discardableResult
    func launch(_ options: MediaJobOptions, source: RelaySession.Source, on loop: any EventLoop, interrupter: Interrupter,
                tap: (any LiveTagConsumer)? = nil,
                progress: @escaping @Sendable (MediaJobProgress) -> Void,
                completion: @escaping @Sendable (Result<MediaJobResult, MediaJobError>) -> Void) -> RelaySession {
        var outputs: [(Int, String, RTMPEndpoint)] = []
        var files: [(Int, OutputDescription)] = []
        var srt: [(Int, String, SRTURL)] = []
        var whep: [(Int, String, WHIPURL, String?)] = []
        for (index, output) in options.outputs.enumerated() {
            switch output.target {
            case let .network(url):
                if let url = try? WHIPURL(parsing: url), url.scheme == .whep {
                    whep.append((index, output.name, url, output.token))
                } else if let endpoint = RTMPEndpoint(parsing: url) {
                    outputs.append((index, output.name, endpoint))
                } else if let url = try? SRTURL(parsing: url) {
                    srt.append((index, output.name, url))
                }
            case .file:
                files.append((index, output))
            }
        }
        let session = RelaySession(engine: self, loop: loop, options: options, source: source,
                                   interrupter: interrupter, progress: progress, completion: completion)
        session.tap = tap.map(RelaySession.CodecTap.init)
        runs.add(1, ordering: .relaxed)
        loop.execute { [self, outputs, files, srt, whep] in
            if case let .listen(input) = source {
                guard let route = session.registered(ingest.register(input, session: session)) else { return }
                session.source.publisher.route = route
            }
            if case let .whipListen(input) = source {
                guard let route = session.registered(whip.register(input, token: options.inputToken, session: session)) else { return }
                session.source.whip.route = route
            }
            if case let .srtListen(input) = source {
                guard let route = session.registered(srtIngest.register(input, session: session)) else { return }
                session.source.srt.route = route
            }
            session.begin(outputs: outputs, files: files, srt: srt, whep: whep)
        }
        return session
    }

    /// Stops every ingest listener and refuses new jobs; idempotent. Running pulls end through their interrupters.
    public func shutdown() {
        guard !shutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        ingest.closeAll()
        srtIngest.closeAll()
        whip.closeAll()
        webrtcPort.close()
    }

    func sessionEnded() { runs.subtract(1, ordering: .relaxed) }

    /// `loop`'s DTLS certificate, made on first use; on `loop` only.
    func webrtcCertificate(on loop: any EventLoop) -> Result<DTLSCertificate, DTLSError> {
        let slot = webrtcCertificates.on(loop).value
        if let made = slot.certificate { return made }
        let made: Result<DTLSCertificate, DTLSError>
        do throws(DTLSError) { made = .success(try DTLSCertificate()) } catch { made = .failure(error) }
        slot.certificate = made
        return made
    }

    /// The addresses WebRTC answers announce as host candidates: the settings', else every IPv4 address of the
    /// machine's interfaces (loopback last), found once.
    var webrtcAddresses: [String] {
        if !settings.webrtcAddresses.isEmpty { return settings.webrtcAddresses }
        return Self.interfaceAddresses
    }

    private static let interfaceAddresses: [String] = {
        let devices = (try? System.enumerateDevices()) ?? []
        var addresses: [String] = []
        for device in devices {
            guard case .v4 = device.address, let text = device.address?.ipAddress, !addresses.contains(text) else { continue }
            addresses.append(text)
        }
        let loopback = addresses.filter { $0.hasPrefix("127.") }
        return addresses.filter { !$0.hasPrefix("127.") } + (loopback.isEmpty ? ["127.0.0.1"] : loopback)
    }()

    /// The TLS client context for rtmps:// (system trust store plus the optional CA file), made once.
    func tlsContext() -> Result<NIOSSLContext, TLSSetupError> {
        tls.withLockedValue { cached in
            if let cached { return cached }
            let made: Result<NIOSSLContext, TLSSetupError>
            do {
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let caFile {
                    configuration.additionalTrustRoots = [.file(caFile)]
                }
                made = .success(try NIOSSLContext(configuration: configuration))
            } catch {
                made = .failure(TLSSetupError(description: "cannot set up TLS for rtmps (CA file \(caFile ?? "none")): \(error)"))
            }
            cached = made
            return made
        }
    }
}

/// A loop's DTLS certificate, or why it could not be made; nil until its first WebRTC session.
final class WebRTCCertificateSlot {
    var certificate: Result<DTLSCertificate, DTLSError>?
}

/// The TLS client context could not be made (an unreadable CA file, say).
struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    var description: String
}
