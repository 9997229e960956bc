import Foundation
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// A pull source: the client connection that plays the job's input, reconnected with backoff until the input
/// timeout passes without data; and the bootstrap every client connection (pull or publish) goes through.
/// A pull's connection and its retries.
struct PullSource {
    var handler: RTMPClientHandler?
    /// Bumped per connection, so a late callback of an earlier one is ignored.
    var generation = 0
    var failures = 0
    /// Why the latest connection failed or was refused (a TLS verification, a refused play), for the message when
    /// the input times out.
    var lastError: String?
    /// The current connection was closed for silence (once per connection).
    var stalledClose = false
    /// When the current connection was opened (uptime nanoseconds).
    var openedAt: UInt64 = 0
    var retry: Scheduled<Void>?
}

extension RelaySession {
    // MARK: Bootstrap

    /// Connects `handler` to `endpoint` (through TLS for rtmps); the future fails when the connection cannot be made.
    func open(_ endpoint: RTMPEndpoint, handler: RTMPClientHandler) -> EventLoopFuture<any Channel> {
        open(host: endpoint.host, port: endpoint.port, secure: endpoint.secure, handler: handler)
    }

    /// Connects `handler` to `host`:`port` over TCP, through TLS (verified by the engine's trust) when `secure`; the
    /// future fails when the connection cannot be made. RTMP and RTSP connections alike.
    func open(host: String, port: Int, secure: Bool, handler: any ChannelHandler) -> EventLoopFuture<any Channel> {
        var tls: NIOSSLContext?
        if secure {
            switch engine.tlsContext() {
            case let .success(context): tls = context
            case let .failure(error): return loop.makeFailedFuture(error)
            }
        }
        let bootstrap = bootstrap(host: host, handler: handler, tls: tls)
        // An address literal needs no resolver (whose blocking lookups run on a thread pool of their own).
        if let address = try? SocketAddress(ipAddress: host, port: port) {
            return bootstrap.connect(to: address)
        }
        return bootstrap.connect(host: host, port: port)
    }

    func bootstrap(host: String, handler: any ChannelHandler, tls: NIOSSLContext?) -> ClientBootstrap {
        let bound = NIOLoopBound(handler, eventLoop: loop)
        return ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(Int64(ClockConversion.nanoseconds(networkTimeout))))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
            .channelInitializer { channel in
                do {
                    if let tls {
                        let context = tls
                        // SNI carries a name, never an address literal.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(bound.value)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
    }

    var limits: Limits { Limits() }

    // MARK: Pull source

    func connectSource() {
        guard case let .pull(endpoint) = source.kind, !end.begun else { return }
        let generation = beginPullConnection()
        let connection = ClientConnection(mode: .play, app: endpoint.app, tcURL: endpoint.tcURL, streamKey: endpoint.streamKey, limits: limits)
        let handler = RTMPClientHandler(connection: connection) { [self] event in sourceEvent(generation, event) }
        handler.pacedReads.pacer = engine.readPacers?.on(loop).value
        source.pull.handler = handler
        open(endpoint, handler: handler).whenFailure { [self] error in
            if generation == source.pull.generation { source.pull.lastError = describeNetworkError(error) }
            // A stream that ended cleanly stays ended cleanly while reconnects fail (or are closed as stalled while they
            // connect): only data that then breaks off makes the end unclean.
            sourceLost(generation, clean: input.lastEndClean)
        }
    }

    /// A new connection of a pull (RTMP or SRT): its generation, counted, and the start of a new timeline segment.
    func beginPullConnection() -> Int {
        source.pull.generation += 1
        input.connections += 1
        source.pull.stalledClose = false
        source.pull.openedAt = RelaySession.now()
        timeline.beginSegment()
        return source.pull.generation
    }

    func sourceEvent(_ generation: Int, _ event: ClientEvent) {
        guard generation == source.pull.generation else { return }
        switch event {
        case .ready: break
        case let .media(messages, receivedAt, bytes): deliver(messages, receivedAt: receivedAt, bytes: bytes)
        case let .refused(reason):
            source.pull.lastError = "the server refused to play: \(reason)"
            source.pull.handler?.channel?.close(promise: nil)
        case .streamEnded:
            input.lastEndClean = true
            source.pull.handler?.channel?.close(promise: nil)
        case let .closed(error):
            if !input.lastEndClean, let error, source.pull.lastError?.hasPrefix("the server refused") != true { source.pull.lastError = error }
            sourceLost(generation, clean: input.lastEndClean)
        }
    }

    /// Opens the pull's connection, the first and each retry, whatever its protocol; a listen or external source has none.
    func connectPull() {
        switch source.kind {
        case .pull: connectSource()
        case .srtPull: connectSRTSource()
        case .rtspPull: connectRTSPSource()
        case .listen, .srtListen, .whipListen, .external: break
        }
    }

    func sourceLost(_ generation: Int, clean: Bool) {
        guard generation == source.pull.generation, !end.begun else { return }
        source.pull.generation += 1
        source.pull.handler = nil
        input.lastEndClean = clean
        source.pull.failures += 1
        let delay = options.reconnect.delay(beforeAttempt: source.pull.failures)
        source.pull.retry = loop.scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(delay)))) { [self] in
            connectPull()
        }
    }
}
