import Foundation
import JobStore
import Testing
@testable import Sluice
import JobDocument

/// Bad input gets one clear message naming what is wrong, a failed/rejected record with the same text,
/// no file that looks complete, and no crash (docs/ARCHITECTURE.md §7).
@Suite("Bad input")
struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// Writes the input into the folder and returns its path.
        let make: @Sendable (String) throws -> String
        /// Text the error must contain.
        let expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty file", make: { folder in
            let path = folder + "/empty.mp4"
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            return path
        }, expected: "cannot open input"),
        Case(name: "missing file", make: { folder in folder + "/nothing-here.mp4" }, expected: "No such file or directory"),
        Case(name: "garbage bytes", make: { folder in
            let path = folder + "/garbage.mp4"
            var generator = SystemRandomNumberGenerator()
            _ = FileManager.default.createFile(atPath: path, contents: Data((0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            return path
        }, expected: "cannot open input"),
        Case(name: "truncated MP4 (moov at the end, cut off)", make: { folder in
            let source = try Fixtures.make("moov-at-end.mp4", Fixtures.video() + ["-t", "2"] + Fixtures.x264)
            let data = try Data(contentsOf: URL(fileURLWithPath: source))
            let path = folder + "/truncated.mp4"
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
            return path
        }, expected: "cannot open input"),
        Case(name: "a directory instead of a file", make: { folder in folder }, expected: "cannot open input"),
        Case(name: "MPEG-2 video in copy mode", make: { folder in
            try Fixtures.make("mpeg2.ts", Fixtures.video() + ["-t", "1", "-c:v", "mpeg2video", "-f", "mpegts"])
        }, expected: "video stream 0 is mpeg2video: not supported in copy mode"),
        // The outputs are .flv and .h264: VP9 has no Annex B byte stream.
        Case(name: "VP9 into an Annex B file", make: { folder in
            try Fixtures.make("vp9-copy-refused.webm", Fixtures.video() + ["-t", "1", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"])
        }, expected: "the video is VP9, which has no Annex B byte stream"),
    ]

    @Test("unreadable inputs fail the job with a clear message", arguments: cases)
    func unreadable(_ testCase: Case) throws {
        let harness = try JobHarness("bad")
        let input = try testCase.make(harness.folder)
        let outcome = try harness.run(.object(["id": .string("bad-1"), "input": .string(input),
                                               "outputs": .array([.string(harness.path("o.flv")), .string(harness.path("o.h264"))])]))
        let message = try #require(outcome.failureMessage, "expected failure, got \(outcome)")
        #expect(message.contains(testCase.expected), "message: \(message)")
        #expect(message.contains("bad-1"))
        let job = try #require(try harness.store.job(id: "bad-1"))
        #expect(job.state == .failed)
        #expect(job.error == message)
        let failedEvent = try harness.store.events(jobID: "bad-1").last
        #expect(failedEvent?.state == .failed)
        #expect(failedEvent?.message == message)
        #expect(!FileManager.default.fileExists(atPath: harness.path("o.flv")))
        #expect(!FileManager.default.fileExists(atPath: harness.path("o.flv.part")))
        #expect(!FileManager.default.fileExists(atPath: harness.path("o.h264.part")))
    }

    @Test("an ADTS output from an input without audio is refused before writing")
    func adtsWithoutAudio() throws {
        let harness = try JobHarness("noaudio")
        let outcome = try harness.run(.object(["id": .string("na"), "input": .string(try Fixtures.high10()),
                                               "outputs": .array([.string(harness.path("a.flv")), .string(harness.path("a.aac"))])]))
        let message = try #require(outcome.failureMessage)
        #expect(message.contains("needs audio, but the input has no audio stream"), "message: \(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.folder).filter { $0.hasPrefix("a.") }.isEmpty)
    }

    @Test("a truncated MPEG-TS is processed up to where it breaks")
    func truncatedTS() throws {
        let harness = try JobHarness("truncts")
        let data = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.mpegtsAUD()))
        let cut = harness.path("cut.ts")
        // Cut mid-packet (not on a 188-byte boundary) two thirds of the way in.
        try data.prefix(data.count * 2 / 3 + 77).write(to: URL(fileURLWithPath: cut))
        let outcome = try harness.run(.object(["id": .string("cut"), "input": .string(cut),
                                               "outputs": .array([.string(harness.path("c.flv"))])]))
        let result = try #require(outcome.succeeded, "\(outcome)")
        let full = try FrameHashes.of(try Fixtures.mpegtsAUD(), .video)
        let got = try FrameHashes.of(harness.path("c.flv"), .video)
        #expect(got.count > full.count / 2 && got.count < full.count)
        #expect(Array(full.prefix(got.count - 1)) == Array(got.prefix(got.count - 1)))
        #expect(result.progress.videoFrames > 0)
    }

    @Test("an output that cannot be written fails the job and leaves no .part")
    func unwritableOutput() throws {
        let harness = try JobHarness("unwritable")
        let blocker = harness.path("file-not-dir")
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let outcome = try harness.run(.object(["id": .string("uw"), "input": .string(try Fixtures.mp4BFrames()),
                                               "outputs": .array([.string(harness.path("ok.flv")), .string(blocker + "/x.flv")])]))
        let message = try #require(outcome.failureMessage)
        #expect(message.contains("file-not-dir"), "message: \(message)")
        #expect(!FileManager.default.fileExists(atPath: harness.path("ok.flv")))
        #expect(!FileManager.default.fileExists(atPath: harness.path("ok.flv.part")))
    }

    @Test("an invalid spec is rejected with every problem by key path")
    func invalidSpec() throws {
        let harness = try JobHarness("invalid")
        let outcome = try harness.run(json: #"{"id": "inv-1", "input": 42, "outputs": [{"url": "x.mkv"}], "colour": "red"}"#)
        let error = try #require(outcome.rejection)
        #expect(error.problems.map(\.path) == ["input", "outputs[0].url", "colour"])
        let job = try #require(try harness.store.job(id: "inv-1"))
        #expect(job.state == .rejected)
        #expect(job.error?.contains("colour: unknown key") == true)
    }

    @Test("a document that is not JSON is rejected under a generated id")
    func notJSON() throws {
        let harness = try JobHarness("notjson")
        let outcome = try harness.run(json: "{ this is not json")
        let error = try #require(outcome.rejection)
        #expect(error.description.contains("not valid JSON"))
        let jobs = try harness.store.jobs()
        #expect(jobs.count == 1)
        #expect(jobs.first?.state == .rejected)
        #expect(jobs.first?.id.hasPrefix("rejected-") == true)
    }

    @Test("an id that already succeeded is not run again")
    func idempotent() throws {
        let harness = try JobHarness("idem")
        let document: JSONValue = .object(["id": .string("same"), "input": .string(try Fixtures.adtsInput()),
                                           "outputs": .array([.string(harness.path("s.aac"))])])
        #expect(try harness.run(document).succeeded != nil)
        try FileManager.default.removeItem(atPath: harness.path("s.aac"))
        guard case .alreadySucceeded = try harness.run(document) else {
            Issue.record("second run was not refused as already succeeded")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: harness.path("s.aac")))
        #expect(try harness.store.job(id: "same")?.attempts == 1)
        #expect(try harness.store.events(jobID: "same").contains { $0.kind == .duplicate })
    }
}
