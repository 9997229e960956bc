import JobDocument
import CSRT
import NIOConcurrencyHelpers

/// A bound, listening SRT port. Each caller's handshake is put to `admit` (with its streamid and address); an
/// admitted caller that completes the handshake is handed to `onAccept`; one refused, by `admit` or later in the
/// handshake (a wrong passphrase), is reported to `onRefused`.
///
/// Threads: `admit` runs on libsrt's receive thread of this port, inside the handshake, so it must decide at once and
/// must not close an SRT socket (libsrt's receive thread would wait on itself); `onAccept` and `onRefused` run on
/// `sluice-srt`. After `close()` returns neither runs.
public final class SRTListener: Sendable {
    private let core: SRTListenerCore
    private let runtime: SRTRuntime
    /// The UDP port bound (the one asked for, or the ephemeral one chosen for port 0).
    public let boundPort: UInt16

    /// Binds `host:port` (an address literal; empty means every IPv4 address) and listens.
    /// - Parameters:
    ///   - host: the address to bind, e.g. `0.0.0.0`, `127.0.0.1` or `::`.
    ///   - port: the UDP port; 0 for an ephemeral one (`boundPort`).
    ///   - latencyMilliseconds: the receiver latency accepted connections ask for (SRTO_LATENCY).
    ///   - backlog: handshakes completed but not yet accepted by the loop.
    ///   - timestampBasedDelivery: false hands received messages over as soon as they are complete and in order
    ///     (a relay's input: its outputs pace it), true holds each until its send time plus the latency (SRTO_TSBPDMODE).
    ///   - admit: decides each handshake from `(streamID, peer)`; on libsrt's receive thread.
    ///   - onAccept: an admitted connection, not yet started, and its streamid; on `sluice-srt`.
    ///   - onRefused: `(peer, reason)` for every refused handshake; on `sluice-srt`.
    public init(host: String = "0.0.0.0", port: UInt16, latencyMilliseconds: Int = SRTURL.defaultLatencyMilliseconds,
                backlog: Int = 64, timestampBasedDelivery: Bool = true,
                admit: @escaping @Sendable (_ streamID: String, _ peer: String) -> SRTAdmission,
                onAccept: @escaping @Sendable (SRTConnection, _ streamID: String) -> Void,
                onRefused: @escaping @Sendable (_ peer: String, _ reason: String) -> Void) throws(SRTError) {
        guard SRTURL.latencyRange.contains(latencyMilliseconds) else {
            throw .invalidURL(reason: "latency \(latencyMilliseconds) ms is outside \(SRTURL.latencyRange)")
        }
        guard let address = SRTSocketAddress(literal: host, port: port) else {
            throw .unresolvable(host: host, message: "a listener binds an address literal")
        }
        runtime = try SRTRuntime.shared()
        let socket = try srtCall("srt_create_socket", srt_create_socket())
        do {
            for option: SRTSocketOption in [.liveTransport, .payloadSize(SRTConnection.messageSize), .latency(latencyMilliseconds),
                                            .sendBlocks(false), .receiveBlocks(false), .timestampBasedDelivery(timestampBasedDelivery)] {
                try option.set(on: socket)
            }
            try address.withSocketAddress { (pointer, length) throws(SRTError) in
                try srtCall("srt_bind", srt_bind(socket, pointer, length))
            }
            boundPort = try SRTSocketAddress.local(of: socket).port
            core = SRTListenerCore(socket: socket, loop: runtime.loop, admit: admit, onAccept: onAccept, onRefused: onRefused)
            // The opaque pointer carries the listener's socket id, never a Swift object, so a callback racing a
            // close finds nothing rather than a freed object.
            try srtCall("srt_listen_callback", srt_listen_callback(socket, srtListenCallback, UnsafeMutableRawPointer(bitPattern: Int(socket))))
            // Registered before listening, so the callback finds the listener from the first handshake on.
            try runtime.loop.register(socket, events: Int32(SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue), target: core)
        } catch {
            closeSocket(socket)
            throw error
        }
        do {
            try srtCall("srt_listen", srt_listen(socket, Int32(clamping: backlog)))
        } catch {
            core.close()
            throw error
        }
    }

    /// Stops listening. Connections already accepted stay open.
    public func close() {
        core.close()
    }

    deinit {
        core.close()
    }
}

/// A handshake admitted by the listen callback and not yet accepted or refused.
private struct PendingHandshake {
    var peer: String
    var admittedAt: ContinuousClock.Instant
}

