import CSRT
import NIOConcurrencyHelpers

/// How a connection ended without its owner closing it.
public enum SRTCloseReason: Equatable, Sendable {
    /// The peer closed it or stopped answering (libsrt reports both as a broken connection): libsrt's message.
    case broken(String)
    /// Reading failed otherwise, or the connection could not be watched.
    case failed(SRTError)
}

/// What `send` did with the bytes.
public enum SRTSendResult: Equatable, Sendable {
    /// Every byte was queued.
    case sent
    /// The send buffer filled: the first `sentBytes` bytes (whole messages) were queued, the rest was not.
    case wouldBlock(sentBytes: Int)
    case failed(SRTError)
}

/// One SRT connection in live mode, accepted by an `SRTListener` or made by `connect`. Owns its socket: `close()` or
/// the last reference closes it. Messages are at most 1316 bytes (seven 188-byte TS packets).
///
/// Threads: `receive` and `closed` run on `sluice-srt`, one call at a time; `send`, `statistics` and `close` may be
/// called from any thread (one sender at a time keeps messages in order). After `close()` returns no callback runs.
public final class SRTConnection: Sendable {
    /// SRTO_PAYLOADSIZE in live mode: seven TS packets, libsrt's default for MPEG-TS.
    public static let messageSize = 1316
    /// Messages read per wake at most, so one busy connection cannot starve the others on the loop.
    static let messagesPerBurst = 256
    /// The largest message a live-mode peer may send (SRT_LIVE_MAX_PLSIZE), the size of the read buffer.
    static let largestMessage = 1456

    let socket: SRTSOCKET
    private let loop: SRTEventLoop
    /// The peer's address, `host:port` (`[v6]:port`).
    public let peerAddress: String
    /// The streamid of the handshake: what the caller sent, or what we sent as the caller.
    public let streamID: String

    private enum State {
        case idle, started, closed
    }

    private let state = NIOLockedValueBox(State.idle)

    init(socket: SRTSOCKET, loop: SRTEventLoop, peerAddress: String, streamID: String) {
        self.socket = socket
        self.loop = loop
        self.peerAddress = peerAddress
        self.streamID = streamID
    }

    /// Starts reading. Only the first call counts.
    /// - Parameters:
    ///   - receive: every message readable at one wake of the loop, concatenated; on `sluice-srt`.
    ///   - closed: once, when the connection ends without `close()`; on `sluice-srt`.
    public func start(receive: @escaping @Sendable ([UInt8]) -> Void, closed: @escaping @Sendable (SRTCloseReason) -> Void) {
        guard state.withLockedValue({ (state: inout State) -> Bool in
            guard state == .idle else { return false }
            state = .started
            return true
        }) else { return }
        let reader = SRTConnectionReader(socket: socket, loop: loop, receive: receive, closed: closed)
        do throws(SRTError) {
            try loop.register(socket, events: Int32(SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue), target: reader)
        } catch {
            loop.post(owner: nil) { closed(.failed(error)) }
        }
    }

    /// Queues `bytes` as messages of `messageSize` bytes (the last one may be shorter), without blocking.
    public func send(_ bytes: [UInt8]) -> SRTSendResult {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .sent }
            var offset = 0
            while offset < buffer.count {
                let length = min(Self.messageSize, buffer.count - offset)
                let result = UnsafeRawPointer(base + offset).withMemoryRebound(to: CChar.self, capacity: length) { message in
                    srt_sendmsg2(socket, message, Int32(length), nil)
                }
                do throws(SRTError) {
                    try srtCall("srt_sendmsg2", result)
                } catch {
                    return error.wouldBlock ? .wouldBlock(sentBytes: offset) : .failed(error)
                }
                offset += length
            }
            return .sent
        }
    }

    /// The connection's counters now; the rates cover the time since the previous call.
    public func statistics() throws(SRTError) -> SRTStatistics {
        var counters = SRT_TRACEBSTATS()
        // clear = 1 starts a new interval for the rates; the totals are never cleared.
        try srtCall("srt_bstats", srt_bstats(socket, &counters, 1))
        return SRTStatistics(
            roundTripMilliseconds: counters.msRTT, packetsSent: counters.pktSentTotal, packetsReceived: counters.pktRecvTotal,
            packetsSendLost: Int64(counters.pktSndLossTotal), packetsReceiveLost: Int64(counters.pktRcvLossTotal),
            packetsRetransmitted: Int64(counters.pktRetransTotal), packetsSendDropped: Int64(counters.pktSndDropTotal),
            packetsReceiveDropped: Int64(counters.pktRcvDropTotal), bytesSent: counters.byteSentTotal,
            bytesReceived: counters.byteRecvTotal, sendMegabitsPerSecond: counters.mbpsSendRate,
            receiveMegabitsPerSecond: counters.mbpsRecvRate, unacknowledgedPackets: Int(counters.pktSndBuf))
    }

    /// The local address the socket is bound to, `host:port`: callers sharing the process's caller port all show it.
    public func localAddress() throws(SRTError) -> String {
        try SRTSocketAddress.local(of: socket).text
    }

    /// Closes the socket (libsrt tells the peer). Idempotent; no callback runs once it returns.
    public func close() {
        guard state.withLockedValue({ (state: inout State) -> Bool in
            defer { state = .closed }
            return state != .closed
        }) else { return }
        loop.unregister(socket)
        closeSocket(socket)
    }

    deinit {
        close()
    }
}

/// A started connection on the loop: reads bursts, and notices the end.
private final class SRTConnectionReader: SRTEventTarget {
    let socket: SRTSOCKET
    let loop: SRTEventLoop
    let receive: @Sendable ([UInt8]) -> Void
    let closed: @Sendable (SRTCloseReason) -> Void

    init(socket: SRTSOCKET, loop: SRTEventLoop, receive: @escaping @Sendable ([UInt8]) -> Void,
         closed: @escaping @Sendable (SRTCloseReason) -> Void) {
        self.socket = socket
        self.loop = loop
        self.receive = receive
        self.closed = closed
    }

    func handleEvent(readable: Bool, writable: Bool) {
        var burst: [UInt8] = []
        var message = [UInt8](repeating: 0, count: SRTConnection.largestMessage)
        var ending: SRTCloseReason?
        for _ in 0..<SRTConnection.messagesPerBurst {
            let count = message.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { srt_recvmsg2(socket, $0.baseAddress, Int32($0.count), nil) }
            }
            do throws(SRTError) {
                try srtCall("srt_recvmsg2", count)
            } catch {
                if !error.wouldBlock { ending = Self.reason(error) }
                break
            }
            burst.append(contentsOf: message.prefix(Int(count)))
        }
        if !burst.isEmpty { receive(burst) }
        if let ending {
            loop.unregister(socket)
            closed(ending)
        }
    }

    /// SRT_ECONNLOST and SRT_ENOCONN mean the connection is over; anything else is a read failure.
    private static func reason(_ error: SRTError) -> SRTCloseReason {
        guard case let .library(_, code, message) = error,
              code == SRT_ECONNLOST.rawValue || code == SRT_ENOCONN.rawValue || code == SRT_EINVSOCK.rawValue else {
            return .failed(error)
        }
        return .broken(message)
    }
}
