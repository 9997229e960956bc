import Foundation
import NIOCore
import NIOPosix
import RTMP
import NIOConcurrencyHelpers

/// An RTMP server that accepts a publish and then stops reading, as a destination behind a saturated link does:
/// the relay's bytes pile up in the kernel and in its channel until the channel turns unwritable. `resume()`
/// reads again. The protocol is the pure `RTMP.ServerConnection`; every media message received is kept.
/// With `stopsReading: false` it is a plain destination that announces `capabilities` in its connect answer.
final class StuckDestination: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let log: StuckDestinationLog

    /// Binds 127.0.0.1 on a free port.
    init(capabilities: EnhancedCapabilities? = .relay(), stopsReading: Bool = true) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = StuckDestinationLog()
        log.state.withLockedValue { $0.resumed = !stopsReading }
        do {
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // Accepted sockets inherit a small receive window, so the relay's side fills within seconds.
                .serverChannelOption(.socketOption(.so_rcvbuf), value: 16 << 10)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StuckPublishHandler(log: log, capabilities: capabilities))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        guard let port = listener.localAddress?.port else {
            try? group.syncShutdownGracefully()
            throw LiveTestError("the stuck destination has no local port")
        }
        self.port = port
        self.group = group
        self.log = log
    }

    var url: String { "rtmp://127.0.0.1:\(port)/live/stuckkey" }

    /// Publishes accepted (one per connection the relay made).
    var publishes: Int { log.state.withLockedValue { $0.publishes } }
    /// Audio, video and data messages received, in order, over every connection.
    var media: [Message] { log.state.withLockedValue { $0.media } }
    var protocolErrors: [String] { log.state.withLockedValue { $0.protocolErrors } }

    /// Reads again on every connection (and no longer stops on later ones).
    func resume() {
        let channels = log.state.withLockedValue { state in
            state.resumed = true
            return state.connections
        }
        for channel in channels { _ = channel.setOption(ChannelOptions.autoRead, value: true) }
    }

    func close() {
        let channels = log.state.withLockedValue { $0.connections }
        for channel in channels { channel.close(promise: nil) }
        listener.close(promise: nil)
        try? group.syncShutdownGracefully()
    }
}

/// What the destination's handlers saw, shared with the test's thread.
final class StuckDestinationLog: Sendable {
    struct State {
        var connections: [any Channel] = []
        var publishes = 0
        var media: [Message] = []
        var protocolErrors: [String] = []
        var resumed = false
    }

    let state = NIOLockedValueBox(State())
}

/// One connection: bytes through `ServerConnection`, its answers written back; after accepting the publish it
/// stops reading until the destination is resumed.
private final class StuckPublishHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var connection: ServerConnection
    private let log: StuckDestinationLog

    init(log: StuckDestinationLog, capabilities: EnhancedCapabilities?) {
        self.log = log
        connection = ServerConnection(capabilities: capabilities)
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        log.state.withLockedValue { $0.connections.append(channel) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        do {
            let actions = try buffer.withUnsafeReadableBytes { try connection.receive($0) }
            apply(actions, context: context)
        } catch {
            log.state.withLockedValue { $0.protocolErrors.append("\(error)") }
            context.close(promise: nil)
        }
    }

    private func apply(_ actions: [ServerAction], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case let .send(bytes):
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
            case .publishRequested:
                apply(connection.acceptPublish(), context: context)
                let resumed = log.state.withLockedValue { state in
                    state.publishes += 1
                    return state.resumed
                }
                // What the kernel already holds is still read in this burst; nothing after it until `resume()`.
                if !resumed { _ = context.channel.setOption(ChannelOptions.autoRead, value: false) }
            case let .media(message):
                log.state.withLockedValue { $0.media.append(message) }
            case .unpublished, .playRequested:
                break
            }
        }
    }
}
