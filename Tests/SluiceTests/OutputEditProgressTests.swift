import Foundation
import JobStore
import MediaEngine
import Testing
@testable import Sluice
import MediaJob
import JobDocument

/// An attempt whose outputs were edited reports them by their attempt index: an added output under its
/// own (redacted) URL, a removed one as `removed` in its row and in progress events.
@Suite struct OutputEditProgressTests {
    static let spec = try! JobSpec.parse(Data(#"{"id":"e1","input":"rtmp://in.example/live/S","outputs":["rtmp://a.example/live/AKEY","rtmp://b.example/live/BKEY"]}"#.utf8))

    static func progress(_ statuses: [OutputStatus]) -> MediaJobProgress {
        var progress = MediaJobProgress()
        progress.outputs = statuses.map { status in
            var output = OutputProgress()
            output.status = status
            output.bytes = 100
            return output
        }
        return progress
    }

    @Test("a progress event names added outputs by their redacted URL and says removed")
    func progressEvent() throws {
        let edited = try OutputEdit(action: .remove, url: "rtmp://a.example/live/AKEY")
            .apply(to: Self.spec, slots: OutputSlots(spec: Self.spec))
        let added = try OutputEdit(action: .add, url: "rtmps://c.example/live/CKEY").apply(to: edited.spec, slots: edited.slots)
        let event = JobEvent(progressOf: Self.spec, attempt: 1, workerID: "w", progress: Self.progress([.removed, .running, .connecting]),
                             outputURLs: added.slots.urls)
        guard case let .object(body) = event.body, case let .array(outputs)? = body["outputs"] else {
            Issue.record("no outputs in \(event.body.jsonText())")
            return
        }
        let pairs = outputs.compactMap { output -> String? in
            guard case let .object(fields) = output, case let .string(url)? = fields["url"], case let .string(state)? = fields["state"] else { return nil }
            return "\(url) \(state)"
        }
        #expect(pairs == ["rtmp://a.example/live/*** removed", "rtmp://b.example/live/*** running", "rtmps://c.example/live/*** running"])
        #expect(!event.body.jsonText().contains("KEY"))
    }

    @Test("a removed output's row stays removed whatever the attempt's end; a failure still wins")
    func rowState() {
        var removed = OutputProgress()
        removed.status = .removed
        #expect(JobRunner.state(of: removed, final: nil) == .removed)
        #expect(JobRunner.state(of: removed, final: .succeeded) == .removed)
        #expect(JobRunner.state(of: removed, final: .cancelled) == .removed)
        var failed = OutputProgress()
        failed.status = .failed
        #expect(JobRunner.state(of: failed, final: .succeeded) == .failed)
    }
}
