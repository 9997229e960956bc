import Foundation
import Testing

@testable import JobStore

/// Details of an encoder fallback, as the worker would record them.
private struct EncoderFallback: Codable, Equatable {
    let from: String
    let to: String
    let reason: String
}

/// A job's life as recorded in `jobs` and `job_events` (real SQLite files in a temp dir).
@Suite struct JobStoreLifecycleTests {
    @Test func fullLifecycleRecordsEventsInOrder() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let job = sampleJob()

        #expect(try store.receive(job) == .created)
        let received = try #require(try store.job(id: job.id))
        #expect(received.state == .received)
        #expect(received.attempts == 0)
        #expect(received.spec == nil, "its stream key is not kept in clear, and without a secrets key not at all")
        #expect(received.specSealed == nil)
        #expect(received.specRedacted == job.specRedacted)
        #expect(received.input == job.input)
        #expect(received.priority == 5)
        #expect(received.maxAttempts == 3)
        #expect(received.createdAt == clock.now())
        #expect(received.startedAt == nil)

        clock.advance(by: 1)
        #expect(try store.startAttempt(id: job.id, workerID: "worker-b") == 1)
        try store.recordEvent(
            id: job.id, kind: .encoderFallback, message: "VAAPI unavailable; using libx264",
            data: EncoderFallback(from: "h264_vaapi", to: "libx264", reason: "no render device"))
        try store.setEncoder(id: job.id, encoder: "libx264")
        clock.advance(by: 2.5)
        let finished = try store.transition(id: job.id, to: .succeeded, message: "4 outputs complete")

        #expect(finished.state == .succeeded)
        #expect(finished.attempts == 1)
        #expect(finished.workerID == "worker-b")
        #expect(finished.encoder == "libx264")
        #expect(finished.error == nil)
        #expect(finished.startedAt == received.createdAt.addingTimeInterval(1))
        #expect(finished.finishedAt == clock.now())
        #expect(finished.updatedAt == clock.now())
        #expect(finished.duration == 2.5)
        #expect(try store.job(id: job.id) == finished.job)
        #expect(finished.event.kind == .entered(.succeeded) && finished.event.eventID?.hasPrefix("worker-b/") == true)

