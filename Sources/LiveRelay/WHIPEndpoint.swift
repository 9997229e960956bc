// RFC 9725 (WHIP) §4.2 (the POST of an offer, 201 with the answer and a Location), §4.3 (DELETE of the session),
// §4.4 (no trickle ICE: PATCH is 405), §4.5 (OPTIONS) and §4.7 (Bearer tokens, RFC 6750 §3: 401 with
// WWW-Authenticate): every WHIP job of an engine naming one host:port shares one HTTP listener, routed by path.
import Foundation
import JobDocument
import MediaJob
import NIOCore
import NIOHTTP1
import NIOPosix

/// One job's claim on a shared HTTP listener: offers posted to `path` with `token` go to `session`, as its publisher
/// (WHIP) or as a viewer of one of its outputs (WHEP). Immutable, so `Sendable`.
final class WHIPRoute: Sendable {
    enum Kind: Sendable, Equatable {
        /// The job's input: a publisher posts here.
        case whip
        /// The job's output with this index: viewers post here.
        case whep(output: Int)
    }

    let listenerKey: String
    let path: String
    let token: String?
    let kind: Kind
    let session: RelaySession

    init(listenerKey: String, path: String, token: String?, kind: Kind, session: RelaySession) {
        self.listenerKey = listenerKey
        self.path = path
        self.token = token
        self.kind = kind
        self.session = session
    }

    /// Whether `authorization` (the request's header) carries the route's token; a route without one takes anyone.
    func admits(_ authorization: String?) -> Bool {
        guard let token else { return true }
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return false }
        return constantTimeEquals(String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces), token)
    }
}

/// A WHEP output's path is taken by another job.
struct OutputRouteError: Error, Sendable, CustomStringConvertible {
    var description: String
}

/// What a session answers to a WHIP request.
enum WHIPReply: Sendable {
    /// 201: the answer SDP and the resource's id (the last segment of its Location).
    case created(answer: String, resource: String)
    /// 200: the resource was deleted.
    case deleted
    /// Any refusal: its status and a reason in plain text.
    case refused(HTTPResponseStatus, String)
}

/// Every WHIP HTTP listener of an engine: all WHIP jobs naming one host:port share one, bound when the first starts
/// and closed when the last ends (`SharedListeners`).
final class WHIPRegistry: Sendable {
    /// An offer is a few kilobytes; 64 KiB leaves room for many m= lines and candidates.
    static let maxBodyBytes = 64 << 10
    /// Connections open at once on one listener (a publisher holds one for a POST and a DELETE).
    static let maxConnections = 256

    /// One port's routes, by path, and its open connections.
    private struct Listener {
        var routes: [String: WHIPRoute] = [:]
        var connections = 0
    }

    private let listeners = SharedListeners<Listener>()
    private let group: any EventLoopGroup

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// HTTP ports listening now.
    var listeningPorts: Int { listeners.listeningPorts }

    /// Claims `url`'s path on its host:port for `session`, binding the port if no job serves WHIP or WHEP there yet.
    func register(_ url: WHIPURL, token: String?, kind: WHIPRoute.Kind = .whip, session: RelaySession) -> Result<WHIPRoute, MediaJobError> {
        let key = url.hostAndPort
        let claim: (route: WHIPRoute, bind: Int?)? = listeners.withLocked { table in
            var listener = table[key] ?? Listener()
            guard listener.routes[url.path] == nil else { return nil }
            let route = WHIPRoute(listenerKey: key, path: url.path, token: token, kind: kind, session: session)
            listener.routes[url.path] = route
            return (route, table.put(key, listener))
        }
        guard let claim else {
            let reason = "another job already serves WHIP or WHEP at \(url.path) on \(key)"
            guard case let .whep(index) = kind else { return .failure(.liveInput(name: session.options.inputName, reason: reason)) }
            return .failure(.output(index: index, name: url.scheme.rawValue + "://" + key + url.path, OutputRouteError(description: reason)))
        }
        if let generation = claim.bind { bind(key, generation, host: url.host, port: url.port) }
        return .success(claim.route)
    }

    /// Removes a job's route; the last one closes the listener.
    func unregister(_ route: WHIPRoute) {
        listeners.leave(route.listenerKey) { listener in
            if listener.routes[route.path] === route { listener.routes[route.path] = nil }
            return !listener.routes.isEmpty
        }
    }

    /// Closes every listener (the engine shuts down).
    func closeAll() {
        listeners.closeAll()
    }

    private func bind(_ key: String, _ generation: Int, host: String, port: Int) {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                guard admit(key, generation) else { return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed) }
                channel.closeFuture.whenComplete { [self] _ in listeners.withLocked { $0[key, generation]?.connections -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(WHIPHTTPHandler(registry: self, listenerKey: key))
                }
            }
        listeners.bind(bootstrap, key: key, generation: generation, host: host, port: port) { listener, error in
            let reason = "cannot serve WHIP on \(key): \(describeNetworkError(error))"
            for route in listener.routes.values { route.session.loop.execute { route.session.failToListen(reason) } }
        }
    }

    /// Counts a new connection on the listener, unless it closed or holds `maxConnections` already.
    private func admit(_ key: String, _ generation: Int) -> Bool {
        listeners.withLocked { table in
            guard let listener = table[key, generation], listener.connections < Self.maxConnections else { return false }
            table[key, generation]?.connections += 1
            return true
        }
    }

    /// The route a request path names: the route itself (a POST), or one of its sessions, `PATH/RESOURCE` (a DELETE).
    fileprivate func lookup(_ path: String, on key: String) -> (route: WHIPRoute, resource: String?)? {
        listeners.withLocked { table in
            guard let routes = table[key]?.routes else { return nil }
            if let route = routes[path] { return (route, nil) }
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex,
                  let route = routes[String(path[..<slash])] else { return nil }
            return (route, String(path[path.index(after: slash)...]))
        }
    }
}

