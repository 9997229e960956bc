#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceTestSupport
import MediaFormats
import Testing
@testable import RTMP

/// ClientConnection against the real nginx-rtmp that scripts/test starts ($SLUICE_TEST_RTMP_URL): one client
/// publishes, a second plays the same key, and the player receives the publisher's sequence headers and frames.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"] != nil, "needs scripts/test's nginx-rtmp"))
struct NginxRTMPTests {
    /// A blocking loopback TCP socket, enough to drive a connection state machine in a test.
    final class Socket {
        let descriptor: Int32

        init(port: UInt16) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else { throw SocketError(operation: "connect", code: errno) }
        }

        deinit { close(descriptor) }

        func write(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw SocketError(operation: "send", code: errno) }
                offset += written
            }
        }

        /// What arrives within `milliseconds` (empty on timeout).
        func read(milliseconds: Int32) throws -> [UInt8] {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw SocketError(operation: "recv", code: count == 0 ? 0 : errno) }
            return Array(buffer[0..<count])
        }
    }

    struct SocketError: Error {
        var operation: String
        var code: Int32
    }

    /// Reads and answers until `done` holds or 5 s pass; returns every non-send action.
    private func drive(_ socket: Socket, _ client: inout ClientConnection, until done: ([ClientAction]) -> Bool) throws -> [ClientAction] {
        var events: [ClientAction] = []
        let deadline = Deadline(seconds: 5)
        while !done(events), !deadline.hasPassed {
            let bytes = try socket.read(milliseconds: 100)
            guard !bytes.isEmpty else { continue }
            for action in try client.receive(bytes) {
                if case let .send(reply) = action { try socket.write(reply) } else { events.append(action) }
            }
        }
        return events
    }

    @Test func publishThenPlayThroughNginx() throws {
        let url = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"])
        let port = try #require(URLComponents(string: url)?.port.flatMap { UInt16(exactly: $0) })
        let key = "rtmp-core-\(UInt32.random(in: 0...UInt32.max))"

        var publisher = ClientConnection(mode: .publish, app: "live", tcURL: url, streamKey: key)
        let publishing = try Socket(port: port)
        try publishing.write(publisher.start())
        let published = try drive(publishing, &publisher) { $0.contains(.ready) }
        #expect(published == [.ready])
        #expect(publisher.isReady)

        var metadata: [UInt8] = []
        AMF0Encoding.append(.string("@setDataFrame"), into: &metadata)
        AMF0Encoding.append(.string("onMetaData"), into: &metadata)
        AMF0Encoding.append(.ecmaArray([AMF0Property("width", .number(64)), AMF0Property("height", .number(48))]), into: &metadata)
        let sequenceHeader: [UInt8] = [0x17, 0, 0, 0, 0, 0x01, 0x42, 0xC0, 0x0A, 0xFF, 0xE1, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x0A,
                                       0x01, 0x00, 0x04, 0x68, 0xCE, 0x3C, 0x80]
        let audioHeader: [UInt8] = [0xAF, 0x00, 0x12, 0x10]
        var out: [UInt8] = []
        publisher.encodeMedia(Message(type: .dataAMF0, timestamp: 0, streamID: 0, payload: metadata), into: &out)
        publisher.encodeMedia(Message(type: .video, timestamp: 0, streamID: 0, payload: sequenceHeader), into: &out)
        publisher.encodeMedia(Message(type: .audio, timestamp: 0, streamID: 0, payload: audioHeader), into: &out)
        let keyframe: [UInt8] = [0x17, 1, 0, 0, 0, 0, 0, 0, 5, 0x65, 0x88, 0x84, 0x00, 0x33] + Array(repeating: 0x5A, count: 6000)
        publisher.encodeMedia(Message(type: .video, timestamp: 0, streamID: 0, payload: keyframe), into: &out)
        try publishing.write(out)

        var player = ClientConnection(mode: .play, app: "live", tcURL: url, streamKey: key)
        let playing = try Socket(port: port)
        try playing.write(player.start())
        var events = try drive(playing, &player) { $0.contains(.ready) }
        #expect(player.isReady)
        // Frames published after the player joined reach it with their payloads intact (from a keyframe on:
        // the test server has wait_key on).
        out = []
        for index in 1...5 {
            let frame: [UInt8] = [index == 1 ? 0x17 : 0x27, 1, 0, 0, 0, 0, 0, 0, 3, 0x41, 0x9A, UInt8(index)] + Array(repeating: UInt8(index), count: 5000)
            publisher.encodeMedia(Message(type: .video, timestamp: UInt32(index * 40), streamID: 0, payload: frame), into: &out)
            // nginx-rtmp sends a player the AAC sequence header with its first audio frame.
            publisher.encodeMedia(Message(type: .audio, timestamp: UInt32(index * 40), streamID: 0, payload: [0xAF, 0x01, 0x21, UInt8(index)]), into: &out)
        }
        try publishing.write(out)
        // Until both of the last frames are in: the video at 200 ms can come in one read and its audio in the next.
        events += try drive(playing, &player) { events in
            [MessageType.video, .audio].allSatisfy { type in
                events.contains { if case let .media(message) = $0 { message.timestamp == 200 && message.type == type } else { false } }
            }
        }
        let media = events.compactMap { event -> Message? in
            if case let .media(message) = event { return message }
            return nil
        }
        #expect(media.contains { $0.type == .video && $0.payload == sequenceHeader })
        #expect(media.contains { $0.type == .audio && $0.payload == audioHeader })
        #expect(media.filter { $0.type == .audio && $0.payload.count == 4 && $0.payload[1] == 1 }.map(\.timestamp).last == 200)
        let frames = media.filter { $0.type == .video && $0.payload.count == 5012 }
        #expect(frames.map(\.payload.count) == Array(repeating: 5012, count: 5))
        #expect(frames.map(\.timestamp) == [40, 80, 120, 160, 200])
        #expect(frames.last?.payload.last == 5)

        // The publisher leaves: the player hears of it.
        try publishing.write(publisher.close())
        let ended = try drive(playing, &player) { $0.contains(.streamEnded) }
        #expect(ended.contains(.streamEnded))
    }
}