        let events = try store.events(jobID: job.id)
        #expect(events.map(\.kind) == ["job.received", "job.running", "job.encoder_fallback", "job.succeeded"])
        #expect(events.map(\.state) == [.received, .running, nil, .succeeded])
        #expect(events.map(\.attempt) == [0, 1, 1, 1])
        #expect(events.map(\.workerID) == ["worker-a", "worker-b", "worker-b", "worker-b"])
        #expect(events.map(\.id) == events.map(\.id).sorted())
        #expect(events.last?.message == "4 outputs complete")
        #expect(events.last?.at == clock.now())
        #expect(try events[2].decodeData(as: EncoderFallback.self) == EncoderFallback(from: "h264_vaapi", to: "libx264", reason: "no render device"))
        #expect(events[2].data == #"{"from":"h264_vaapi","reason":"no render device","to":"libx264"}"#)
        #expect(try events[0].decodeData(as: EncoderFallback.self) == nil)
    }

    @Test func failureStoresErrorInJobAndEvent() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        let failed = try store.transition(id: job.id, to: .failed, error: "output #0 rtmp://a.example/live/***: connection refused")
        #expect(failed.error == "output #0 rtmp://a.example/live/***: connection refused")
        #expect(failed.finishedAt != nil)
        let last = try #require(try store.events(jobID: job.id).last)
        #expect(last.kind == .entered(.failed))
        #expect(last.message == failed.error, "the event message defaults to the error")
    }

    /// Illegal moves reached through the store: the error names both states, and nothing is written.
    @Test(arguments: [
        ([JobState](), JobState.succeeded),
        ([], .retrying),
        ([], .received),
        ([.running], .running),
        ([.running], .received),
        ([.running, .succeeded], .running),
        ([.running, .succeeded], .failed),
        ([.running, .retrying], .succeeded),
        ([.running, .failed], .retrying),
        ([.cancelled], .succeeded),
    ])
    func illegalTransitionIsRefusedAndWritesNothing(path: [JobState], target: JobState) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        for state in path {
            if state == .running {
                try store.startAttempt(id: job.id, workerID: "worker-a")
            } else {
                try store.transition(id: job.id, to: state)
            }
        }
        let before = try #require(try store.job(id: job.id))
        let eventsBefore = try store.events(jobID: job.id)

        let error = #expect(throws: JobStoreError.self) { try store.transition(id: job.id, to: target, error: "x") }
        #expect(error == .illegalTransition(jobID: job.id, from: before.state, to: target))
        #expect(error?.description == "job '\(job.id)' cannot go from \(before.state.rawValue) to \(target.rawValue)")
        #expect(try store.job(id: job.id) == before)
        #expect(try store.events(jobID: job.id) == eventsBefore)
    }

    @Test func receivingASucceededIDAgainIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        try store.updateOutput(jobID: job.id, index: 0, update: OutputUpdate(state: .succeeded, bytes: 1000))
        let done = try store.transition(id: job.id, to: .succeeded).job
        let outputsBefore = try store.outputs(jobID: job.id)

        var again = job
        again.outputs = [NewOutput(url: "other.flv")]
        #expect(try store.receive(again) == .alreadySucceeded(done))
        #expect(try store.job(id: job.id) == done)
        #expect(try store.outputs(jobID: job.id) == outputsBefore)
        let last = try #require(try store.events(jobID: job.id).last)
        #expect(last.kind == .duplicate)
        #expect(last.state == nil)
    }

    /// A redelivery of a job that is not running replaces its spec and outputs with the delivered ones.
    @Test(arguments: [[JobState](), [.running, .retrying], [.running, .failed], [.cancelled]])
    func redeliveryOfIdleJobReplacesOutputs(path: [JobState]) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        for state in path {
            if state == .running {
                try store.startAttempt(id: job.id, workerID: "worker-a")
            } else {
                try store.transition(id: job.id, to: state)
            }
        }
        try store.updateOutput(jobID: job.id, index: 0, update: OutputUpdate(bytes: 5))
        var again = job
        again.spec = #"{"id":"cam42-2026-11-21","v":2}"#
        again.specRedacted = again.spec
        again.outputs = [NewOutput(url: "fixed.aac", format: "adts")]

        guard case let .existing(record) = try store.receive(again) else {
            Issue.record("expected .existing")
            return
        }
        #expect(record.state == (path.last ?? .received))
        #expect(record.spec == again.spec)
        let outputs = try store.outputs(jobID: job.id)
        #expect(outputs.map(\.url) == ["fixed.aac"])
        #expect(outputs.map(\.format) == ["adts"])
        #expect(outputs.map(\.bytes) == [0])
        #expect(try store.events(jobID: job.id).last?.kind == .redelivered)
    }

    @Test func redeliveryOfRunningJobKeepsOutputs() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        try store.updateOutput(jobID: job.id, index: 1, update: OutputUpdate(state: .running, bytes: 77))
        let outputsBefore = try store.outputs(jobID: job.id)
        var again = job
        again.spec = "{}"
        again.specRedacted = "{}"
        again.outputs = []

        guard case let .existing(record) = try store.receive(again) else {
            Issue.record("expected .existing")
            return
        }
        #expect(record.state == .running)
        #expect(record.specRedacted == job.specRedacted)
        #expect(try store.outputs(jobID: job.id) == outputsBefore)
    }

    @Test("an SRT output's link is stored with its counters, kept by an update that does not carry it, and absent on other outputs")
    func srtLinkStored() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        let link = SRTLinkRecord(roundTripMilliseconds: 41.25, sendMegabitsPerSecond: 3.5, packetsSent: 9_000_000_000,
                                 packetsLost: 31, packetsRetransmitted: 29, packetsDropped: 2)
        try store.updateOutput(jobID: job.id, index: 1, update: OutputUpdate(bytes: 10, srt: link))
        try store.updateOutput(jobID: job.id, index: 1, update: OutputUpdate(bytes: 20))
        let outputs = try store.outputs(jobID: job.id)
        #expect(outputs[1].srt == link && outputs[1].bytes == 20)
        #expect(outputs[0].srt == nil)
        #expect(link.summary == "rtt 41.2 ms, 3.5 Mb/s, 0.00 % lost (31 of 9000000000), 29 retransmitted, 2 dropped")
    }

    /// Retries, `jobs retry` re-runs and crash recovery all count as attempts.
    @Test func attemptsAreCountedAcrossReruns() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let job = sampleJob()
        _ = try store.receive(job)

        #expect(try store.startAttempt(id: job.id, workerID: "worker-a") == 1)
        try store.transition(id: job.id, to: .retrying, error: "input timeout")
        #expect(try store.job(id: job.id)?.error == "input timeout")
        #expect(try store.job(id: job.id)?.finishedAt == nil, "retrying is not finished")
        #expect(try store.startAttempt(id: job.id, workerID: "worker-b") == 2)
        #expect(try store.job(id: job.id)?.error == nil, "a new attempt clears the old error")
        try store.transition(id: job.id, to: .failed, error: "input timeout")
        #expect(try store.job(id: job.id)?.attemptsLeft == 1)

        // `jobs retry` of a failed job.
        clock.advance(by: 60)
        #expect(try store.startAttempt(id: job.id, workerID: "worker-a") == 3)
        let rerun = try #require(try store.job(id: job.id))
        #expect(rerun.finishedAt == nil)
        #expect(rerun.startedAt == clock.now())
        #expect(rerun.attemptsLeft == 0)

        // The worker crashed: at its restart it finds the attempt still running and hands it back.
        #expect(try store.runningJobs(workerID: "worker-a").map(\.id) == [job.id])
        #expect(try store.runningJobs(workerID: "worker-b").isEmpty)
        try store.transition(id: job.id, to: .retrying, error: "worker restarted during the attempt")
        #expect(try store.runningJobs(workerID: "worker-a").isEmpty)
        try store.transition(id: job.id, to: .cancelled, message: "cancelled by admin")
        #expect(try store.startAttempt(id: job.id, workerID: "worker-a") == 4)
        try store.transition(id: job.id, to: .succeeded)

        let events = try store.events(jobID: job.id)
        #expect(events.filter { $0.kind == .entered(.running) }.map(\.attempt) == [1, 2, 3, 4])
        #expect(events.map(\.kind.rawValue) == [
            "job.received", "job.running", "job.retrying", "job.running", "job.failed", "job.running",
            "job.retrying", "job.cancelled", "job.running", "job.succeeded",
        ])
        #expect(events.filter { $0.kind == .entered(.running) }.map(\.workerID) == ["worker-a", "worker-b", "worker-a", "worker-a"])
    }

    @Test func newAttemptResetsProgressAndEncoder() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "worker-a")
        try store.setEncoder(id: job.id, encoder: "h264_vaapi")
        try store.updateProgress(id: job.id, progress: JobProgress(mediaTimeSeconds: 3, frames: 90, bytesIn: 1, bytesOut: 2))
        try store.transition(id: job.id, to: .failed, error: "boom")
        try store.startAttempt(id: job.id, workerID: "worker-a")
        let record = try #require(try store.job(id: job.id))
        #expect(record.encoder == nil)
        #expect(record.frames == nil)
        #expect(record.mediaTimeSeconds == nil)
        #expect(try store.progress(jobID: job.id).count == 1, "samples of earlier attempts are kept for charts")
    }

    @Test func invalidSpecGoesStraightToRejected() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        let rejected = try store.reject(
            id: "bad-1", spec: #"{"id":"bad-1","colour":1}"#, error: "unknown key: colour", workerID: "worker-a")
        #expect(rejected.state == .rejected)
        #expect(rejected.error == "unknown key: colour")
        #expect(rejected.spec == nil && rejected.specSealed == nil, "an invalid message is kept only sealed, or not without a key")
        #expect(rejected.finishedAt == clock.now())
        #expect(rejected.attempts == 0)
        #expect(try store.outputs(jobID: "bad-1").isEmpty)

        // The same bad message redelivered: nothing changes.
        clock.advance(by: 5)
        #expect(try store.reject(id: "bad-1", spec: nil, error: "unknown key: colour") == rejected)
        let events = try store.events(jobID: "bad-1")
        #expect(events.map(\.kind) == [.entered(.rejected)])
        #expect(events.first?.message == "unknown key: colour")

        // Rejected is final.
        let error = #expect(throws: JobStoreError.self) { try store.startAttempt(id: "bad-1", workerID: "worker-a") }
        #expect(error == .illegalTransition(jobID: "bad-1", from: .rejected, to: .running))
    }

    @Test func receivedJobCanBeRejectedButNotARunningOne() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        _ = try store.receive(sampleJob(id: "a"))
        #expect(try store.reject(id: "a", spec: nil, error: "input escapes its root").state == .rejected)
        #expect(try store.job(id: "a")?.specRedacted == sampleJob(id: "a").specRedacted, "a nil spec keeps the stored one")

        _ = try store.receive(sampleJob(id: "b"))
        try store.startAttempt(id: "b", workerID: "worker-a")
        let error = #expect(throws: JobStoreError.self) { try store.reject(id: "b", spec: nil, error: "late") }
        #expect(error == .illegalTransition(jobID: "b", from: .running, to: .rejected))
        #expect(try store.job(id: "b")?.state == .running)
    }

    /// Every write naming an unknown job fails with `jobNotFound` (or `outputNotFound`) and writes nothing.
    @Test func writesToUnknownJobsFail() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let missing = JobStoreError.jobNotFound(id: "nope")
        #expect(throws: missing) { try store.startAttempt(id: "nope", workerID: "w") }
        #expect(throws: missing) { try store.transition(id: "nope", to: .cancelled) }
        #expect(throws: missing) { try store.recordEvent(id: "nope", kind: "job.note") }
        #expect(throws: missing) { try store.setEncoder(id: "nope", encoder: "libx264") }
        #expect(throws: missing) {
            try store.updateProgress(id: "nope", progress: JobProgress(mediaTimeSeconds: 0, frames: 0, bytesIn: 0, bytesOut: 0))
        }
        _ = try store.receive(sampleJob())
        #expect(throws: JobStoreError.outputNotFound(jobID: sampleJob().id, index: 2)) {
            try store.updateOutput(jobID: sampleJob().id, index: 2, update: OutputUpdate(bytes: 1))
        }
        #expect(try store.progress(jobID: "nope").isEmpty)
        #expect(try store.events(jobID: "nope").isEmpty)
        #expect(try store.job(id: "nope") == nil)
        #expect(JobStoreError.outputNotFound(jobID: "j", index: 2).description == "job 'j' has no output #2")
        #expect(missing.description == "no job with id 'nope'")
    }

    @Test func unencodableEventDataIsATypedError() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        _ = try store.receive(sampleJob())
        let error = #expect(throws: JobStoreError.self) {
            try store.recordEvent(id: sampleJob().id, kind: "job.note", data: ["ratio": Double.nan])
        }
        guard case .invalidEventData? = error else {
            Issue.record("expected invalidEventData, got \(String(describing: error))")
            return
        }
        #expect(try store.events(jobID: sampleJob().id).count == 1, "only job.received")
    }

    @Test func listingIsNewestFirstAndFilters() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(in: directory, clock: clock)
        for id in ["j1", "j2", "j3", "j4"] {
            _ = try store.receive(sampleJob(id: id))
            clock.advance(by: 10)
        }
        try store.startAttempt(id: "j2", workerID: "w")
        try store.startAttempt(id: "j4", workerID: "w")
        #expect(try store.jobs().map(\.id) == ["j4", "j3", "j2", "j1"])
        #expect(try store.jobs(limit: 2).map(\.id) == ["j4", "j3"])
        #expect(try store.jobs(state: .running).map(\.id) == ["j4", "j2"])
        #expect(try store.jobs(state: .received).map(\.id) == ["j3", "j1"])
        let start = ManualClock().now()
        #expect(try store.jobs(since: start.addingTimeInterval(10)).map(\.id) == ["j4", "j3", "j2"])
        #expect(try store.jobs(state: .running, since: start.addingTimeInterval(20)).map(\.id) == ["j4"])
        #expect(try store.jobs(state: .failed).isEmpty)
    }

    @Test func sameMillisecondJobsKeepInsertionOrder() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        for id in ["a", "b", "c"] { _ = try store.receive(sampleJob(id: id)) }
        #expect(try store.jobs().map(\.id) == ["c", "b", "a"])
    }

    @Test func deletingAJobRemovesItsRows() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let job = sampleJob()
        _ = try store.receive(job)
        try store.startAttempt(id: job.id, workerID: "w")
        try store.updateProgress(id: job.id, progress: JobProgress(mediaTimeSeconds: 1, frames: 1, bytesIn: 1, bytesOut: 1))
        #expect(try store.deleteJob(id: job.id))
        #expect(try store.job(id: job.id) == nil)
        #expect(try store.outputs(jobID: job.id).isEmpty)
        #expect(try store.events(jobID: job.id).isEmpty)
        #expect(try store.progress(jobID: job.id).isEmpty)
        #expect(try store.deleteJob(id: job.id) == false)
    }
}
