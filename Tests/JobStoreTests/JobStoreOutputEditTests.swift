import Foundation
import Testing

@testable import JobStore

/// An output added to or removed from a running job, recorded with the edited spec in one transaction.
@Suite struct JobStoreOutputEditTests {
    static let edited = #"{"id":"s1","input":"rtmp://user:password@in.example/live/cam","outputs":["rtmp://out.example/app/SECRETKEY","s1.flv","rtmp://b.example/app/ADDEDKEY"]}"#
    static let editedRedacted = #"{"id":"s1","input":"rtmp://in.example/live/***","outputs":["rtmp://out.example/app/***","s1.flv","rtmp://b.example/app/***"]}"#
    static let removed = #"{"id":"s1","input":"rtmp://user:password@in.example/live/cam","outputs":["s1.flv","rtmp://b.example/app/ADDEDKEY"]}"#
    static let removedRedacted = #"{"id":"s1","input":"rtmp://in.example/live/***","outputs":["s1.flv","rtmp://b.example/app/***"]}"#

    @Test("add: a pending row at the next index, the edited spec sealed, a job.output_added event; remove: the row says removed")
    func addThenRemove() throws {
        let directory = try TemporaryDirectory()
        let store = try JobStore(path: directory.file("jobs.sqlite"), secrets: SecretsAtRestTests.keyring())
        #expect(try store.receive(SecretsAtRestTests.secretJob()) == .created)
        try store.startAttempt(id: "s1", workerID: "w")

        let added = try store.recordOutputAdded(jobID: "s1", index: 2, output: NewOutput(url: "rtmp://b.example/app/***", format: "flv"),
                                                spec: Self.edited, specRedacted: Self.editedRedacted,
                                                message: "output 2 added: rtmp://b.example/app/***")
        #expect(added.event.kind == .outputAdded && added.event.attempt == 1 && added.event.workerID == "w")
        #expect(added.event.data == #"{"index":2,"url":"rtmp://b.example/app/***"}"#)
        #expect(added.job.state == .running)
        var rows = try store.outputs(jobID: "s1")
        #expect(rows.map(\.index) == [0, 1, 2] && rows[2].state == .pending && rows[2].url == "rtmp://b.example/app/***")
        #expect(try store.job(id: "s1")?.specRedacted == Self.editedRedacted)
        #expect(try store.job(id: "s1")?.spec == nil)
        #expect(try store.runnableSpec(id: "s1") == Self.edited)

        let removal = try store.recordOutputRemoved(jobID: "s1", index: 0, url: "rtmp://out.example/app/***",
                                                    spec: Self.removed, specRedacted: Self.removedRedacted,
                                                    message: "output 0 removed: rtmp://out.example/app/***")
        #expect(removal.event.kind == .outputRemoved)
        rows = try store.outputs(jobID: "s1")
        #expect(rows.map(\.state) == [.removed, .pending, .pending])
        #expect(try store.runnableSpec(id: "s1") == Self.removed)
        #expect(try store.events(jobID: "s1").map(\.kind).suffix(2) == [.outputAdded, .outputRemoved])
        // A progress record made before the removal and written after it keeps the output removed, counters updated.
        try store.updateProgress(id: "s1", progress: JobProgress(mediaTimeSeconds: 1, frames: 30, bytesIn: 10, bytesOut: 20),
                                 outputs: [(0, OutputUpdate(state: .running, bytes: 500)), (1, OutputUpdate(state: .running))])
        rows = try store.outputs(jobID: "s1")
        #expect(rows.map(\.state) == [.removed, .running, .pending])
        #expect(rows[0].bytes == 500)
        try expectNoSecrets(inFilesOf: store.path)
    }

    @Test("an edit of an unknown job changes nothing and says so")
    func unknownJob() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(throws: JobStoreError.jobNotFound(id: "nope")) {
            try store.recordOutputAdded(jobID: "nope", index: 0, output: NewOutput(url: "rtmp://b/app/***"), spec: "{}",
                                        specRedacted: "{}", message: "m")
        }
        #expect(try store.outputs(jobID: "nope").isEmpty)
    }
}
