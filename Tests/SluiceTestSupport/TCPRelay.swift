import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a loopback port of its own in front of a server (the private broker), so that a test can make that
/// server unreachable for the clients it gave the relay's port, without touching the server the other suites share.
/// One thread accepts; each connection gets a thread that copies bytes both ways and owns both sockets.
public final class TCPRelay: @unchecked Sendable {
    // Reason: `cutHow`, `closed`, `held`, `acceptedCount`, `trap`, `sprung` and `listener` are guarded by `condition`;
    // `port` and the upstream never change.

    /// How a cut looks to the clients.
    public enum Cut: String, Sendable, CaseIterable {
        /// Every connection is reset and new ones are refused, like a server whose host went away.
        case reset
        /// Connections stay open and nothing more passes either way; new ones are accepted and never answered, like a
        /// server that hangs: whatever waits on it waits for its own timeouts.
        case silent
    }

    /// How a sprung trap (`trap(_:when:)`) cuts the one connection it caught; the relay's other and later connections
    /// go on as before.
    public enum TrapCut: String, Sendable, CaseIterable {
        /// Nothing more passes either way and neither side hears of it: each finds out by its own timeouts.
        case silent
        /// The client hears nothing more, while the server's side is reset: the server drops the connection at once,
        /// and the client finds out by its own timeouts.
        case silentToClient
    }

    /// An armed trap: what it waits for in the client's bytes and how it cuts.
    private struct Trap {
        var pattern: [UInt8]
        var how: TrapCut
    }

    /// The loopback port clients connect to.
    public let port: Int
    private let upstreamHost: String
    private let upstreamPort: Int
    private let condition = NSCondition()
    private var listener: Int32
    private var cutHow: Cut?
    private var closed = false
    /// Connections accepted after a silent cut: never relayed, closed by `stop`.
    private var held: [Int32] = []
    private var acceptedCount = 0
    private var trap: Trap?
    private var sprung = 0

    /// Listens on a free loopback port and relays every connection to `host`:`port` (an IPv4 address).
    public init(to host: String, port upstreamPort: Int) throws {
        upstreamHost = host
        self.upstreamPort = upstreamPort
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TCPRelayError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = Self.address(host: "127.0.0.1", port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw TCPRelayError(description: "bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = descriptor
        let thread = Thread { [self] in acceptLoop(descriptor) }
        thread.name = "tcp-relay-accept"
        thread.start()
    }

    deinit {
        stop()
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Cuts the server off (see `Cut`); the relay stays cut until `stop`.
    public func cut(_ how: Cut) {
        locked {
            guard cutHow == nil, !closed else { return }
            cutHow = how
            condition.broadcast()
            // Wakes the accept loop, which closes the listener: new connections are refused.
            if how == .reset { wakeAcceptLoop() }
        }
    }

    /// With `condition` held: the accept loop closes the listener (and forgets it) under it too, so this never
    /// reaches a descriptor number that was closed and reused by someone else.
    private func wakeAcceptLoop() {
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    /// Arms a one-shot trap: the first connection whose client sends `pattern` (under 256 bytes) is cut (`how`) before
    /// the read that completes it passes, so the server never sees it whole. Replaces a trap not sprung yet.
    public func trap(_ how: TrapCut, when pattern: [UInt8]) {
        locked { trap = Trap(pattern: pattern, how: how) }
    }

    /// How many traps have sprung so far.
    public var trapsSprung: Int { locked { sprung } }

    /// Takes the armed trap if `bytes` (the client's latest read, after the tail of the one before) hold its pattern.
    private func spring(_ bytes: [UInt8]) -> TrapCut? {
        locked {
            guard let armed = trap, Self.contains(bytes, armed.pattern) else { return nil }
            trap = nil
            sprung += 1
            return armed.how
        }
    }

    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { start in
            bytes[start] == pattern[0] && bytes[start..<(start + pattern.count)].elementsEqual(pattern)
        }
    }

    /// Closes every connection and the listener.
    public func stop() {
        let open: [Int32] = locked {
            guard !closed else { return [] }
            closed = true
            condition.broadcast()
            wakeAcceptLoop()
            defer { held = [] }
            return held
        }
        for descriptor in open { Self.reset(descriptor) }
    }

    private var isCut: Bool { locked { cutHow != nil || closed } }

    /// Connections accepted so far (relayed or, after a silent cut, held).
    public var accepted: Int { locked { acceptedCount } }

    private func acceptLoop(_ listening: Int32) {
        defer {
            locked {
                listener = -1
                close(listening)
            }
        }
        while true {
            let client = accept(listening, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted: Bool? = locked {
                guard !closed, cutHow != .reset else { return nil }
                acceptedCount += 1
                guard cutHow == .silent else { return true }
                held.append(client)
                return false
            }
            guard let admitted else {
                close(client)
                return
            }
            guard admitted else { continue }
            let upstream = Self.connect(to: upstreamHost, port: upstreamPort)
            guard upstream >= 0 else {
                Self.reset(client)
                continue
            }
            let thread = Thread { [self] in pump(client, upstream) }
            thread.name = "tcp-relay-pump"
            thread.start()
        }
    }

    /// Copies bytes both ways until either side closes or the relay is cut. A silent cut stops the copying and keeps
    /// both sockets open until `stop`; otherwise both close at once, with a reset.
    private func pump(_ client: Int32, _ upstream: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        // The client's last bytes, so that a trap's pattern split across two reads is still seen.
        var tail: [UInt8] = []
        copying: while !isCut {
            // A short poll, so that a cut stops the copying within 50 ms.
            guard poll(&descriptors, 2, 50) >= 0 || errno == EINTR else { break }
            for (index, entry) in descriptors.enumerated() where entry.revents != 0 {
                guard !isCut else { break copying }
                let to = index == 0 ? upstream : client
                let count = read(entry.fd, &buffer, buffer.count)
                if index == 0, count > 0 {
                    let seen = tail + buffer[0..<count]
                    if let how = spring(seen) {
                        hold(client, upstream, how)
                        return
                    }
                    tail = Array(seen.suffix(256))
                }
                guard count > 0, Self.writeAll(buffer, count: count, to: to) else { break copying }
            }
        }
        locked {
            while cutHow == .silent && !closed { condition.wait() }
        }
        Self.reset(client)
        Self.reset(upstream)
    }

    /// Cuts one connection a trap caught: the client's socket stays open and silent until `stop`; the server's is kept
    /// the same way, or reset.
    private func hold(_ client: Int32, _ upstream: Int32, _ how: TrapCut) {
        if how == .silentToClient { Self.reset(upstream) }
        let stopped = locked {
            guard !closed else { return true }
            held.append(client)
            if how == .silent { held.append(upstream) }
            return false
        }
        if stopped {
            Self.reset(client)
            if how == .silent { Self.reset(upstream) }
        }
    }

    private static func writeAll(_ buffer: [UInt8], count: Int, to descriptor: Int32) -> Bool {
        var written = 0
        while written < count {
            let sent = buffer.withUnsafeBytes { bytes in
                bytes.baseAddress.map { write(descriptor, $0 + written, count - written) } ?? -1
            }
            guard sent > 0 else { return false }
            written += sent
        }
        return true
    }

    private static func address(host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private static func connect(to host: String, port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = Self.address(host: host, port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Closes with an RST (linger 0), as a host that went away does, instead of a polite FIN.
    private static func reset(_ descriptor: Int32) {
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(descriptor)
    }
}

public struct TCPRelayError: Error, CustomStringConvertible {
    public let description: String
}
