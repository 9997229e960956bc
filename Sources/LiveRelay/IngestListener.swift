import Foundation
import MediaJob
import NIOCore
import NIOPosix
import RTMP
import Synchronization

/// One listen job's claim on a shared listener: publishers asking for `app` and `streamKey` go to `session`.
final class IngestRoute: Sendable {
    let listenerKey: String
    let app: String
    let streamKey: String
    let session: RelaySession
    /// A publisher holds the route (claimed by a compare-exchange, so one publisher at a time).
    let busy = Atomic<Bool>(false)

    init(listenerKey: String, app: String, streamKey: String, session: RelaySession) {
        self.listenerKey = listenerKey
        self.app = app
        self.streamKey = streamKey
        self.session = session
    }
}

/// Every ingest listener of an engine: all listen jobs naming one host:port share one listener, bound when
/// the first starts and closed when the last ends (`SharedListeners`). Routing happens once per publisher, under the
/// table's lock.
final class IngestRegistry: Sendable {
    /// Connections on one listener, publishing or not.
    static let maxConnections = 1000
    /// Connections that have not been accepted as a publisher yet; beyond this, a new one is closed at accept.
    static let maxUnauthenticated = 64
    /// Seconds to complete the handshake.
    static let handshakeTimeout: Int64 = 10
    /// Seconds without a byte before a publish was accepted.
    static let prePublishIdleTimeout: Int64 = 30

    /// One bound ingest port: the jobs listening on it and its connections.
    private struct Listener {
        /// rtmps://: every connection starts with a TLS handshake under the worker's certificate.
        let secure: Bool
        var routes: [IngestRoute] = []
        var connections = 0
        var unauthenticated = 0
    }

    private let listeners = SharedListeners<Listener>()
    /// Publishers accepted so far: each one's token for its session.
    private let tokens = Atomic<Int>(0)
    private let group: any EventLoopGroup
    /// The certificate rtmps:// listeners serve, checked for a renewal on every new connection.
    let certificate: IngestCertificateReloader
    /// TLS handshakes that failed on rtmps:// listeners (a plain RTMP client, say): counted, never logged.
    let tlsHandshakeFailures = Atomic<Int>(0)

    /// - Parameters:
    ///   - group: the engine's event loops.
    ///   - certificate: the certificate and key rtmps:// listen jobs serve.
    init(group: any EventLoopGroup, certificate: IngestCertificateFiles = IngestCertificateFiles(certificate: nil, key: nil)) {
        self.group = group
        self.certificate = IngestCertificateReloader(files: certificate)
    }

    /// Ports listening now.
    var listeningPorts: Int { listeners.listeningPorts }

    /// Claims `endpoint`'s application and key for `session`, binding the port if no job listens on it yet.
    func register(_ endpoint: RTMPEndpoint, session: RelaySession) -> Result<IngestRoute, MediaJobError> {
        let key = endpoint.hostAndPort
        // Before any claim: a job that cannot serve TLS fails at once, naming the settings it needs.
        if endpoint.secure, case let .failure(error) = certificate.context() {
            return .failure(.liveInput(name: session.options.inputName, reason: error.description))
        }
        let claim: Result<(route: IngestRoute, bind: Int?), IngestConflict> = listeners.withLocked { table in
            var listener = table[key] ?? Listener(secure: endpoint.secure)
            if listener.secure != endpoint.secure { return .failure(.scheme(listening: listener.secure)) }
            if listener.routes.contains(where: { $0.app == endpoint.app && constantTimeEquals($0.streamKey, endpoint.streamKey) }) {
                return .failure(.sameKey)
            }
            let route = IngestRoute(listenerKey: key, app: endpoint.app, streamKey: endpoint.streamKey, session: session)
            listener.routes.append(route)
            return .success((route, table.put(key, listener)))
        }
        switch claim {
        case let .success((route, generation)):
            if let generation { bind(key, generation, secure: endpoint.secure, host: endpoint.host, port: endpoint.port) }
            return .success(route)
        case .failure(.sameKey):
            return .failure(.liveInput(name: session.options.inputName,
                                       reason: "another job already listens for this application and stream key on \(key)"))
        case let .failure(.scheme(listening)):
            let (theirs, ours) = listening ? ("rtmps", "rtmp") : ("rtmp", "rtmps")
            return .failure(.liveInput(name: session.options.inputName,
                                       reason: "another job listens on \(key) with \(theirs)://; a port takes \(ours):// or \(theirs)://, not both"))
        }
    }

