import Foundation
import Testing
@testable import MediaEngine

/// A network output's two threads: the input thread submitting through the keyframe gate while the worker
/// thread loses its connection and resumes. Run under `swift test --sanitize=thread` (scripts/test does in CI),
/// this is where a race between them would show.
@Suite("OutputWorker")
struct OutputWorkerTests {
    /// A sink that records what it was given and throws on its `failingWrite`-th write.
    final class RecordingSink: PacketSink, @unchecked Sendable {
        struct Failure: Error {}
        let wantsVideo = true
        let wantsAudio = true
        let writer: TargetWriter
        private let failingWrite: Int?
        private(set) var bytesWritten: Int64 = 0
        private(set) var written: [MediaPacket] = []

        init(writer: TargetWriter, failingWrite: Int?) {
            self.writer = writer
            self.failingWrite = failingWrite
        }

        func open() throws {}
        func write(_ packet: MediaPacket) throws {
            if written.count + 1 == failingWrite { throw Failure() }
            written.append(packet)
            bytesWritten += Int64(packet.data.count)
        }
        func finish() throws {}
        func abandon() {}
    }

    /// Every sink the connector made, in order (a class: the connector closure and the test share it).
    /// An NSLock: ThreadSanitizer cannot see Synchronization.Mutex on Linux.
    final class Connections: @unchecked Sendable {
        private let lock = NSLock()
        private var sinks: [RecordingSink] = []
        func withLock<R>(_ body: (inout [RecordingSink]) throws -> R) rethrows -> R {
            lock.lock()
            defer { lock.unlock() }
            return try body(&sinks)
        }
    }

    static func packet(_ index: Int) -> MediaPacket {
        // A video keyframe every 25 packets, audio in between every other packet.
        let isVideo = index % 2 == 0
        return MediaPacket(
            kind: isVideo ? .video : .audio, data: [UInt8](repeating: 0, count: 64), pts: Int64(index), dts: Int64(index),
            isKeyframe: isVideo ? index % 50 == 0 : true)
    }

    /// A reconnect is slow enough for the queue to overflow behind it, so the input thread's gate is dropping
    /// (and counting) while the worker thread, reconnected, skips queued packets up to a keyframe.
    static let lostConnections = 25

    @Test("a connection lost mid-stream resumes at a video keyframe while the input keeps submitting")
    func reconnectWhileSubmitting() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("output-worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sinks = Connections()
        let worker = OutputWorker(
            index: 0, name: "rtmp://example/live", video: KeyframeDropGateTests.configuration, audio: nil,
            policy: ReconnectPolicy(attempts: 3, initialDelay: 0.001, maxDelay: 0.001),
            interrupter: Interrupter(), timeout: nil
        ) { _, _ in
            if sinks.withLock({ !$0.isEmpty }) { usleep(20_000) }
            return try sinks.withLock { sinks in
                let writer = try TargetWriter(
                    target: .file(path: directory.appendingPathComponent("\(sinks.count).bin").path), interrupter: Interrupter())
                // Every connection but the last fails on its 40th write.
                let sink = RecordingSink(writer: writer, failingWrite: sinks.count < Self.lostConnections ? 40 : nil)
                sinks.append(sink)
                return sink
            }
        }
        worker.start()
        var submitted = 0
        // Until the last connection has taken a few keyframes' worth.
        while sinks.withLock({ $0.count <= Self.lostConnections }) || submitted % 1000 != 0 {
            #expect(worker.submit(Self.packet(submitted)))
            submitted += 1
            if submitted % 16 == 0 { usleep(10) }
        }
        #expect(worker.close(commit: true) == nil)

        let progress = worker.progress
        #expect(progress.status == .finished)
        #expect(progress.reconnects == Self.lostConnections)
        let connections = sinks.withLock { $0 }
        try #require(connections.count == Self.lostConnections + 1)
        for connection in connections.dropFirst() {
            let first = try #require(connection.written.first, "a new connection wrote nothing")
            #expect(first.kind == .video && first.isKeyframe, "a new connection started at \(first.kind) dts \(first.dts)")
        }
        // Written packets follow input order on each connection.
        for connection in connections {
            let order = connection.written.map(\.dts)
            #expect(order == order.sorted())
        }
        #expect(progress.packets == connections.map(\.written.count).reduce(0, +))
        #expect(progress.packets + progress.drops < submitted)
        #expect(progress.drops > 0)
    }
}