/// One HTTP connection of a WHIP listener: a request read whole (its body bounded), answered by the route's session.
/// Lives on its channel's loop; the session's answer comes back there (`NIOLoopBound`).
private final class WHIPHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: WHIPRegistry
    private let listenerKey: String
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(registry: WHIPRegistry, listenerKey: String) {
        self.registry = registry
        self.listenerKey = listenerKey
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            head = request
            body = []
            tooLarge = false
        case var .body(buffer):
            if body.count + buffer.readableBytes > WHIPRegistry.maxBodyBytes {
                tooLarge = true
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body += bytes
            }
        case .end:
            guard let request = head else { return }
            head = nil
            respond(to: request, context: context)
        }
    }

    private static let allowed = "OPTIONS, POST, DELETE"

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(request.uri.prefix { $0 != "?" })
        guard let (route, resource) = registry.lookup(path, on: listenerKey) else {
            return send(.notFound, "no WHIP or WHEP endpoint at this path\n", context: context, keepAlive: request.isKeepAlive)
        }
        switch (request.method, resource) {
        case (.OPTIONS, _):
            var headers = HTTPHeaders([("Allow", Self.allowed), ("Accept-Post", "application/sdp")])
            headers.add(name: "Access-Control-Allow-Methods", value: Self.allowed)
            headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type, If-Match")
            return send(.noContent, "", headers: headers, context: context, keepAlive: request.isKeepAlive)
        case (.POST, nil):
            guard route.admits(request.headers.first(name: "Authorization")) else { return unauthorized(request, context: context) }
            guard request.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/sdp") == true else {
                return send(.unsupportedMediaType, "a WHIP offer is Content-Type: application/sdp\n", context: context, keepAlive: request.isKeepAlive)
            }
            guard !tooLarge, !body.isEmpty else {
                return send(tooLarge ? .payloadTooLarge : .badRequest, tooLarge ? "the offer is over 64 KiB\n" : "the offer is empty\n",
                            context: context, keepAlive: request.isKeepAlive)
            }
            let offer = String(decoding: body, as: UTF8.self)
            let kind = route.kind
            reply(from: route, context: context, keepAlive: request.isKeepAlive) { session, promise in
                switch kind {
                case .whip: session.whipOffer(offer, promise: promise)
                case let .whep(output): session.whepOffer(offer, output: output, promise: promise)
                }
            }
        case let (.DELETE, resource?):
            guard route.admits(request.headers.first(name: "Authorization")) else { return unauthorized(request, context: context) }
            let kind = route.kind
            reply(from: route, context: context, keepAlive: request.isKeepAlive) { session, promise in
                switch kind {
                case .whip: session.whipDelete(resource, promise: promise)
                case .whep: session.whepDelete(resource, promise: promise)
                }
            }
        case (.PATCH, _?):
            // No trickle ICE or ICE restarts: our candidates are all in the answer, and a lite agent gathers no more.
            send(.methodNotAllowed, "this endpoint takes no trickle ICE or ICE restart (PATCH)\n",
                 headers: HTTPHeaders([("Allow", "DELETE")]), context: context, keepAlive: request.isKeepAlive)
        default:
            send(.methodNotAllowed, "\(request.method) is not served here\n",
                 headers: HTTPHeaders([("Allow", resource == nil ? "OPTIONS, POST" : "DELETE")]), context: context, keepAlive: request.isKeepAlive)
        }
    }

    private func unauthorized(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        send(.unauthorized, "a valid Bearer token is required\n", headers: HTTPHeaders([("WWW-Authenticate", "Bearer")]),
             context: context, keepAlive: request.isKeepAlive)
    }

    /// Hands the request to the route's session on its loop, and answers with what it says.
    private func reply(from route: WHIPRoute, context: ChannelHandlerContext, keepAlive: Bool,
                       _ body: @escaping @Sendable (RelaySession, EventLoopPromise<WHIPReply>) -> Void) {
        let promise = context.eventLoop.makePromise(of: WHIPReply.self)
        let session = route.session
        session.loop.execute { body(session, promise) }
        let path = route.path
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { reply in
            let (handler, context) = bound.value
            switch reply {
            case let .created(answer, resource):
                let headers = HTTPHeaders([("Content-Type", "application/sdp"), ("Location", "\(path)/\(resource)")])
                handler.send(.created, answer, headers: headers, context: context, keepAlive: keepAlive)
            case .deleted:
                handler.send(.ok, "", context: context, keepAlive: keepAlive)
            case let .refused(status, reason):
                handler.send(status, reason + "\n", context: context, keepAlive: keepAlive)
            }
        }
    }

    private func send(_ status: HTTPResponseStatus, _ text: String, headers extra: HTTPHeaders = HTTPHeaders(),
                      context: ChannelHandlerContext, keepAlive: Bool) {
        var headers = extra
        if headers.first(name: "Content-Type") == nil, !text.isEmpty { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        // A browser's page posts from another origin; it must be let read the answer and the Location.
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        headers.add(name: "Access-Control-Expose-Headers", value: "Location")
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !text.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil) }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