    /// Why a listen job cannot join the listener on its host:port.
    private enum IngestConflict: Error {
        case sameKey
        /// The port listens with the other scheme (`listening`: whether it is rtmps).
        case scheme(listening: Bool)
    }

    private func bind(_ key: String, _ generation: Int, secure: Bool, host: String, port: Int) {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 << 10, high: 256 << 10))
            .childChannelInitializer { [self] channel in
                let listener = IngestHandler.Listener(key: key, generation: generation)
                guard admit(listener) else { return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed) }
                do {
                    if secure { try addTLS(to: channel) }
                    try channel.pipeline.syncOperations.addHandler(IngestHandler(registry: self, listener: listener))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    closed(listener, wasAuthenticated: false)
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        listeners.bind(bootstrap, key: key, generation: generation, host: host, port: port) { listener, error in
            let reason = "cannot listen on \(key): \(describeNetworkError(error))"
            for route in listener.routes { route.session.loop.execute { route.session.failToListen(reason) } }
        }
    }

    /// Removes a job's route; the last one closes the listener.
    func unregister(_ route: IngestRoute) {
        listeners.leave(route.listenerKey) { listener in
            listener.routes.removeAll { $0 === route }
            return !listener.routes.isEmpty
        }
    }

    /// Closes every listener (the engine shuts down).
    func closeAll() {
        listeners.closeAll()
    }

    // MARK: Connections

    /// Counts a new connection, unless the listener closed or holds as many as it takes.
    fileprivate func admit(_ at: IngestHandler.Listener) -> Bool {
        listeners.withLocked { table in
            guard let listener = table[at.key, at.generation], listener.connections < IngestRegistry.maxConnections,
                  listener.unauthenticated < IngestRegistry.maxUnauthenticated else { return false }
            table[at.key, at.generation]?.connections += 1
            table[at.key, at.generation]?.unauthenticated += 1
            return true
        }
    }

    fileprivate func closed(_ at: IngestHandler.Listener, wasAuthenticated: Bool) {
        listeners.withLocked { table in
            table[at.key, at.generation]?.connections -= 1
            if !wasAuthenticated { table[at.key, at.generation]?.unauthenticated -= 1 }
        }
    }

    /// What a publish request on a listener comes to.
    fileprivate enum Claim {
        case accepted(IngestRoute, token: Int)
        case refused(code: String, notify: [(RelaySession, PublisherRefusal)])
    }

    fileprivate func claim(_ at: IngestHandler.Listener, app: String, streamKey: String) -> Claim {
        listeners.withLocked { table in
            let routes = table[at.key, at.generation]?.routes ?? []
            // Every route is compared, so the time taken does not say which key came close.
            var match: IngestRoute?
            for route in routes where route.app == app && constantTimeEquals(route.streamKey, streamKey) { match = route }
            if let match {
                guard match.busy.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
                    return .refused(code: "NetStream.Publish.BadName", notify: [])
                }
                table[at.key, at.generation]?.unauthenticated -= 1
                return .accepted(match, token: tokens.add(1, ordering: .relaxed).newValue)
            }
            let notify = routes.map { route -> (RelaySession, PublisherRefusal) in
                if app.isEmpty { return (route.session, .missingApplication) }
                if route.app == app { return (route.session, .wrongStreamKey) }
                return (route.session, .wrongApplication(requested: app, expected: route.app))
            }
            return .refused(code: "NetStream.Publish.BadName", notify: notify)
        }
    }

    fileprivate func release(_ route: IngestRoute) {
        route.busy.store(false, ordering: .relaxed)
    }
}

