import Foundation
import Testing

@testable import JobStore

/// Progress samples and per-output counters (real SQLite files in a temp dir).
@Suite struct JobStoreProgressTests {
    @Test func progressUpdatesJobAndAppendsSamples() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        let reports = [
            JobProgress(mediaTimeSeconds: 1.0, frames: 30, bytesIn: 100_000, bytesOut: 90_000, dtsRepairs: 0, speed: 1.0, fps: 30, bitrateKbps: 720),
            JobProgress(mediaTimeSeconds: 2.0, frames: 60, bytesIn: 210_000, bytesOut: 180_000, dtsRepairs: 1, speed: 1.01, fps: 29.97, bitrateKbps: 735.5),
            JobProgress(mediaTimeSeconds: 3.5, frames: 105, bytesIn: 5_000_000_000, bytesOut: 4_500_000_000, dtsRepairs: 1),
        ]
        var times: [Date] = []
        for report in reports {
            clock.advance(by: 1)
            times.append(clock.now())
            try store.updateProgress(id: job.id, progress: report)
        }

        let samples = try store.progress(jobID: job.id)
        #expect(samples.count == 3)
        #expect(samples.map(\.at) == times)
        #expect(samples.map(\.mediaTimeSeconds) == [1.0, 2.0, 3.5])
        #expect(samples.map(\.frames) == [30, 60, 105])
        #expect(samples.map(\.bytesOut) == [90_000, 180_000, 4_500_000_000])
        #expect(samples.map(\.fps) == [30, 29.97, nil])
        #expect(samples.map(\.bitrateKbps) == [720, 735.5, nil])
        #expect(samples.allSatisfy { $0.jobID == job.id })

        let record = try #require(try store.job(id: job.id))
        #expect(record.mediaTimeSeconds == 3.5)
        #expect(record.frames == 105)
        #expect(record.bytesIn == 5_000_000_000)
        #expect(record.bytesOut == 4_500_000_000)
        #expect(record.dtsRepairs == 1)
        #expect(record.speed == nil)
        #expect(record.updatedAt == times.last)
    }

    /// Many jobs' records in one transaction: a record whose job or output has no row is refused by its position,
    /// leaves nothing of itself, and costs the others nothing.
    @Test func batchWritesEachRecordOrRefusesItAlone() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        for id in ["a", "b"] {
            _ = try store.receive(sampleJob(id: id))
            try store.startAttempt(id: id, workerID: "worker-a")
        }
        clock.advance(by: 1)
        func report(_ seconds: Double) -> JobProgress {
            JobProgress(mediaTimeSeconds: seconds, frames: Int(seconds * 30), bytesIn: 10, bytesOut: 20)
        }
        let refused = try store.updateProgress([
            ProgressRecord(id: "a", progress: report(4), outputs: [(1, OutputUpdate(state: .running, bytes: 77))]),
            ProgressRecord(id: "missing", progress: report(5)),
            ProgressRecord(id: "b", progress: report(6), outputs: [(0, OutputUpdate(bytes: 5)), (9, OutputUpdate(bytes: 1))]),
        ])

        #expect(refused.keys.sorted() == [1, 2])
        #expect(refused[1] == .jobNotFound(id: "missing"))
        #expect(refused[2] == .outputNotFound(jobID: "b", index: 9))
        #expect(try store.job(id: "a")?.mediaTimeSeconds == 4)
        #expect(try store.progress(jobID: "a").map(\.mediaTimeSeconds) == [4])
        #expect(try store.outputs(jobID: "a")[1].bytes == 77)
        // b's savepoint was rolled back whole: its job row, its sample and its first output are as they were.
        #expect(try store.job(id: "b")?.mediaTimeSeconds == nil)
        #expect(try store.progress(jobID: "b").isEmpty)
        #expect(try store.outputs(jobID: "b")[0].bytes == 0)
        #expect(try store.updateProgress([]).isEmpty)
    }

    @Test func outputsStartPendingInSpecOrder() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let job = sampleJob()
        _ = try store.receive(job)
        let outputs = try store.outputs(jobID: job.id)
        #expect(outputs.map(\.index) == [0, 1])
        #expect(outputs.map(\.url) == job.outputs.map(\.url))
        #expect(outputs.allSatisfy { $0.state == .pending && $0.bytes == 0 && $0.reconnects == 0 && $0.lastError == nil })
        #expect(outputs.allSatisfy { $0.updatedAt == clock.now() })
    }

    /// Each update changes only the fields it sets.
    @Test func outputUpdatesArePartial() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")

        try store.updateOutput(jobID: job.id, index: 0, update: OutputUpdate(state: .running))
        try store.updateOutput(jobID: job.id, index: 0, update: OutputUpdate(bytes: 4096, frames: 10, drops: 2))
        clock.advance(by: 1)
        try store.updateOutput(
            jobID: job.id, index: 0,
            update: OutputUpdate(state: .reconnecting, reconnects: 1, lastError: "rtmp://a.example/live/***: broken pipe"))
        try store.updateOutput(jobID: job.id, index: 0, update: OutputUpdate(state: .running, bytes: 8192))

        let outputs = try store.outputs(jobID: job.id)
        let first = try #require(outputs.first)
        #expect(first.state == .running)
        #expect(first.bytes == 8192)
        #expect(first.frames == 10)
        #expect(first.drops == 2)
        #expect(first.reconnects == 1)
        #expect(first.lastError == "rtmp://a.example/live/***: broken pipe")
        #expect(first.updatedAt == clock.now())
        #expect(outputs[1].state == .pending, "the other output is untouched")
        #expect(outputs[1].bytes == 0)
    }

    @Test func recordsDecodeAsJSONForTheCLI() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        let record = try #require(try store.job(id: job.id))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        #expect(json.contains(#""spec_redacted""#))
        #expect(json.contains(#""state":"received""#))
        #expect(try JSONDecoder().decode(JobRecord.self, from: Data(json.utf8)) == record)
    }

    /// A time an admin mangled by hand is a clear error on read, not a crash or a wrong date.
    @Test func malformedTimeInDatabaseIsATypedError() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        _ = try store.receive(sampleJob())
        let update = try sqlite3Shell(store.path, ["UPDATE jobs SET created_at = 'last tuesday'"])
        #expect(update.status == 0, "\(update.errorOutput)")
        let error = #expect(throws: JobStoreError.self) { try store.job(id: sampleJob().id) }
        guard case let .database(message)? = error else {
            Issue.record("expected a database error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("created_at"))
    }

    /// The schema refuses a state outside `JobState`, even from the sqlite3 shell.
    @Test func unknownStateIsRefusedBySchema() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        _ = try store.receive(sampleJob())
        let update = try sqlite3Shell(store.path, ["UPDATE jobs SET state = 'paused'"])
        #expect(update.status != 0)
        #expect(update.errorOutput.contains("CHECK constraint failed"))
        #expect(try store.job(id: sampleJob().id)?.state == .received)
    }
}
