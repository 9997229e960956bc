import Foundation
import NIOCore
import NIOPosix
import SluiceTestSupport
import Testing
@testable import LiveRelay

/// The WebRTC media port's own reads, with no session: what no session claims is counted, so the count shows that
/// every datagram sent was read. Paced reads turn automatic reading off; a paced port that ever failed to ask for its
/// next burst would stop reading for good, which is what these guard against.
@Suite("The WebRTC media port's reads")
struct WebRTCMediaPortTests {
    /// `count` datagrams of 64 bytes from `sender` to `target`, flushed together. Not STUN (the first byte is an RTP
    /// version's), so the port routes them by address and, with no session, counts them.
    static func send(_ count: Int, from sender: any Channel, to target: SocketAddress) async throws {
        try await sender.eventLoop.submit {
            for index in 0..<count {
                var buffer = sender.allocator.buffer(capacity: 64)
                buffer.writeBytes([0x80, 0x60] + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 62))
                sender.write(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
            }
            sender.flush()
        }.get()
    }

    @Test("paced (the default 10 ms) and unpaced: batches of 100 in a row, then one datagram at a time after the port was idle, all read",
          arguments: [10, 0])
    func everyDatagramIsRead(pacingMilliseconds: Int64) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let port = WebRTCMediaPort(group: group, port: 0, readPacing: .milliseconds(pacingMilliseconds))
        let bound = try await port.open().get()
        let sender = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: try #require(bound.localAddress?.port))
        var sent = 0
        // 100 at a time (each batch read before the next is sent): a 64-byte datagram takes ~1 KiB of the receive
        // buffer, and a machine's default limit (208 KiB) must not drop any.
        for _ in 0..<4 {
            try await Self.send(100, from: sender, to: target)
            sent += 100
            let expected = sent
            #expect(await eventually(timeout: .seconds(10)) { port.unroutedDatagrams == expected }, "\(port.unroutedDatagrams) of \(expected) read")
        }
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(30))
            try await Self.send(1, from: sender, to: target)
            sent += 1
            let expected = sent
            #expect(await eventually(timeout: .seconds(10)) { port.unroutedDatagrams == expected }, "\(port.unroutedDatagrams) of \(expected) read")
        }
        try await sender.close()
        port.close()
        try await group.shutdownGracefully()
    }
}