/// One accepted ingest connection: the pure `ServerConnection` fed from the socket, the publisher routed by
/// application and key at `publish`, its media handed to the job's session once per read burst.
final class IngestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The listener a connection came in on: its key and generation in the registry's table.
    struct Listener {
        let key: String
        let generation: Int
    }

    private let registry: IngestRegistry
    private let listener: Listener
    private var connection = ServerConnection(limits: Limits())
    private var route: IngestRoute?
    private var token = 0
    private var outbound: ByteBuffer?
    private var batch: [Message] = []
    private var batchBytes = 0
    private var acceptedAt: NIODeadline = .now()
    private var lastRead: NIODeadline = .now()
    private var watchdog: RepeatedTask?
    private var cleanEnd = true
    private var closing = false
    private var counted = true

    init(registry: IngestRegistry, listener: Listener) {
        self.registry = registry
        self.listener = listener
    }

    func channelActive(context: ChannelHandlerContext) {
        acceptedAt = .now()
        lastRead = acceptedAt
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        watchdog = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            let (handler, context) = bound.value
            handler.checkTimeouts(context)
        }
        context.fireChannelActive()
    }

    fileprivate func checkTimeouts(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if !connection.isHandshakeComplete && now - acceptedAt >= .seconds(IngestRegistry.handshakeTimeout) {
            context.close(promise: nil)
        } else if route == nil && now - lastRead >= .seconds(IngestRegistry.prePublishIdleTimeout) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        lastRead = .now()
        batchBytes += buffer.readableBytes
        do {
            let actions = try buffer.withUnsafeReadableBytes { try connection.receive($0) }
            perform(actions, context: context)
        } catch {
            cleanEnd = false
            closing = true
            deliverBatch()
            flushOutbound(context)
            context.close(promise: nil)
        }
    }

    private func perform(_ actions: [ServerAction], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case let .send(bytes):
                if outbound == nil { outbound = context.channel.allocator.buffer(capacity: bytes.count) }
                outbound?.writeBytes(bytes)
            case let .publishRequested(app, streamKey):
                guard route == nil else {
                    perform(connection.refusePublish(code: "NetStream.Publish.BadName", description: "NetStream.Publish.BadName: already publishing"), context: context)
                    continue
                }
                switch registry.claim(listener, app: app, streamKey: streamKey) {
                case let .accepted(route, token):
                    self.route = route
                    self.token = token
                    let session = route.session
                    let channel = context.channel
                    session.loop.execute { session.publisherAttached(token, channel: channel) }
                    perform(connection.acceptPublish(), context: context)
                case let .refused(code, notify):
                    for (session, refusal) in notify { session.loop.execute { session.recordRefusal(refusal) } }
                    perform(connection.refusePublish(code: code, description: "NetStream.Publish.BadName: no job expects a publisher under this application and stream key"), context: context)
                    closing = true
                    flushOutbound(context)
                    context.close(promise: nil)
                    return
                }
            case let .media(message):
                if route != nil { batch.append(message) }
            case .unpublished:
                deliverBatch()
                detach(clean: true)
            case .playRequested:
                // Not made with servesPlayers: the ingest takes publishers only (play gets _error).
                break
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushOutbound(context)
        deliverBatch()
        context.fireChannelReadComplete()
    }

    private func flushOutbound(_ context: ChannelHandlerContext) {
        guard let bytes = outbound else { return }
        outbound = nil
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    private func deliverBatch() {
        guard let route, !batch.isEmpty || batchBytes > 0 else {
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
            return
        }
        let messages = batch
        let bytes = batchBytes
        let token = self.token
        batch = []
        batchBytes = 0
        let session = route.session
        let receivedAt = NIODeadline.now().uptimeNanoseconds
        session.loop.execute { session.publisherMedia(token, messages, receivedAt: receivedAt, bytes: bytes) }
    }

    private func detach(clean: Bool) {
        guard let route else { return }
        self.route = nil
        let session = route.session
        let token = self.token
        session.loop.execute { session.publisherDetached(token, clean: clean) }
        registry.release(route)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        cleanEnd = false
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watchdog?.cancel()
        watchdog = nil
        deliverBatch()
        let wasAuthenticated = route != nil || token != 0
        detach(clean: cleanEnd)
        if counted {
            counted = false
            registry.closed(listener, wasAuthenticated: wasAuthenticated)
        }
        context.fireChannelInactive()
    }
}
