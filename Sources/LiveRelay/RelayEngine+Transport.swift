// docs/ARCHITECTURE.md §4: the relay engine carries the RTMP side of every job. The codec engine
// publishes through `EnginePublication` and reads a live input through `EngineSubscription`; both are relay sessions
// like a live copy job's, so reconnects, drop-to-keyframe, late joiners, RTMPS verification and the shared ingest
// port are the same.
import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix

extension RelayEngine: LiveTransport {
    public func publish(to destination: LiveDestination, options: MediaJobOptions) -> any LivePublication {
        var relay = options
        // The codec job already copied, encoded and cut its stream: the session relays it as it is.
        let isSRT = (try? SRTURL(parsing: destination.url)) != nil
        // A WHEP output's viewers are the publication's: the session serves them its stream (a rendition without
        // B-frames, or the job's copy) as a live copy job serves its own.
        let isWHEP = (try? WHIPURL(parsing: destination.url))?.scheme == .whep
        var output = OutputDescription(target: .network(url: destination.url), kind: isSRT ? .mpegts : .flv, name: destination.name)
        output.token = destination.token
        relay.outputs = [output]
        relay.video = .copy
        relay.audio = .copy
        relay.maxDuration = nil
        relay.inputName = destination.name
        let publication = EnginePublication()
        let loop = group.next()
        guard RTMPEndpoint(parsing: destination.url) != nil || isSRT || isWHEP, !isShutDown else {
            let reason = isShutDown ? "the relay engine is shutting down" : "not an rtmp://, rtmps://, srt:// or whep:// URL"
            publication.ended(.failure(.openOutput(index: destination.index, name: destination.name,
                                                   OutputError.unsupported(output: destination.name, reason: reason))))
            return publication
        }
        let session = launch(relay, source: .external, on: loop, interrupter: Interrupter(),
                             progress: { publication.update($0) }, completion: { publication.ended($0) })
        publication.attach(session)
        return publication
    }

    public func subscribe(options: MediaJobOptions, interrupter: Interrupter, consumer: any LiveTagConsumer) -> any LiveSubscription {
        var relay = options
        // The codec job writes every output and ends at max_duration_s itself; the tap carries each kind some output
        // uses (an output's own rendition may take video the job's `video` drops).
        relay.video = options.usesVideo ? .copy : .drop
        relay.audio = options.usesAudio ? .copy : .drop
        relay.outputs = []
        relay.maxDuration = nil
        let subscription = EngineSubscription()
        let loop = group.next()
        guard let source = RelayEngine.source(options), !isShutDown else {
            let reason = isShutDown ? "the relay engine is shutting down" : "not an rtmp://, rtmps:// or srt:// URL"
            loop.execute { consumer.end(.liveInput(name: options.inputName, reason: reason)) }
            return subscription
        }
        let session = launch(relay, source: source, on: loop, interrupter: interrupter,
                             tap: consumer, progress: { subscription.update($0) }) { result in
            switch result {
            case .success: consumer.end(nil)
            case let .failure(error): consumer.end(error)
            }
        }
        subscription.attach(session)
        return subscription
    }

    public func fileLane() -> any FileWorkLane {
        startFilePool()
        return FilePoolLane(pool: pool, loop: group.next())
    }
}

/// One file output's lane of the shared file pool: each piece of work is chained on the completion of the one before,
/// so the output's writes stay in order on either of the pool's threads (as a live copy job's `SinkOutputLink`'s do).
/// Work the pool no longer takes (it stopped with the engine) still runs, in order, on a global queue, so that an
/// output waiting for its end is never left waiting.
final class FilePoolLane: FileWorkLane {
    private let pool: NIOThreadPool
    private let loop: any EventLoop
    /// The completion of the last piece submitted.
    private let tail: NIOLockedValueBox<EventLoopFuture<Void>>

    init(pool: NIOThreadPool, loop: any EventLoop) {
        self.pool = pool
        self.loop = loop
        tail = NIOLockedValueBox(loop.makeSucceededVoidFuture())
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        tail.withLockedValue { tail in
            tail = tail.flatMap { [pool, loop] in
                pool.runIfActive(eventLoop: loop, work).flatMapError { _ in
                    let ran = loop.makePromise(of: Void.self)
                    DispatchQueue.global().async {
                        work()
                        ran.succeed()
                    }
                    return ran.futureResult
                }
            }
        }
    }
}

/// A publish of the codec job's tags to one destination. Tags hop to the session's event loop; the codec job's thread
/// waits only while more than `maxInFlightBytes` are on their way (the loop takes them at once: the destination's
/// own buffer, not this one, absorbs a slow network, and drops to the next keyframe when it is full).
///
/// `@unchecked Sendable`: `session` is set once before any other thread sees the publication; the rest is guarded
/// by `condition` (an NSCondition: ThreadSanitizer sees its pthread mutex).
final class EnginePublication: LivePublication, @unchecked Sendable {
    private let condition = NSCondition()
    private var current = OutputProgress()
    private var final: OutputProgress?
    private var inFlightBytes = 0
    private var session: RelaySession?

    static let maxInFlightBytes = 8 << 20

    init() {
        current.status = .connecting
    }

    func attach(_ session: RelaySession) { self.session = session }

    private func locked<R>(_ body: () -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    func update(_ snapshot: MediaJobProgress) {
        guard let output = snapshot.outputs.first else { return }
        locked { current = output }
    }

    func ended(_ result: Result<MediaJobResult, MediaJobError>) {
        locked {
            switch result {
            case let .success(result):
                final = result.progress.outputs.first ?? current
            case let .failure(error):
                var failed = current
                failed.status = .failed
                if case let .allOutputsFailed(_, lastError?) = error {
                    failed.lastError = lastError
                } else if failed.lastError == nil {
                    failed.lastError = "\(error)"
                }
                final = failed
            }
            // Senders waiting for room and `finish` are released: the session takes nothing more.
            condition.broadcast()
        }
    }

    var progress: OutputProgress { locked { final ?? current } }

    func send(_ tags: [FLVStreamTag]) {
        guard let session else { return }
        let bytes = tags.reduce(0) { $0 + $1.data.count }
        condition.lock()
        while inFlightBytes > EnginePublication.maxInFlightBytes && final == nil { condition.wait() }
        let open = final == nil
        if open { inFlightBytes += bytes }
        condition.unlock()
        guard open else { return }
        session.loop.execute { [self] in
            session.inject(tags)
            locked {
                inFlightBytes -= bytes
                condition.signal()
            }
        }
    }

    func finish() -> OutputProgress {
        guard let session else { return progress }
        session.loop.execute { session.stop() }
        condition.lock()
        while final == nil { condition.wait() }
        let result = final ?? current
        condition.unlock()
        return result
    }
}

/// A live input read by the codec job.
final class EngineSubscription: LiveSubscription, Sendable {
    /// The session, attached once before the subscription is shared, and the reconnects it last reported.
    private let state = NIOLockedValueBox((session: RelaySession?.none, connections: 0))

    func attach(_ session: RelaySession) { state.withLockedValue { $0.session = session } }

    func update(_ snapshot: MediaJobProgress) {
        state.withLockedValue { $0.connections = snapshot.inputReconnects }
    }

    var reconnects: Int { state.withLockedValue { $0.connections } }

    func stop() {
        guard let session = state.withLockedValue({ $0.session }) else { return }
        session.loop.execute { session.stop() }
    }
}
