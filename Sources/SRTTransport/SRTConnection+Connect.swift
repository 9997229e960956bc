import CSRT
import Foundation
import JobDocument
import NamedThreads

extension SRTConnection {
    /// How long a caller waits for the handshake by default (libsrt's own default too).
    public static let defaultConnectTimeout = Duration.seconds(3)

    /// Calls `url` without blocking; `completion` gets the connection (not yet started) or the reason it failed,
    /// e.g. "the peer refused: wrong passphrase".
    ///
    /// Every caller of the process binds the same local UDP port (one per address family) unless `localPort` is
    /// given, so libsrt puts them on one multiplexer: one UDP socket and one pair of libsrt threads for all of them.
    /// - Parameters:
    ///   - url: a caller-mode URL (streamid, passphrase, pbkeylen and latency are applied).
    ///   - localPort: a local port of its own for this caller; nil shares the process's caller port.
    ///   - timeout: the handshake's deadline (SRTO_CONNTIMEO).
    ///   - timestampBasedDelivery: for a connection that receives: false hands messages over as soon as they are
    ///     complete and in order, true holds each until its send time plus the latency (SRTO_TSBPDMODE).
    ///   - completion: on `sluice-srt`, exactly once (on the calling thread only if libsrt cannot start at all).
    public static func connect(to url: SRTURL, localPort: UInt16? = nil, timeout: Duration = defaultConnectTimeout,
                               timestampBasedDelivery: Bool = true,
                               completion: @escaping @Sendable (Result<SRTConnection, SRTError>) -> Void) {
        let runtime: SRTRuntime
        do {
            runtime = try SRTRuntime.shared()
        } catch {
            completion(.failure(error))
            return
        }
        do throws(SRTError) {
            do throws(SRTAddressError) { try url.validate() } catch { throw .invalidURL(reason: "\(error)") }
            guard url.mode == .caller else { throw .invalidURL(reason: "connect needs a caller URL (mode=caller)") }
        } catch {
            runtime.loop.post(owner: nil) { completion(.failure(error)) }
            return
        }
        if let address = SRTSocketAddress(literal: url.host, port: url.port) {
            begin(url: url, address: address, localPort: localPort, timeout: timeout, timestampBasedDelivery: timestampBasedDelivery,
                  runtime: runtime, completion: completion)
            return
        }
        // The resolver blocks, so it runs on a short thread of its own, never on the caller's (maybe a loop).
        startNamedThread("sluice-resolve") {
            do throws(SRTError) {
                let address = try SRTSocketAddress.resolve(url.host, port: url.port)
                begin(url: url, address: address, localPort: localPort, timeout: timeout, timestampBasedDelivery: timestampBasedDelivery,
                      runtime: runtime, completion: completion)
            } catch {
                runtime.loop.post(owner: nil) { completion(.failure(error)) }
            }
        }
    }

    private static func begin(url: SRTURL, address: SRTSocketAddress, localPort: UInt16?, timeout: Duration,
                              timestampBasedDelivery: Bool, runtime: SRTRuntime, completion: @escaping @Sendable (Result<SRTConnection, SRTError>) -> Void) {
        let loop = runtime.loop
        do throws(SRTError) {
            let socket = try srtCall("srt_create_socket", srt_create_socket())
            // From here the connection owns the socket: a failure below releases it, and that closes the socket.
            let connection = SRTConnection(socket: socket, loop: loop, peerAddress: address.text, streamID: url.streamID ?? "")
            var options: [SRTSocketOption] = [
                .liveTransport, .payloadSize(messageSize), .latency(url.latencyMilliseconds), .sendBlocks(false),
                .receiveBlocks(false), .reuseAddress(true), .connectTimeout(Self.milliseconds(timeout)),
                .timestampBasedDelivery(timestampBasedDelivery),
            ]
            if let streamID = url.streamID { options.append(.streamID(streamID)) }
            if let passphrase = url.passphrase { options.append(.passphrase(passphrase)) }
            if url.keyLength != 0 { options.append(.keyLength(url.keyLength)) }
            for option in options { try option.set(on: socket) }
            try runtime.bindCaller(socket, family: address.family, localPort: localPort)
            try loop.register(socket, events: Int32(SRT_EPOLL_OUT.rawValue | SRT_EPOLL_ERR.rawValue),
                              target: SRTConnectAttempt(connection: connection, loop: loop, completion: completion))
            do throws(SRTError) {
                try address.withSocketAddress { (pointer, length) throws(SRTError) in
                    try srtCall("srt_connect", srt_connect(socket, pointer, length))
                }
            } catch {
                loop.unregister(socket)
                throw error
            }
        } catch {
            loop.post(owner: nil) { completion(.failure(error)) }
        }
    }

    /// A timeout in whole milliseconds, at least 1.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(clamping: seconds) &* 1000 &+ Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// A caller's handshake in progress, on the loop: done when libsrt reports the socket writable (connected) or in
/// error (refused, timed out).
private final class SRTConnectAttempt: SRTEventTarget {
    let connection: SRTConnection
    let loop: SRTEventLoop
    let completion: @Sendable (Result<SRTConnection, SRTError>) -> Void

    init(connection: SRTConnection, loop: SRTEventLoop, completion: @escaping @Sendable (Result<SRTConnection, SRTError>) -> Void) {
        self.connection = connection
        self.loop = loop
        self.completion = completion
    }

    func handleEvent(readable: Bool, writable: Bool) {
        let state = srt_getsockstate(connection.socket)
        guard state != SRTS_CONNECTING else { return }
        loop.unregister(connection.socket)
        if state == SRTS_CONNECTED {
            completion(.success(connection))
        } else {
            let code = srt_getrejectreason(connection.socket)
            completion(.failure(.rejected(code: code, reason: SRTRejectReason.text(code))))
        }
    }
}
