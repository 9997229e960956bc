// RFC 8445 §2.2 and RFC 8839 §5.4 (host candidates), RFC 7983 (one port for STUN, DTLS and SRTP): every WHIP session of
// an engine on one UDP port, told apart by the ICE username its checks carry.
import Foundation
import MediaJob
import NIOCore
import NIOPosix
import WebRTC

/// The engine's one UDP port for WebRTC media. A Binding request is routed by the receiver's ufrag of its USERNAME
/// (ours, unique per session); the address it came from is then remembered for that session, and everything else from
/// that address (DTLS, SRTP, SRTCP) goes there too. What a session gets is checked by its own transport: the port only
/// routes. Datagrams of one read burst go to each session's loop in one hop.
///
/// Reads are paced as a playing pull's are (`ReadPacer`): after a burst the port waits a tick, 1 ms per session on
/// it up to `readPacing`, before it reads again, so one wake-up of its loop and one hop to each session's loop carry
/// every datagram that arrived meanwhile, instead of a wake-up and a hop per datagram. A datagram waits in the
/// kernel's buffer at most that tick (10 ms by default, reached at 10 sessions); a burst that filled the read reads
/// again at once.
///
/// `@unchecked Sendable`: the routing tables are guarded by `lock`; the channel is set once, under it.
final class WebRTCMediaPort: @unchecked Sendable {
    private let lock = NSLock()
    private var byUfrag: [String: RelaySession] = [:]
    private var byAddress: [SocketAddress: RelaySession] = [:]
    private var channel: (any Channel)?
    private var binding: EventLoopFuture<any Channel>?
    private var closed = false
    private let group: any EventLoopGroup
    let port: Int
    /// Datagrams no session claimed (a stranger, or a session that ended): counted, never logged one by one.
    private var unrouted = 0
    /// How many datagrams no session claimed so far.
    var unroutedDatagrams: Int { lock.withLock { unrouted } }

    /// The longest wait between read bursts; zero reads as datagrams arrive.
    let readPacing: TimeAmount

    /// Datagrams one read takes from the socket.
    static let datagramsPerRead = 16
    /// Reads (system calls) one read burst makes at most: a burst takes up to 256 datagrams.
    static let readsPerBurst = 16

    init(group: any EventLoopGroup, port: Int, readPacing: TimeAmount = .zero) {
        self.group = group
        self.port = port
        self.readPacing = readPacing
    }

    /// The wait after a read burst that did not fill the read: 1 ms per session the port routes to, up to
    /// `readPacing`.
    fileprivate var pacingTick: TimeAmount {
        ReadPacer.tick(members: lock.withLock { byUfrag.count }, maximum: readPacing)
    }

