import NIOCore

/// What an RTSP pull's connection tells its session, on the channel's event loop.
enum RTSPConnectionEvent {
    /// The connection is up (TLS included).
    case active
    /// Bytes from the server, one read.
    case received([UInt8])
    /// The reads of one burst are done: what they made goes out together.
    case readComplete
    /// The connection is gone; `error` names why when it was not the server's clean close.
    case closed(error: String?)
}

/// An RTSP pull's connection: bytes in to the session (which runs the pure `RTSPClientConnection`), bytes out as
/// it says. It holds no protocol state of its own. Once the camera plays, its reads are paced like an RTMP pull's
/// (`ReadPacer`): one read burst per loop tick, so the loop wakes once for many cameras' packets and each output gets
/// one write per tick.
final class RTSPClientHandler: ChannelInboundHandler, PacedReader {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let onEvent: (RTSPConnectionEvent) -> Void
    private var end = ClientConnectionEnd()
    private(set) var context: ChannelHandlerContext?
    /// A playing camera's read pacing (`ReadPacer`).
    var pacedReads = PacedReads()

    init(onEvent: @escaping (RTSPConnectionEvent) -> Void) {
        self.onEvent = onEvent
    }

    var channel: (any Channel)? { context?.channel }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        end.wasActive = true
        onEvent(.active)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pacedReads.read(buffer.readableBytes)
        onEvent(.received(buffer.readBytes(length: buffer.readableBytes) ?? []))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        onEvent(.readComplete)
        pacedReads.burstEnded(self, context: context)
        context.fireChannelReadComplete()
    }

    /// The camera plays: from now on the connection reads only when asked, after each burst at the pacer's next tick.
    func startPacing() { pacedReads.start(context?.channel) }

    /// The pacer's tick: read what arrived since the last burst.
    func resumeReading() {
        context?.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end.note(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pacedReads.stop(self)
        reportClosed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pacedReads.stop(self)
        reportClosed()
        self.context = nil
    }

    private func reportClosed() {
        end.reportClosed { onEvent(.closed(error: $0)) }
    }

    /// Writes and flushes bytes for the server.
    func send(_ bytes: [UInt8]) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// Writes `bytes` (a TEARDOWN), then closes the connection once they are written.
    func send(_ bytes: [UInt8], thenClose: Bool) {
        guard let context else { return }
        end.note("closed by the relay")
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// What one of a UDP pull's sockets tells its session.
enum RTSPDatagramEvent {
    case datagram(from: SocketAddress, [UInt8])
    case readComplete
}

/// One of a UDP pull's RTP or RTCP sockets: datagrams in to the session, with their sender.
final class RTSPDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onEvent: (RTSPDatagramEvent) -> Void

    init(onEvent: @escaping (RTSPDatagramEvent) -> Void) {
        self.onEvent = onEvent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        onEvent(.datagram(from: envelope.remoteAddress, envelope.data.readBytes(length: envelope.data.readableBytes) ?? []))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        onEvent(.readComplete)
        context.fireChannelReadComplete()
    }
}
