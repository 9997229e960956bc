import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A lossy, slow UDP path on loopback: datagrams sent to `port` reach the upstream `delay` later, and each direction
/// loses `lossPercent` of them at random (seeded), as `tc netem delay … loss …` would on a link; replies go back to the
/// last client the same way. For SRT tests: libsrt's ARQ has to recover real losses within its latency.
/// (This kernel has no netem qdisc, so the impairment lives here, in user space, with the same effect on the peers.)
///
/// One thread runs the relay: it waits on both sockets with `poll` and sends what is due.
public final class UDPImpairment: @unchecked Sendable {
    // Reason: `stopped`, `forwarded` and `dropped` are guarded by `lock`; the rest is the relay thread's own.

    /// The loopback port senders use.
    public let port: Int
    private let downstream: Int32
    private let upstream: Int32
    private var upstreamAddress: sockaddr_in
    private var client: sockaddr_in?
    private let delay: Double
    private let loss: Double
    private var random: SeededGenerator
    private var queue: [(due: Double, toUpstream: Bool, bytes: [UInt8])] = []
    private let lock = NSLock()
    private var stopped = false
    private var counts = (forwarded: 0, dropped: 0)

    /// - Parameters:
    ///   - upstreamPort: the loopback UDP port datagrams go to.
    ///   - delay: one-way delay added in each direction, seconds.
    ///   - lossPercent: datagrams lost in each direction, percent.
    ///   - seed: the loss pattern's seed.
    public init(to upstreamPort: Int, delay: Double, lossPercent: Double, seed: UInt64 = 42) throws {
        self.delay = delay
        loss = lossPercent / 100
        random = SeededGenerator(seed: seed)
        let listening = try Self.socket(port: 0)
        downstream = listening
        upstream = try Self.socket(port: 0)
        upstreamAddress = Self.address(port: upstreamPort)
        var bound = Self.address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) } }
        port = Int(UInt16(bigEndian: bound.sin_port))
        let thread = Thread { [self] in run() }
        thread.name = "udp-impairment"
        thread.start()
    }

    deinit { stop() }

    /// Datagrams relayed and lost so far, both directions.
    public var forwarded: Int { lock.withLock { counts.forwarded } }
    public var dropped: Int { lock.withLock { counts.dropped } }

    public func stop() {
        lock.withLock { stopped = true }
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func socket(port: Int) throws -> Int32 {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw UDPImpairmentError(description: "bind: \(String(cString: strerror(errno)))") }
        // Room for a burst the relay thread has not read yet (the kernel caps it at net.core.rmem_max).
        var size: Int32 = 4 << 20
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer {
            close(downstream)
            close(upstream)
        }
        while !lock.withLock({ stopped }) {
            let wait = queue.first.map { max(0, Int(($0.due - now()) * 1000)) } ?? 50
            var fds = [pollfd(fd: downstream, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, Int32(min(wait, 50)))
            // Every datagram waiting is taken at each wake, not one per socket: a relay thread that gets little CPU
            // beside a busy machine would otherwise leave the sockets' buffers to overflow, a loss no one counts.
            for (index, fd) in fds.enumerated() where fd.revents & Int16(POLLIN) != 0 {
                while true {
                    var from = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count = withUnsafeMutablePointer(to: &from) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT), $0, &length) }
                    }
                    guard count > 0 else { break }
                    if index == 0 { client = from }
                    if Double.random(in: 0..<1, using: &random) < loss {
                        lock.withLock { counts.dropped += 1 }
                        continue
                    }
                    queue.append((now() + delay, index == 0, Array(buffer[0..<count])))
                }
            }
            let current = now()
            while let first = queue.first, first.due <= current {
                queue.removeFirst()
                var target = first.toUpstream ? upstreamAddress : (client ?? upstreamAddress)
                let socket = first.toUpstream ? upstream : downstream
                _ = first.bytes.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &target) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(socket, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                lock.withLock { counts.forwarded += 1 }
            }
        }
    }
}

public struct UDPImpairmentError: Error, CustomStringConvertible {
    public var description: String
}