    /// Binds the port on first use; the future fails naming why it cannot be had.
    func open() -> EventLoopFuture<any Channel> {
        let (future, isNew): (EventLoopFuture<any Channel>, Bool) = lock.withLock {
            if let binding { return (binding, false) }
            let made = DatagramBootstrap(group: group.next())
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                // 4 MiB: a burst of many sessions' keyframes waits in the kernel while the loop works.
                .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                // Up to 16 datagrams a system call (recvmmsg), each in its own 2 KiB (a WebRTC datagram is under the
                // path's MTU): many sessions' packets cost fewer calls, and a read burst reaches each session in one hop.
                .channelOption(.datagramVectorReadMessageCount, value: Self.datagramsPerRead)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.datagramsPerRead * 2048))
                .channelOption(.maxMessagesPerRead, value: UInt(Self.readsPerBurst))
                // Paced: the handler asks for each read burst itself.
                .channelOption(.autoRead, value: readPacing == .zero)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(WebRTCDatagramHandler(port: self)) }
                }
                .bind(host: "0.0.0.0", port: port)
            binding = made
            return (made, true)
        }
        // Outside the lock: a future already complete runs its callback at once, on this thread.
        if isNew {
            future.whenComplete { [self] result in
                let stale: (any Channel)? = lock.withLock {
                    switch result {
                    case let .success(channel):
                        if closed { return channel }
                        self.channel = channel
                    case .failure:
                        // The next session tries again (the port may be free by then).
                        binding = nil
                    }
                    return nil
                }
                stale?.close(promise: nil)
            }
        }
        return future
    }

    /// Sessions answer checks naming `ufrag` from now on.
    func claim(ufrag: String, for session: RelaySession) {
        lock.withLock { byUfrag[ufrag] = session }
    }

    /// A session's publisher is gone: its ufrag and every address it used route nowhere.
    func release(ufrag: String, addresses: [SocketAddress]) {
        lock.withLock {
            byUfrag[ufrag] = nil
            for address in addresses { byAddress[address] = nil }
        }
    }

    /// Closes the port (the engine shuts down).
    func close() {
        let channel: (any Channel)? = lock.withLock {
            closed = true
            byUfrag = [:]
            byAddress = [:]
            return self.channel
        }
        channel?.close(promise: nil)
    }

    /// Sends `datagrams` from the port, in one hop to its loop.
    func send(_ datagrams: [(bytes: [UInt8], to: SocketAddress)]) {
        guard !datagrams.isEmpty, let channel = lock.withLock({ self.channel }) else { return }
        channel.eventLoop.execute {
            for datagram in datagrams {
                let buffer = channel.allocator.buffer(bytes: datagram.bytes)
                channel.write(AddressedEnvelope(remoteAddress: datagram.to, data: buffer), promise: nil)
            }
            channel.flush()
        }
    }

    /// The session a datagram from `source` goes to: by the USERNAME of a Binding request (and then its address is
    /// that session's), else by its address.
    fileprivate func route(_ datagram: [UInt8], from source: SocketAddress) -> RelaySession? {
        let ufrag = datagram.first.map { $0 < 4 } == true ? ICEUsername.receiverFragment(ofBindingRequest: datagram) : nil
        return lock.withLock {
            if let ufrag, let session = byUfrag[ufrag] {
                byAddress[source] = session
                return session
            }
            if let session = byAddress[source] { return session }
            unrouted += 1
            return nil
        }
    }
}

/// The media port's reader: datagrams gathered per session over a read burst, handed to each session's loop at its end.
/// When the port's reads are paced it asks for each burst: at once after a burst that filled the read, else after the
/// port's tick.
private final class WebRTCDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let port: WebRTCMediaPort
    private var burst: [ObjectIdentifier: (session: RelaySession, datagrams: [WebRTCReceived])] = [:]
    /// Datagrams the current burst read, routed or not.
    private var burstDatagrams = 0
    /// The next paced read, while one waits.
    private var nextRead: Scheduled<Void>?
    private var paced: Bool { port.readPacing > .zero }

    init(port: WebRTCMediaPort) {
        self.port = port
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        if paced { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        nextRead?.cancel()
        nextRead = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        burstDatagrams += 1
        var envelope = unwrapInboundIn(data)
        guard let bytes = envelope.data.readBytes(length: envelope.data.readableBytes), !bytes.isEmpty,
              let session = port.route(bytes, from: envelope.remoteAddress) else { return }
        burst[ObjectIdentifier(session), default: (session, [])].datagrams.append(WebRTCReceived(bytes: bytes, source: envelope.remoteAddress))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        for (_, entry) in burst {
            let (session, datagrams) = entry
            session.loop.execute { session.webrtcDatagrams(datagrams) }
        }
        burst.removeAll(keepingCapacity: true)
        context.fireChannelReadComplete()
        let filled = burstDatagrams >= WebRTCMediaPort.datagramsPerRead * WebRTCMediaPort.readsPerBurst
        burstDatagrams = 0
        guard paced, nextRead == nil else { return }
        if filled {
            context.read()
        } else {
            nextRead = context.eventLoop.assumeIsolated().scheduleTask(in: port.pacingTick) { [self] in
                nextRead = nil
                context.read()
            }
        }
    }
}

/// One datagram for a session, and where it came from.
struct WebRTCReceived: Sendable {
    var bytes: [UInt8]
    var source: SocketAddress
}

extension TransportAddress {
    /// The address of a NIO socket address (IPv4 or IPv6); nil for a Unix socket.
    init?(_ socket: SocketAddress) {
        switch socket {
        case let .v4(address):
            let raw = address.address.sin_addr.s_addr
            let bytes = withUnsafeBytes(of: raw) { Array($0) }
            self.init(address: bytes, port: UInt16(bigEndian: address.address.sin_port))
        case let .v6(address):
            var raw = address.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            self.init(address: bytes, port: UInt16(bigEndian: address.address.sin6_port))
        case .unixDomainSocket:
            return nil
        }
    }
}
