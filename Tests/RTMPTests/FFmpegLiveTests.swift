#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceTestSupport
import Testing
@testable import RTMP

/// ffmpeg 5.1 publishing to a ServerConnection over loopback TCP: ffmpeg must accept our handshake and replies
/// (connect _result, createStream _result, onStatus NetStream.Publish.Start) and its media must come out whole.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct FFmpegLiveTests {
    /// A listening loopback socket on a free port.
    final class Listener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw NginxRTMPTests.SocketError(operation: "bind", code: errno) }
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }

        /// The first connection within `milliseconds`, or nil.
        func accept(milliseconds: Int32) -> Int32? {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { return nil }
            let connection = Glibc.accept(descriptor, nil, nil)
            return connection >= 0 ? connection : nil
        }
    }

    @Test func ffmpegPublishesToServerConnection() throws {
        let listener = try Listener()
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-f", "lavfi", "-i", "sine",
                            "-c:v", "libx264", "-g", "30", "-c:a", "aac", "-t", "1", "-f", "flv", "rtmp://127.0.0.1:\(listener.port)/live/key"]
        try ffmpeg.run()
        defer { if ffmpeg.isRunning { ffmpeg.terminate() } }
        let connection = try #require(listener.accept(milliseconds: 10_000))
        defer { close(connection) }

        var server = ServerConnection()
        var events: [ServerAction] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Deadline(seconds: 20)
        reading: while !deadline.hasPassed {
            var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break reading }
            var actions = try buffer.withUnsafeBytes { try server.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            var index = 0
            while index < actions.count {
                switch actions[index] {
                case let .send(bytes):
                    let written = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    #expect(written == bytes.count)
                case .publishRequested:
                    events.append(actions[index])
                    actions += server.acceptPublish()
                default:
                    events.append(actions[index])
                }
                index += 1
            }
        }
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        #expect(events.first == .publishRequested(app: "live", streamKey: "key"))
        #expect(events.last == .unpublished)
        let media = events.compactMap { event -> Message? in
            if case let .media(message) = event { return message }
            return nil
        }
        #expect(media.filter { $0.type == .dataAMF0 }.count == 1)
        #expect(media.filter { $0.type == .video }.count >= 31, "the AVC sequence header and a second of frames")
        #expect(media.filter { $0.type == .audio }.count >= 44)
        #expect(media.first(where: { $0.type == .video })?.payload.prefix(2) == [0x17, 0x00])
    }
}