/// The listener's state, reachable from the loop (accepting), the listen callback and the log router.
final class SRTListenerCore: SRTEventTarget {
    let socket: SRTSOCKET
    private let loop: SRTEventLoop
    private let admit: @Sendable (String, String) -> SRTAdmission
    private let onAccept: @Sendable (SRTConnection, String) -> Void
    private let onRefused: @Sendable (String, String) -> Void
    /// Admitted handshakes by the socket id libsrt gave them, until accepted or refused.
    private let pending = NIOLockedValueBox<[SRTSOCKET: PendingHandshake]>([:])
    private let closed = NIOLockedValueBox(false)
    /// A handshake admitted this long ago and still neither accepted nor refused is forgotten.
    private static let pendingLifetime = Duration.seconds(30)

    init(socket: SRTSOCKET, loop: SRTEventLoop, admit: @escaping @Sendable (String, String) -> SRTAdmission,
         onAccept: @escaping @Sendable (SRTConnection, String) -> Void, onRefused: @escaping @Sendable (String, String) -> Void) {
        self.socket = socket
        self.loop = loop
        self.admit = admit
        self.onAccept = onAccept
        self.onRefused = onRefused
    }

    /// The listen callback's decision for the new socket `candidate` (on libsrt's receive thread).
    func decide(candidate: SRTSOCKET, peer: String, streamID: String) -> Bool {
        switch admit(streamID, peer) {
        case let .accept(passphrase):
            if let passphrase {
                do {
                    try SRTSocketOption.passphrase(passphrase).set(on: candidate)
                } catch {
                    refuse(candidate: candidate, peer: peer, code: .forbidden, reason: "the job's passphrase was refused: \(error)")
                    return false
                }
            }
            let now = ContinuousClock.now
            pending.withLockedValue { table in
                table = table.filter { now - $0.value.admittedAt < Self.pendingLifetime }
                table[candidate] = PendingHandshake(peer: peer, admittedAt: now)
            }
            return true
        case let .refuse(reason, code):
            refuse(candidate: candidate, peer: peer, code: code, reason: reason)
            return false
        }
    }

    private func refuse(candidate: SRTSOCKET, peer: String, code: SRTRefusalCode, reason: String) {
        // A failure leaves libsrt's own reject code on the handshake; the caller is refused either way.
        _ = try? srtCall("srt_setrejectreason", srt_setrejectreason(candidate, code.rawValue))
        loop.post(owner: socket) { [onRefused] in onRefused(peer, reason) }
    }

    /// libsrt refused the handshake of `socket` after `admit` let it through; true when it was this listener's.
    func handshakeFailed(socket candidate: SRTSOCKET, reason: String) -> Bool {
        guard let handshake = pending.withLockedValue({ $0.removeValue(forKey: candidate) }) else { return false }
        loop.post(owner: socket) { [onRefused] in onRefused(handshake.peer, reason) }
        return true
    }

    /// On the loop: accepts every completed handshake.
    func handleEvent(readable: Bool, writable: Bool) {
        while true {
            var storage = sockaddr_storage()
            var length = Int32(MemoryLayout<sockaddr_storage>.size)
            let accepted = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_accept(socket, $0, &length) }
            }
            let peer: String
            let streamID: String
            do {
                let connection = try srtCall("srt_accept", accepted)
                peer = withUnsafePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SRTSocketAddress($0)?.text ?? "?" }
                }
                pending.withLockedValue { _ = $0.removeValue(forKey: connection) }
                do {
                    streamID = try readStreamID(of: connection)
                } catch {
                    closeSocket(connection)
                    onRefused(peer, "the accepted connection's streamid could not be read: \(error)")
                    continue
                }
                onAccept(SRTConnection(socket: connection, loop: loop, peerAddress: peer, streamID: streamID), streamID)
            } catch {
                // SRT_EASYNCRCV: nothing more to accept. Anything else means the listening socket itself is broken,
                // which the level-triggered epoll would report again at once: stop watching it rather than spin.
                if !error.wouldBlock { loop.unregister(socket) }
                return
            }
        }
    }

    func close() {
        guard closed.withLockedValue({ (isClosed: inout Bool) -> Bool in
            defer { isClosed = true }
            return !isClosed
        }) else { return }
        loop.unregister(socket)
        closeSocket(socket)
    }
}

/// libsrt's listen callback: finds the listener by the socket id in `opaque` and asks it.
private func srtListenCallback(_ opaque: UnsafeMutableRawPointer?, _ candidate: SRTSOCKET, _ handshakeVersion: Int32,
                               _ peerAddress: UnsafePointer<sockaddr>?, _ streamID: UnsafePointer<CChar>?) -> Int32 {
    let listenerSocket = SRTSOCKET(truncatingIfNeeded: Int(bitPattern: opaque))
    guard let runtime = try? SRTRuntime.shared(),
          let listener = runtime.loop.target(of: listenerSocket) as? SRTListenerCore else { return -1 }
    let peer = SRTSocketAddress(peerAddress)?.text ?? "?"
    return listener.decide(candidate: candidate, peer: peer, streamID: streamID.map { String(cString: $0) } ?? "") ? 0 : -1
}
