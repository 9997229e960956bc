import Foundation
import NIOCore
import NIOPosix
import RTMP
import NIOConcurrencyHelpers

/// A one-stream RTMP origin for pull tests of Enhanced RTMP (nginx-rtmp forwards no enhanced video to its players):
/// it plays a recorded FLV file's tags at 1x to the first player, through the pure `RTMP.ServerConnection` made with
/// `servesPlayers`, then ends the stream (StreamEOF, Play.UnpublishNotify). Later players are accepted and get
/// nothing, so a pull that reconnects does not receive the recording twice.
final class EnhancedOrigin: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    let log: EnhancedOriginLog

    /// Binds 127.0.0.1 on a free port, serving the tags of the FLV file at `path`.
    init(flv path: String) throws {
        let tags = try EnhancedOrigin.tags(of: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = EnhancedOriginLog()
        do {
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(OriginPlayHandler(tags: tags, log: log))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        guard let port = listener.localAddress?.port else {
            try? group.syncShutdownGracefully()
            throw LiveTestError("the origin has no local port")
        }
        self.port = port
        self.group = group
        self.log = log
    }

    func url(key: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(key)" }

    func close() {
        listener.close(promise: nil)
        try? group.syncShutdownGracefully()
    }

    /// The audio, video and script-data tags of an FLV file as messages (timestamps with their extension byte).
    static func tags(of bytes: [UInt8]) throws -> [Message] {
        guard bytes.count >= 13, bytes.starts(with: Array("FLV".utf8)) else { throw LiveTestError("not an FLV file") }
        var messages: [Message] = []
        var position = 13
        while position + 11 <= bytes.count {
            let size = Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let timestamp = UInt32(bytes[position + 4]) << 16 | UInt32(bytes[position + 5]) << 8 | UInt32(bytes[position + 6])
                | UInt32(bytes[position + 7]) << 24
            let body = position + 11
            guard body + size <= bytes.count else { throw LiveTestError("FLV tag at \(position) runs past the file") }
            if [8, 9, 18].contains(bytes[position]) {
                messages.append(Message(typeID: bytes[position], timestamp: timestamp, streamID: 0, payload: Array(bytes[body..<body + size])))
            }
            position = body + size + 4
        }
        return messages
    }
}

/// What the origin did, shared with the test's thread.
final class EnhancedOriginLog: Sendable {
    struct State {
        var plays: [String] = []
        var sent = 0
        var protocolErrors: [String] = []
        var connections = 0
        var channelErrors: [String] = []
    }

    let state = NIOLockedValueBox(State())
}

/// One player's connection: bytes through `ServerConnection`; the first play gets the recording, paced at 1x.
private final class OriginPlayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var connection = ServerConnection(servesPlayers: true)
    private let tags: [Message]
    private let log: EnhancedOriginLog

    init(tags: [Message], log: EnhancedOriginLog) {
        self.tags = tags
        self.log = log
    }

    func channelActive(context: ChannelHandlerContext) {
        log.state.withLockedValue { $0.connections += 1 }
        context.fireChannelActive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        log.state.withLockedValue { $0.channelErrors.append("\(error)") }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let actions: [ServerAction]
        do {
            actions = try buffer.withUnsafeReadableBytes { try connection.receive($0) }
        } catch {
            log.state.withLockedValue { $0.protocolErrors.append("\(error)") }
            context.close(promise: nil)
            return
        }
        for action in actions {
            switch action {
            case let .send(bytes): write(bytes, context: context)
            case let .playRequested(_, key):
                let first = log.state.withLockedValue { state in
                    state.plays.append(key)
                    return state.plays.count == 1
                }
                for case let .send(bytes) in connection.acceptPlay() { write(bytes, context: context) }
                if first { play(from: 0, startedAt: NIODeadline.now(), context: context) }
            default: break
            }
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// Sends every tag due by now from `index` on, then schedules the rest; ends the stream after the last.
    private func play(from index: Int, startedAt: NIODeadline, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var index = index
        var bytes: [UInt8] = []
        let elapsed = (NIODeadline.now() - startedAt).nanoseconds / 1_000_000
        while index < tags.count, Int64(tags[index].timestamp) <= elapsed {
            connection.encodeMedia(tags[index], into: &bytes)
            index += 1
        }
        let sent = index
        log.state.withLockedValue { $0.sent = sent }
        guard index < tags.count else {
            write(bytes + connection.endPlay(), context: context)
            return
        }
        if !bytes.isEmpty { write(bytes, context: context) }
        let next = startedAt + .milliseconds(Int64(tags[index].timestamp))
        context.eventLoop.scheduleTask(deadline: next) { [self] in play(from: index, startedAt: startedAt, context: context) }
    }
}
