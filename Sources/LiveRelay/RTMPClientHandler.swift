import NIOCore
import NIOSSL
import NIOPosix
import RTMP

/// What a client connection tells its owner (the relay session), on the channel's event loop.
enum ClientEvent {
    /// Publish: NetStream.Publish.Start; play: NetStream.Play.Start.
    case ready
    /// Play: media received in one read burst, with the time the burst arrived (monotonic ns) and its size.
    case media([Message], receivedAt: UInt64, bytes: Int)
    /// The server refused (an error onStatus or _error).
    case refused(String)
    /// Play: the server says the stream ended.
    case streamEnded
    /// The connection is gone; `error` names why when it was not a clean close.
    case closed(error: String?)
}

/// A pull (play) or publish connection: bytes in through the pure `ClientConnection`, its answers out as
/// one write per read burst; media for a publish is encoded by the session through `encode`.
final class RTMPClientHandler: ChannelInboundHandler, PacedReader {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var connection: ClientConnection
    private let onEvent: (ClientEvent) -> Void
    private var outbound: ByteBuffer?
    private var batch: [Message] = []
    private var batchBytes = 0
    /// A playing pull's read pacing (`ReadPacer`).
    var pacedReads = PacedReads()
    private var end = ClientConnectionEnd()
    private var protocolFailed = false
    private(set) var context: ChannelHandlerContext?

    init(connection: ClientConnection, onEvent: @escaping (ClientEvent) -> Void) {
        self.connection = connection
        self.onEvent = onEvent
    }

    var channel: (any Channel)? { context?.channel }
    /// What the server's connect `_result` announced (Enhanced RTMP); nil when it announced nothing.
    var serverCapabilities: EnhancedCapabilities? { connection.serverCapabilities }
    var isWritable: Bool { context?.channel.isWritable ?? false }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        end.wasActive = true
        let hello = connection.start()
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: hello)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a protocol error the connection is closing: what else arrived is not read.
        guard !protocolFailed else { return }
        let buffer = unwrapInboundIn(data)
        batchBytes += buffer.readableBytes
        pacedReads.read(buffer.readableBytes)
        let actions: [ClientAction]
        do {
            actions = try buffer.withUnsafeReadableBytes { try connection.receive($0) }
        } catch {
            end.fail("protocol error from the server: \(error)")
            protocolFailed = true
            context.close(promise: nil)
            return
        }
        for action in actions {
            switch action {
            case let .send(bytes):
                if outbound == nil { outbound = context.channel.allocator.buffer(capacity: bytes.count) }
                outbound?.writeBytes(bytes)
            case .ready:
                deliverBatch()
                pacedReads.start(context.channel)
                onEvent(.ready)
            case let .media(message): batch.append(message)
            case let .refused(code, description):
                deliverBatch()
                end.fail("refused: \(code) \(description)")
                onEvent(.refused("\(code) \(description)"))
            case .streamEnded: deliverBatch(); onEvent(.streamEnded)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let bytes = outbound {
            outbound = nil
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        }
        deliverBatch()
        pacedReads.burstEnded(self, context: context)
        context.fireChannelReadComplete()
    }

    /// The pacer's tick: read what arrived since the last burst.
    func resumeReading() {
        context?.read()
    }

    private func deliverBatch() {
        guard !batch.isEmpty || batchBytes > 0 else { return }
        let messages = batch
        let bytes = batchBytes
        batch = []
        batchBytes = 0
        onEvent(.media(messages, receivedAt: NIODeadline.now().uptimeNanoseconds, bytes: bytes))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end.note(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pacedReads.stop(self)
        deliverBatch()
        reportClosed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pacedReads.stop(self)
        reportClosed()
        self.context = nil
    }

    private func reportClosed() {
        end.reportClosed { onEvent(.closed(error: $0 ?? "the server closed the connection")) }
    }

    // MARK: Publish side, called by the session on this channel's event loop

    /// Appends one media message's chunks to `out`.
    func encode(_ message: Message, into out: inout [UInt8]) {
        connection.encodeMedia(message, into: &out)
    }

    /// Writes (without flushing) bytes for the server.
    func write(_ buffer: ByteBuffer) {
        context?.write(wrapOutboundOut(buffer), promise: nil)
    }

    func flush() { context?.flush() }

    /// FCUnpublish / deleteStream, flushed, then the connection closed.
    func closePolitely() {
        guard let context else { return }
        let goodbye = connection.close()
        end.note("closed by the relay")
        if !goodbye.isEmpty {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: goodbye)), promise: nil)
        }
        context.close(promise: nil)
    }
}

/// How a client connection (an RTMP pull or publish, an RTSP pull) ended, told its owner once. Connect failures are
/// reported by the connect future: only a connection that was up reports its close, with the first reason noted.
struct ClientConnectionEnd {
    /// The connection became active.
    var wasActive = false
    /// Why it ends, as first noted: an error caught, a protocol error, a refusal, the relay closing it.
    private(set) var failure: String?
    private var reported = false

    /// Keeps `reason` unless one was noted before.
    mutating func note(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// The reason from now on, whatever was noted before (the server's own word: a refusal, a protocol error).
    mutating func fail(_ reason: String) { failure = reason }

    /// An error the channel caught, in an operator's words (`describeNetworkError`).
    mutating func note(_ error: any Error) { note(describeNetworkError(error)) }

    /// Calls `report` with the reason (nil: none was noted) the first time it is asked for a connection that was up;
    /// never again after.
    mutating func reportClosed(_ report: (String?) -> Void) {
        guard wasActive, !reported else { return }
        reported = true
        report(failure)
    }
}

/// A network error in words an operator recognises ("Connection refused"), never a URL.
func describeNetworkError(_ error: any Error) -> String {
    if let error = error as? NIOConnectionError {
        if let first = error.connectionErrors.first { return describeNetworkError(first.error) }
        if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve the host: \(dns)" }
        return "cannot connect to \(error.host):\(error.port)"
    }
    if let error = error as? IOError {
        return "\(error)"
    }
    if error is ChannelError, case ChannelError.connectTimeout = error {
        return "connect timed out"
    }
    if let error = error as? NIOSSLError, case let .handshakeFailed(reason) = error {
        return "TLS handshake failed: " + withoutSourceLocations("\(reason)")
    }
    return withoutSourceLocations("\(error)")
}

/// swift-nio-ssl ends each BoringSSL reason with the source file it came from ("CERTIFICATE_VERIFY_FAILED at
/// /…/handshake.cc:393"): a path of the machine that built Sluice, which tells an operator nothing.
func withoutSourceLocations(_ text: String) -> String {
    text.replacing(#/ at \/[^\s\]),"]*/#, with: "")
}
