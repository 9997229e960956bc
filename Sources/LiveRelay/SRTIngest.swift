import Foundation
import JobDocument
import MediaJob
import SRTTransport
import Synchronization

/// One SRT listen job's claim on a shared SRT port: the publisher whose streamid names `resource` goes to `session`,
/// and must know `passphrase`.
final class SRTIngestRoute: Sendable {
    let listenerKey: String
    let resource: String
    let passphrase: String?
    let session: RelaySession
    /// A publisher holds the route (set and cleared under `SRTIngestRegistry.lock`).
    let busy = Atomic<Bool>(false)

    init(listenerKey: String, resource: String, passphrase: String?, session: RelaySession) {
        self.listenerKey = listenerKey
        self.resource = resource
        self.passphrase = passphrase
        self.session = session
    }
}

/// Every SRT port of an engine: all SRT listen jobs naming one host:port share one UDP socket (one `SRTListener`),
/// opened when the first starts and closed when the last ends, as RTMP listen jobs share an ingest port. A publisher is
/// routed by its streamid during the handshake (libsrt's listener callback, on libsrt's thread): an unknown streamid,
/// a wrong passphrase or a second publisher for a taken key is refused there, named in the engine's report, and no
/// job's state changes.
final class SRTIngestRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var listeners: [String: (listener: SRTListener?, routes: [SRTIngestRoute])] = [:]
    private var nextToken = 0
    /// Where refusals are named (the engine's report): never a streamid or a passphrase.
    private let report: @Sendable (String) -> Void
    /// Refusals named once per peer host, port and reason every 10 s (guarded by `lock`): a handshake flood is one line.
    private var refusals = RepeatedReports()

    init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    /// Ports listening now.
    var listeningPorts: Int { lock.withLock { listeners.values.filter { $0.listener != nil }.count } }

    /// Claims the streamid of `url` on its host:port for `session`, opening the port if no job listens on it yet.
    func register(_ url: SRTURL, session: RelaySession) -> Result<SRTIngestRoute, MediaJobError> {
        let key = SRTIngestRegistry.key(url)
        guard let streamID = url.streamID, let wanted = try? SRTStreamID(parsing: streamID), wanted.mode == .publish else {
            return .failure(.liveInput(name: session.options.inputName,
                                       reason: "the streamid must name what the publisher sends (publish:live/KEY or #!::r=live/KEY,m=publish)"))
        }
        let claimed: Result<(SRTIngestRoute, Bool), MediaJobError> = lock.withLock {
            var entry = listeners[key] ?? (nil, [])
            if entry.routes.contains(where: { constantTimeEquals($0.resource, wanted.resource) }) {
                return .failure(.liveInput(name: session.options.inputName, reason: "another job already listens for this streamid on \(key)"))
            }
            let isNew = listeners[key] == nil
            let route = SRTIngestRoute(listenerKey: key, resource: wanted.resource, passphrase: url.passphrase, session: session)
            entry.routes.append(route)
            listeners[key] = entry
            return .success((route, isNew))
        }
        switch claimed {
        case let .failure(error): return .failure(error)
        case let .success((route, isNew)):
            if isNew, let error = open(key: key, url: url) {
                unregister(route)
                return .failure(.liveInput(name: session.options.inputName, reason: "cannot listen on \(key): \(error)"))
            }
            return .success(route)
        }
    }

    /// `host:port` as one listener key.
    static func key(_ url: SRTURL) -> String { url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)" }

    private func open(key: String, url: SRTURL) -> String? {
        do {
            let listener = try SRTListener(
                host: url.host, port: url.port, latencyMilliseconds: url.latencyMilliseconds,
                // A relay's input goes on as soon as it is in order: its outputs pace it (no TsbPd thread per publisher).
                timestampBasedDelivery: false,
                admit: { [self] streamID, peer in admit(key: key, streamID: streamID, peer: peer) },
                onAccept: { [self] connection, streamID in accepted(key: key, connection: connection, streamID: streamID) },
                onRefused: { [self] peer, reason in refused(peer: peer, on: key, reason: reason) })
            let stale: Bool = lock.withLock {
                guard listeners[key] != nil else { return true }
                listeners[key]?.listener = listener
                return false
            }
            if stale { listener.close() }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// libsrt's listener callback: whether the handshake asking for `streamID` goes on, and with which passphrase.
    private func admit(key: String, streamID: String, peer: String) -> SRTAdmission {
        let route = lock.withLock { routeLocked(key: key, streamID: streamID) }
        switch route {
        case let .success(route): return .accept(passphrase: route.passphrase)
        case let .failure(refusal):
            refused(peer: peer, on: key, reason: refusal.reason)
            return .refuse(reason: refusal.reason, code: refusal.code)
        }
    }

    /// The route a streamid names, compared in constant time against every route (the time taken does not say which
    /// key came close).
    private func routeLocked(key: String, streamID: String) -> Result<SRTIngestRoute, SRTRefusal> {
        guard let asked = try? SRTStreamID(parsing: streamID) else { return .failure(.badStreamID) }
        guard asked.mode == .publish else { return .failure(.notPublishing) }
        var match: SRTIngestRoute?
        for route in listeners[key]?.routes ?? [] where constantTimeEquals(route.resource, asked.resource) { match = route }
        guard let match else { return .failure(.unknownStreamID) }
        guard !match.busy.load(ordering: .relaxed) else { return .failure(.taken) }
        return .success(match)
    }

    /// A publisher finished its handshake: the route is taken now (a second one that raced it in is closed).
    private func accepted(key: String, connection: SRTConnection, streamID: String) {
        let claim: (SRTIngestRoute, Int)? = lock.withLock {
            guard case let .success(route) = routeLocked(key: key, streamID: streamID) else { return nil }
            route.busy.store(true, ordering: .relaxed)
            nextToken += 1
            return (route, nextToken)
        }
        guard let (route, token) = claim else {
            refused(peer: connection.peerAddress, on: key, reason: SRTRefusal.taken.reason)
            connection.close()
            return
        }
        let session = route.session
        session.loop.execute { session.srtPublisherAttached(token, connection: connection) }
        connection.start(
            receive: { bytes in session.loop.execute { session.srtPublisherMedia(token, bytes) } },
            closed: { [self] reason in
                lock.withLock { route.busy.store(false, ordering: .relaxed) }
                session.loop.execute { session.srtPublisherDetached(token, reason: reason) }
            })
    }

    /// Names a refused handshake in the report: the first from a host for a reason, then at most one line every 10 s
    /// with the count of those not named.
    private func refused(peer: String, on key: String, reason: String) {
        let host = RepeatedReports.host(ofPeer: peer)
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let decision = lock.withLock { refusals.admit("\(host) \(key) \(reason)", now: now) }
        guard case let .report(suppressed) = decision else { return }
        let more = suppressed > 0 ? " (\(suppressed) more from \(host) for this reason since the last line)" : ""
        report("SRT publisher from \(peer) refused on \(key): \(reason)\(more)")
    }

    /// Removes a job's route; the last one closes the port.
    func unregister(_ route: SRTIngestRoute) {
        let listener: SRTListener? = lock.withLock {
            guard var entry = listeners[route.listenerKey] else { return nil }
            entry.routes.removeAll { $0 === route }
            guard entry.routes.isEmpty else {
                listeners[route.listenerKey] = entry
                return nil
            }
            listeners[route.listenerKey] = nil
            return entry.listener
        }
        listener?.close()
    }

    /// Closes every SRT port (the engine shuts down).
    func closeAll() {
        let all: [SRTListener] = lock.withLock {
            defer { listeners = [:] }
            return listeners.values.compactMap(\.listener)
        }
        for listener in all { listener.close() }
    }
}

/// Why an SRT publisher was turned away during its handshake, as the worker's log names it.
enum SRTRefusal: Error {
    case badStreamID, notPublishing, unknownStreamID, taken

    var reason: String {
        switch self {
        case .badStreamID: "the streamid is neither publish:RESOURCE nor #!::r=RESOURCE,m=publish"
        case .notPublishing: "the streamid asks to read; this port takes publishers only"
        case .unknownStreamID: "the streamid names no job waiting on this port"
        case .taken: "another publisher already sends this streamid"
        }
    }

    /// What the refused caller reads (libsrt's access-control codes: 1000 plus an HTTP status).
    var code: SRTRefusalCode {
        switch self {
        case .badStreamID: .badRequest
        case .notPublishing: .forbidden
        case .unknownStreamID: .notFound
        case .taken: .conflict
        }
    }
}
