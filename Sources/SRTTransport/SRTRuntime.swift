import CSRT
#if canImport(Glibc)
import Glibc
import NIOConcurrencyHelpers
#endif

/// One line libsrt logged at warning level or above.
public struct SRTLogMessage: Equatable, Sendable {
    public enum Level: Equatable, Sendable {
        case fatal, error, warning
    }

    public var level: Level
    /// The libsrt function that logged it, e.g. `newConnection`.
    public var area: String
    public var text: String
}

/// libsrt in this process: `srt_startup` once, its log lines routed to Swift, the `sluice-srt` loop, and the one
/// local port every caller binds, so callers share one UDP socket and one pair of libsrt threads.
///
/// Threads in an SRT process: `sluice-srt` (this module's loop, every callback), and libsrt's own: `SRT:GC` (one,
/// from `srt_startup`, closes sockets), `SRT:SndQ` and `SRT:RcvQ` per multiplexer (one UDP socket: a listener with
/// its accepted connections, or all the callers sharing the caller port), and `SRT:TsbPd` per socket that has
/// received data (it releases packets at their play time). The listen callback (`admit`) runs on the listener's
/// `SRT:RcvQ` thread, inside the handshake; the log handler runs on whichever thread logged.
public final class SRTRuntime: Sendable {
    let loop: SRTEventLoop
    /// The bound caller port per address family (AF_INET, AF_INET6); nil until the first caller binds.
    private let callerPorts = NIOLockedValueBox<[Int32: UInt16]>([:])

    private static let started: Result<SRTRuntime, SRTError> = Result { () throws(SRTError) -> SRTRuntime in
        let runtime = try SRTRuntime()
        running.withLockedValue { $0 = runtime }
        return runtime
    }

    /// The runtime once started, for the log handler: libsrt may log while `started` is still being initialized,
    /// and reading it then would wait on its own initialization.
    fileprivate static let running = NIOLockedValueBox<SRTRuntime?>(nil)

    /// The process's runtime, started on first use.
    static func shared() throws(SRTError) -> SRTRuntime {
        try started.get()
    }

    private init() throws(SRTError) {
        try srtCall("srt_startup", srt_startup())
        srt_setloglevel(LOG_WARNING)
        srt_setlogflags(SRT_LOGF_DISABLE_TIME | SRT_LOGF_DISABLE_THREADNAME | SRT_LOGF_DISABLE_SEVERITY | SRT_LOGF_DISABLE_EOL)
        srt_setloghandler(nil, srtLogHandler)
        loop = try SRTEventLoop()
    }

    /// How long the `sluice-srt` thread sleeps after a wait that found data, in milliseconds (0: it waits again at
    /// once); clamped to 0...100. Read by the loop on every wake, so it holds from the next one.
    public static func setReadPacing(milliseconds: Int) {
        SRTEventLoop.readPacing.store(UInt32(min(max(milliseconds, 0), 100) * 1000), ordering: .relaxed)
    }

    /// Where libsrt's warning, error and fatal lines go, on the `sluice-srt` thread; nil (the default) drops them.
    /// libsrt writes neither passphrases nor streamids at these levels (only its compiled-out debug lines do).
    public static func setLogHandler(_ handler: (@Sendable (SRTLogMessage) -> Void)?) {
        logHandler.withLockedValue { $0 = handler }
    }

    private static let logHandler = NIOLockedValueBox<(@Sendable (SRTLogMessage) -> Void)?>(nil)

    /// One libsrt log line: a refused handshake goes to the listener that admitted the socket, and the line to the
    /// log handler, both on the loop thread.
    fileprivate func route(level: Int32, area: String, text: String) {
        if let (socket, reason) = SRTLogLine.handshakeRefusal(in: text) {
            for case let listener as SRTListenerCore in loop.allTargets {
                if listener.handshakeFailed(socket: socket, reason: reason) { break }
            }
        }
        guard let handler = Self.logHandler.withLockedValue({ $0 }) else { return }
        let message = SRTLogMessage(level: level <= LOG_CRIT ? .fatal : level <= LOG_ERR ? .error : .warning,
                                    area: area, text: text)
        loop.post(owner: nil) { handler(message) }
    }

    /// Binds a caller's socket: to `localPort` if given, else to the shared caller port of the target's family (SRTO_REUSEADDR
    /// makes libsrt add it to that port's multiplexer), taking a new port when that one is gone.
    func bindCaller(_ socket: SRTSOCKET, family: Int32, localPort: UInt16?) throws(SRTError) {
        if let localPort {
            try bind(socket, SRTSocketAddress(wildcardOf: family, port: localPort))
            return
        }
        // NIOLockedValueBox rethrows untyped: the closure's result carries the typed error out.
        let bound = callerPorts.withLockedValue { (ports) -> Result<Void, SRTError> in
            if let port = ports[family], (try? bind(socket, SRTSocketAddress(wildcardOf: family, port: port))) != nil {
                return .success(())
            }
            return Result { () throws(SRTError) in
                try bind(socket, SRTSocketAddress(wildcardOf: family, port: 0))
                ports[family] = try SRTSocketAddress.local(of: socket).port
            }
        }
        try bound.get()
    }

    private func bind(_ socket: SRTSOCKET, _ address: SRTSocketAddress) throws(SRTError) {
        try address.withSocketAddress { (pointer, length) throws(SRTError) in
            try srtCall("srt_bind", srt_bind(socket, pointer, length))
        }
    }
}

/// libsrt's log handler (`srt_setloghandler`): a C function, so it reaches the runtime through the static.
private func srtLogHandler(_ opaque: UnsafeMutableRawPointer?, _ level: Int32, _ file: UnsafePointer<CChar>?, _ line: Int32,
                           _ area: UnsafePointer<CChar>?, _ message: UnsafePointer<CChar>?) {
    guard let message, let runtime = SRTRuntime.running.withLockedValue({ $0 }) else { return }
    let text = String(cString: message)
    runtime.route(level: level, area: area.map { String(cString: $0) } ?? "",
                  text: text.hasPrefix(": ") ? String(text.dropFirst(2)) : text)
}
