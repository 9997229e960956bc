import Foundation
import JobStore
import MediaEngine
import Testing

@testable import Sluice

/// The events workers publish, read back as the ledger reads them.
@Suite struct LedgerEventTests {
    /// A store on a fresh file with one job taken to `succeeded` by `worker`.
    static func succeededJob(worker: String) throws -> (JobStore, CommittedTransition) {
        let path = NSTemporaryDirectory() + "ledger-event-\(UUID().uuidString).sqlite"
        let store = try JobStore(path: path)
        _ = try store.receive(NewJob(id: "cam-1", spec: "{}", specRedacted: "{}", input: "rtmp://in.example/live/***",
                                     outputs: [NewOutput(url: "cam.flv", format: "flv")], workerID: worker))
        try store.startAttempt(id: "cam-1", workerID: worker)
        let transition = try store.transition(id: "cam-1", to: .succeeded)
        return (store, transition)
    }

    @Test("a job event round-trips: event_id, state, attempt, worker, input, outputs")
    func roundTrip() throws {
        let (store, transition) = try Self.succeededJob(worker: "w-1")
        #expect(transition.event.kind == .entered(.succeeded))
        let stored = try #require(transition.event.eventID)
        let event = JobEvent(job: transition.job, outputs: try store.outputs(jobID: "cam-1"), eventID: stored)
        let entry = try LedgerEntry(parsingEvent: event.json)
        #expect(entry.eventID == stored)
        #expect(try store.events(jobID: "cam-1").last?.eventID == stored)
        #expect(entry.kind == "job.succeeded" && entry.jobID == "cam-1" && entry.state == .succeeded)
        #expect(entry.attempt == 1 && entry.workerID == "w-1")
        #expect(entry.input == "rtmp://in.example/live/***")
        #expect(entry.outputs == [LedgerOutput(index: 0, url: "cam.flv", state: .pending, bytes: 0, frames: 0, reconnects: 0)])
        #expect(entry.progress == nil)
    }

    /// The compose file resets a worker's database under a fixed worker id; row ids then repeat, and a
    /// ledger keyed by `<worker>/<row>` dropped the second life's events as duplicates.
    @Test("a worker whose database was reset under the same id publishes new event ids, and the ledger keeps both")
    func resetDatabaseKeepsIDsUnique() throws {
        let (firstStore, first) = try Self.succeededJob(worker: "w-fixed")
        let (secondStore, second) = try Self.succeededJob(worker: "w-fixed")
        #expect(first.event.id == second.event.id)
        let firstID = try #require(first.event.eventID)
        let secondID = try #require(second.event.eventID)
        #expect(firstID != secondID)
        #expect(firstID.hasPrefix("w-fixed/") && secondID.hasPrefix("w-fixed/"))
        let ledger = try JobStore(path: NSTemporaryDirectory() + "ledger-\(UUID().uuidString).sqlite")
        for (store, transition) in [(firstStore, first), (secondStore, second)] {
            let event = JobEvent(job: transition.job, outputs: try store.outputs(jobID: "cam-1"), eventID: transition.event.eventID)
            #expect(try ledger.apply(LedgerEntry(parsingEvent: event.json)) == .applied)
            #expect(try ledger.apply(LedgerEntry(parsingEvent: event.json)) == .duplicate)
        }
        #expect(try ledger.ledgerEventCount() == 2)
    }

    @Test("an old-format event id (<worker>/<row id>) is still applied once")
    func oldFormatID() throws {
        let body = #"{"event":"job.failed","event_id":"w-old/17","id":"old-2","state":"failed","attempt":1,"worker":"w-old","at":"2026-11-21T05:00:00Z","error":"gone","outputs":[]}"#
        let ledger = try JobStore(path: NSTemporaryDirectory() + "ledger-\(UUID().uuidString).sqlite")
        let entry = try LedgerEntry(parsingEvent: Array(body.utf8))
        #expect(entry.eventID == "w-old/17")
        #expect(try ledger.apply(entry) == .applied)
        #expect(try ledger.apply(entry) == .duplicate)
        #expect(try ledger.events(jobID: "old-2").map(\.eventID) == ["w-old/17"])
    }

