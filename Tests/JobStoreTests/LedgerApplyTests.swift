import Foundation
import Testing

@testable import JobStore

/// `JobStore.apply`: worker events into a ledger database, once per event id, newest event wins.
@Suite struct LedgerApplyTests {
    static let start = Date(timeIntervalSince1970: 1_795_238_356.123)

    static func entry(_ eventID: String, _ kind: String, job: String = "job-1", state: JobState, attempt: Int = 1,
                      worker: String = "worker-a", after seconds: Double, error: String? = nil,
                      outputs: [LedgerOutput] = [], progress: LedgerProgress? = nil) -> LedgerEntry {
        LedgerEntry(eventID: eventID, kind: kind, jobID: job, state: state, attempt: attempt, workerID: worker,
                    at: start + seconds, input: "in.mp4", error: error, message: nil, outputs: outputs, progress: progress)
    }

    @Test("a job's events build its row, outputs and event list as in the worker's database")
    func lifecycle() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let flv = LedgerOutput(index: 0, url: "out.flv", state: .succeeded, bytes: 1234, frames: 30, reconnects: 0)
        #expect(try store.apply(Self.entry("worker-a/1", "job.received", state: .received, attempt: 0, after: 0)) == .applied)
        #expect(try store.apply(Self.entry("worker-a/2", "job.running", state: .running, after: 1)) == .applied)
        #expect(try store.apply(Self.entry("worker-a/3", "job.succeeded", state: .succeeded, after: 3, outputs: [flv])) == .applied)

        let job = try #require(try store.job(id: "job-1"))
        #expect(job.state == .succeeded)
        #expect(job.workerID == "worker-a")
        #expect(job.attempts == 1)
        #expect(job.input == "in.mp4")
        #expect(job.createdAt == Self.start)
        #expect(job.startedAt == Self.start + 1)
        #expect(job.finishedAt == Self.start + 3)
        #expect(job.duration == 2)
        #expect(try store.outputs(jobID: "job-1").map { [$0.url, $0.state.rawValue, String($0.bytes)] } == [["out.flv", "succeeded", "1234"]])
        let events = try store.events(jobID: "job-1")
        #expect(events.map(\.kind.rawValue) == ["job.received", "job.running", "job.succeeded"])
        #expect(events.map(\.state) == [.received, .running, .succeeded])
        #expect(events.last?.data == #"{"event_id":"worker-a/3"}"#)
        #expect(try store.ledgerEventCount() == 3)
    }

    @Test("an event id applied before changes nothing")
    func idempotent() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let failed = Self.entry("worker-a/7", "job.failed", state: .failed, after: 5, error: "input vanished")
        #expect(try store.apply(failed) == .applied)
        var again = failed
        again.error = "a different text under the same id"
        #expect(try store.apply(again) == .duplicate)
        #expect(try store.job(id: "job-1")?.error == "input vanished")
        #expect(try store.events(jobID: "job-1").count == 1)
        #expect(try store.ledgerEventCount() == 1)
    }

    @Test("an older event arriving late is listed but does not move the job back; another worker's newer one does")
    func newestEventWins() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try store.apply(Self.entry("worker-a/3", "job.retrying", state: .retrying, after: 3, error: "broker gone"))
        try store.apply(Self.entry("worker-a/2", "job.running", state: .running, after: 2))
        #expect(try store.job(id: "job-1")?.state == .retrying)
        #expect(try store.job(id: "job-1")?.createdAt == Self.start + 2)
        try store.apply(Self.entry("worker-b/9", "job.running", state: .running, attempt: 2, worker: "worker-b", after: 4))
        let job = try #require(try store.job(id: "job-1"))
        #expect(job.state == .running && job.workerID == "worker-b" && job.attempts == 2 && job.error == nil)
        #expect(job.finishedAt == nil)
        #expect(try store.events(jobID: "job-1").map(\.workerID) == ["worker-a", "worker-a", "worker-b"])
    }

    @Test("job.progress sets the progress columns and appends a sample, not an event")
    func progress() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try store.apply(Self.entry("worker-a/2", "job.running", state: .running, after: 1))
        let figures = LedgerProgress(mediaTimeSeconds: 12.5, frames: 375, bytesIn: 100_000, bytesOut: 90_000, speed: 1.01)
        #expect(try store.apply(Self.entry("worker-a/p1", "job.progress", state: .running, after: 13, progress: figures)) == .applied)
        let job = try #require(try store.job(id: "job-1"))
        #expect(job.mediaTimeSeconds == 12.5 && job.frames == 375 && job.bytesIn == 100_000 && job.bytesOut == 90_000)
        #expect(job.speed == 1.01)
        #expect(try store.events(jobID: "job-1").count == 1)
        #expect(try store.progress(jobID: "job-1").map(\.frames) == [375])
    }
}
