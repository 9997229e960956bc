import Foundation
import JobStore
@testable import Sluice
import Testing
import JobDocument

/// A clock the tests move by hand, so ages, durations and progress intervals are known.
final class TestClock: @unchecked Sendable {
    // Reason: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(_ seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }
}

/// A job database seeded with jobs in several states, secrets in their specs, and markup in their errors.
struct SeededStore {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    /// Strings that must never reach a page: the stream keys and credentials of the specs.
    static let secrets = ["SECRETKEY1", "SECRETKEY2", "hunter2", "tok=abc123", "VIEWERTOKEN9"]
    /// Markup in an error, which a page must escape.
    static let markupError = "<script>alert(1)</script> & \"quoted\""

    let folder: String
    let store: JobStore
    let clock: TestClock

    /// Video frames and bytes written per 2 s progress interval of the restream job.
    static let framesPerInterval = 60
    static let bytesPerInterval: Int64 = 750_000

    init() throws {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        folder = (base as NSString).appendingPathComponent("http-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clock = TestClock(Self.start)
        self.clock = clock
        store = try JobStore(path: (folder as NSString).appendingPathComponent("jobs.sqlite"), busyTimeout: 0.2,
                             now: { clock.now })
        let runner = JobRunner(store: store, workerID: "worker-7", paths: .trusted)

        // A file archived to FLV and ADTS: succeeded, both outputs complete.
        try receive(runner, """
            {"id": "archive-0001", "input": "in/talk.mp4", "outputs": [{"url": "talk.flv"}, {"url": "talk.aac"}]}
            """)
        try store.startAttempt(id: "archive-0001", workerID: "worker-7")
        clock.advance(12.5)
        for index in 0..<2 {
            try store.updateOutput(jobID: "archive-0001", index: index, update: OutputUpdate(state: .succeeded, bytes: 1_000_000 + Int64(index), frames: 300))
        }
        try store.transition(id: "archive-0001", to: .succeeded, message: "300 video frames")
        clock.advance(30)

        // A restream with secrets in its URLs that failed after reconnects, with markup in its error.
        try receive(runner, """
            {"id": "cam42-restream", "input": "rtmp://ingest:hunter2@ingest.local/live/SECRETKEY1",
             "outputs": [{"url": "rtmp://a.example/live/SECRETKEY2?tok=abc123"}, {"url": "cam42.flv"}], "max_attempts": 3}
            """)
        try store.startAttempt(id: "cam42-restream", workerID: "worker-7")
        for sample in 1...10 {
            clock.advance(2)
            // The second half runs at half the bitrate and frame rate: the chart must show the step.
            let frames = (0..<sample).reduce(0) { total, index in total + (index >= 5 ? Self.framesPerInterval / 2 : Self.framesPerInterval) }
            let bytes = (0..<sample).reduce(Int64(0)) { total, index in total + (index >= 5 ? Self.bytesPerInterval / 2 : Self.bytesPerInterval) }
            try store.updateProgress(id: "cam42-restream", progress: JobProgress(
                mediaTimeSeconds: Double(sample * 2), frames: frames, bytesIn: bytes, bytesOut: bytes, dtsRepairs: 0,
                speed: 1, fps: Double(frames) / Double(sample * 2), bitrateKbps: Double(bytes) * 8 / 1000 / Double(sample * 2)))
        }
        try store.updateOutput(jobID: "cam42-restream", index: 0, update: OutputUpdate(
            state: .failed, bytes: 4_500_000, frames: 450, drops: 17, reconnects: 4,
            lastError: "cannot connect to rtmp://a.example/live/***: Connection refused"))
        try store.updateOutput(jobID: "cam42-restream", index: 1, update: OutputUpdate(state: .failed, bytes: 4_600_000, frames: 455))
        try store.transition(id: "cam42-restream", to: .failed, error: "job cam42-restream: \(Self.markupError)")
        clock.advance(60)

        // A document that did not validate.
        _ = try runner.run(document: Data(#"{"id": "bad-spec-7", "input": "a.mp4", "outputs": [], "colour": "red"}"#.utf8))
        clock.advance(5)

        // One running now, started 90 s ago, with a WHEP output its viewers need a token for.
        try receive(runner, """
            {"id": "live-0099", "input": "rtmp://ingest.local/live/SECRETKEY1",
             "outputs": [{"url": "live.flv"}, {"url": "whep://0.0.0.0:8088/watch/live-0099", "token": "VIEWERTOKEN9"}]}
            """)
        try store.startAttempt(id: "live-0099", workerID: "worker-7")
        clock.advance(90)
    }

    private func receive(_ runner: JobRunner, _ json: String) throws {
        let spec = try JobSpec.parse(Data(json.utf8))
        _ = try runner.receive(spec)
    }

    /// The ids seeded, newest first.
    static let jobIDs = ["live-0099", "bad-spec-7", "cam42-restream", "archive-0001"]
}