    @Test("events without a given id still get distinct ids")
    func distinctIDs() throws {
        let (store, record) = try Self.succeededJob(worker: "w-2")
        let outputs = try store.outputs(jobID: "cam-1")
        let first = JobEvent(job: record.job, outputs: outputs)
        let second = JobEvent(job: record.job, outputs: outputs)
        #expect(first.eventID != second.eventID)
        #expect(first.eventID.hasPrefix("w-2/"))
    }

    @Test("an event from a worker older than event_id gets an id from its content, the same on every delivery")
    func legacyEvent() throws {
        let body = #"{"event":"job.failed","id":"old-1","state":"failed","attempt":2,"worker":"w-old","at":"2026-11-21T05:00:00.250Z","error":"gone","outputs":[]}"#
        let entry = try LedgerEntry(parsingEvent: Array(body.utf8))
        #expect(entry.eventID == "legacy/w-old/old-1/job.failed/2/2026-11-21T05:00:00.250Z")
        #expect(try LedgerEntry(parsingEvent: Array(body.utf8)).eventID == entry.eventID)
        #expect(entry.error == "gone")
    }

    @Test("a job.progress event carries its figures")
    func progressEvent() throws {
        let body = #"{"event":"job.progress","event_id":"w/p","id":"live-1","state":"running","attempt":1,"worker":"w","at":"2026-11-21T05:00:00Z","media_time_s":61.5,"frames":1845,"bytes_in":800000,"bytes_out":790000,"speed":1.0,"outputs":[{"index":0,"url":"rtmp://out.example/live/***","state":"running","bytes":790000,"frames":1845}]}"#
        let entry = try LedgerEntry(parsingEvent: Array(body.utf8))
        #expect(entry.progress == LedgerProgress(mediaTimeSeconds: 61.5, frames: 1845, bytesIn: 800_000, bytesOut: 790_000, speed: 1))
        #expect(entry.outputs.first?.reconnects == 0)
    }

    static let malformed: [(body: String, error: LedgerEventError)] = [
        ("not json", LedgerEventError(path: "$", reason: "not JSON")),
        ("[1]", LedgerEventError(path: "$", reason: "not an object")),
        (#"{"id":"a","state":"running","attempt":1,"at":"2026-11-21T05:00:00Z"}"#, LedgerEventError(path: "event", reason: "missing")),
        (#"{"event":"job.x","id":"a","state":"flying","attempt":1,"at":"2026-11-21T05:00:00Z"}"#,
         LedgerEventError(path: "state", reason: "unknown state 'flying'")),
        (#"{"event":"job.running","id":"a","state":"running","attempt":-1,"at":"2026-11-21T05:00:00Z"}"#,
         LedgerEventError(path: "attempt", reason: "not a whole number in 0…2^53")),
        (#"{"event":"job.running","id":"a","state":"running","attempt":1,"at":"yesterday"}"#,
         LedgerEventError(path: "at", reason: "not an ISO-8601 time")),
        (#"{"event":"job.running","id":"a","state":"running","attempt":1,"at":"2026-11-21T05:00:00Z","worker":7}"#,
         LedgerEventError(path: "worker", reason: "a number, not a string")),
        (#"{"event":"job.running","id":"a","state":"running","attempt":1,"at":"2026-11-21T05:00:00Z","outputs":[{"index":0,"url":"a","state":"lost","bytes":0,"frames":0}]}"#,
         LedgerEventError(path: "outputs[0].state", reason: "unknown output state 'lost'")),
        (#"{"event":"job.running","id":"a","state":"running","attempt":1,"at":"2026-11-21T05:00:00Z","outputs":[{"index":0,"url":"a","state":"running","bytes":0,"frames":0},{"index":0,"url":"b","state":"running","bytes":0,"frames":0}]}"#,
         LedgerEventError(path: "outputs[1].index", reason: "index 0 appears twice")),
        (#"{"event":"job.progress","id":"a","state":"running","attempt":1,"at":"2026-11-21T05:00:00Z"}"#,
         LedgerEventError(path: "media_time_s", reason: "missing or not a number")),
    ]

    @Test("malformed events name the field that is wrong", arguments: malformed)
    func rejectsMalformed(_ c: (body: String, error: LedgerEventError)) {
        #expect(throws: c.error) { try LedgerEntry(parsingEvent: Array(c.body.utf8)) }
    }
}
