import Foundation
import MediaJob
import Testing
@testable import MediaEngine
@testable import MediaSinks

/// A file output's two threads: the input thread submitting while the worker thread (or the lane's work, as a live
/// job's outputs on the file pool) writes, and fails. Run under `swift test --sanitize=thread` (scripts/test does in
/// CI), this is where a race between them would show.
@Suite("FileOutput")
struct FileOutputTests {
    /// A sink that records what it was given and throws on its `failingWrite`-th write.
    final class RecordingSink: PacketSink, @unchecked Sendable {
        struct Failure: Error {}
        let wantsVideo = true
        let wantsAudio = true
        let file: FileWriter
        private let failingWrite: Int?
        private(set) var bytesWritten: Int64 = 0
        private(set) var written: [MediaPacket] = []

        init(file: FileWriter, failingWrite: Int?) {
            self.file = file
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

    static func packet(_ index: Int) -> MediaPacket {
        // A video keyframe every 25 packets, audio in between every other packet.
        let isVideo = index % 2 == 0
        return MediaPacket(
            kind: isVideo ? .video : .audio, data: [UInt8](repeating: 0, count: 64), pts: Int64(index), dts: Int64(index),
            isKeyframe: isVideo ? index % 50 == 0 : true)
    }

    /// A lane on a serial queue of its own, counting the pieces of work it was given.
    final class CountingLane: FileWorkLane {
        private let queue = DispatchQueue(label: "file-output-tests-lane")
        private let lock = NSLock()
        // Reason: read and written under `lock` only.
        nonisolated(unsafe) private var count = 0
        var pieces: Int { lock.withLock { count } }

        func submit(_ work: @escaping @Sendable () -> Void) {
            lock.withLock { count += 1 }
            queue.async(execute: work)
        }
    }

    static func worker(in directory: URL, failingWrite: Int?, lane: CountingLane? = nil) throws -> (FileOutput, RecordingSink) {
        let file = try FileWriter(path: directory.appendingPathComponent("out.bin").path)
        let sink = RecordingSink(file: file, failingWrite: failingWrite)
        return (FileOutput(index: 0, name: "out.bin", sink: sink, lane: lane), sink)
    }

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("output-worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a file output writes every packet in order on its own thread (or its lane) while the input keeps submitting",
          arguments: [false, true])
    func writesEveryPacket(onLane: Bool) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lane = onLane ? CountingLane() : nil
        let (worker, sink) = try Self.worker(in: directory, failingWrite: nil, lane: lane)
        worker.start()
        // More than the queue holds: the input waits for the worker (back-pressure), nothing is dropped.
        let count = FileOutput.maxQueuedPackets * 3
        for index in 0..<count { #expect(worker.submit(Self.packet(index))) }
        #expect(worker.close(commit: true) == nil)
        let progress = worker.progress
        #expect(progress.status == .finished)
        #expect(progress.packets == count && progress.drops == 0)
        #expect(progress.videoFrames == (count + 1) / 2)
        #expect(sink.written.map(\.dts) == (0..<count).map(Int64.init))
        if let lane {
            // The open, batches (of `batchPackets` or more, or what waited 50 ms), the end: never a piece per packet.
            #expect(lane.pieces >= 3 && lane.pieces < count / 8, "\(lane.pieces) pieces of work")
        }
    }

    @Test("a write error fails the output: the input is told, close returns the error, nothing more is written",
          arguments: [false, true])
    func failureStopsTheInput(onLane: Bool) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (worker, sink) = try Self.worker(in: directory, failingWrite: 40, lane: onLane ? CountingLane() : nil)
        worker.start()
        var refused = false
        for index in 0..<(FileOutput.maxQueuedPackets * 4) where !refused {
            refused = !worker.submit(Self.packet(index))
        }
        #expect(refused, "the input was never told that its output failed")
        #expect(worker.close(commit: true) is RecordingSink.Failure)
        #expect(worker.progress.status == .failed)
        #expect(sink.written.count == 39)
    }
}
