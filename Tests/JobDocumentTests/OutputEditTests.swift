import Foundation
import Testing
@testable import JobDocument

/// An output edit of a running job, validated like a job, and the edited spec it leaves.
@Suite("Output edits")
struct OutputEditTests {
    static let document = #"""
        {"id":"cam42","input":{"url":"rtmp://ingest.local/live/SOURCEKEY","timeout_s":5},
         "outputs":[{"url":"rtmp://a.example/live/AKEY"},"rtmp://b.example/live/BKEY","cam42.flv"],"priority":5}
        """#

    static func spec(_ text: String = document) throws -> JobSpec { try JobSpec.parse(Data(text.utf8)) }

    @Test("add appends the output: the edited spec validates, keeps every other field, and the index is the next one")
    func add() throws {
        let spec = try Self.spec()
        let applied = try OutputEdit(action: .add, url: "rtmps://c.example/live/CKEY").apply(to: spec, slots: OutputSlots(spec: spec))
        #expect(applied.spec.outputs.map(\.url) == spec.outputs.map(\.url) + ["rtmps://c.example/live/CKEY"])
        #expect(applied.spec.outputs.last?.format == .flv)
        #expect(applied.index == 3)
        #expect(applied.slots.urls == spec.outputs.map(\.url) + ["rtmps://c.example/live/CKEY"])
        #expect(applied.spec.id == spec.id && applied.spec.priority == 5 && applied.spec.input == spec.input)
        // The edited document is what is published and stored: it parses back to the same spec.
        #expect(try JobSpec.parse(Data(applied.document.jsonText().utf8)) == applied.spec)
        #expect(!applied.spec.redactedDocument.jsonText().contains("CKEY"))
    }

    @Test("remove drops the output from the spec and leaves a hole in the attempt's indexes")
    func remove() throws {
        let spec = try Self.spec()
        let applied = try OutputEdit(action: .remove, url: "rtmp://a.example/live/AKEY").apply(to: spec, slots: OutputSlots(spec: spec))
        #expect(applied.spec.outputs.map(\.url) == ["rtmp://b.example/live/BKEY", "cam42.flv"])
        #expect(applied.index == 0)
        #expect(applied.slots.urls == spec.outputs.map(\.url) && applied.slots.removed == [0])
        // Removed twice: the second time it is gone.
        #expect(throws: OutputEditError.self) {
            _ = try OutputEdit(action: .remove, url: "rtmp://a.example/live/AKEY").apply(to: applied.spec, slots: applied.slots)
        }
        // An output added after the removal takes the next index, not the hole.
        let added = try OutputEdit(action: .add, url: "rtmp://a.example/live/AKEY").apply(to: applied.spec, slots: applied.slots)
        #expect(added.index == 3)
        #expect(added.slots.index(of: "rtmp://a.example/live/AKEY") == 3)
        #expect(added.spec.outputs.map(\.url) == ["rtmp://b.example/live/BKEY", "cam42.flv", "rtmp://a.example/live/AKEY"])
    }

    static let refused: [(action: OutputEdit.Action, url: String, says: String)] = [
        (.add, "ftp://x.example/live/FTPKEY", "only rtmp://, rtmps:// and srt:// outputs can be added to a running job, not a ftp:// URL"),
        (.add, "https://x.example/live/HTTPKEY", "not a https:// URL"),
        (.add, "out/extra.flv", "only rtmp://, rtmps:// and srt:// outputs can be added to a running job, not a file path"),
        (.add, "rtmp://a.example/live/AKEY", "already has the output rtmp://a.example/live/***"),
        (.add, "rtmp://x.example/live/" + String(repeating: "K", count: 5000), "outputs[3].url"),
        (.remove, "rtmp://nowhere.example/live/NOKEY", "has no output rtmp://nowhere.example/live/***"),
        (.remove, "cam42.flv", "is a file: only RTMP and SRT outputs can be removed"),
    ]

    @Test("bad edits are refused with the reason, and the key is never in it", arguments: refused)
    func refusals(_ c: (action: OutputEdit.Action, url: String, says: String)) throws {
        let spec = try Self.spec()
        #expect {
            _ = try OutputEdit(action: c.action, url: c.url).apply(to: spec, slots: OutputSlots(spec: spec))
        } throws: { error in
            let text = "\(error)"
            return text.contains(c.says) && !text.contains("KEY")
        }
    }

    @Test("a 17th output is refused by the outputs limit")
    func limit() throws {
        let urls = (0..<16).map { "\"rtmp://h.example/live/K\($0)\"" }.joined(separator: ",")
        let spec = try Self.spec(#"{"id":"full","input":"rtmp://i.example/live/S","outputs":[\#(urls)]}"#)
        #expect {
            _ = try OutputEdit(action: .add, url: "rtmp://h.example/live/K16").apply(to: spec, slots: OutputSlots(spec: spec))
        } throws: { error in
            "\(error)".contains("must hold 1 to 16 outputs, got 17") && !"\(error)".contains("K16")
        }
    }

    @Test("the only output cannot be removed")
    func onlyOutput() throws {
        let spec = try Self.spec(#"{"id":"one","input":"rtmp://i.example/live/S","outputs":["rtmp://h.example/live/ONLYKEY"]}"#)
        #expect {
            _ = try OutputEdit(action: .remove, url: "rtmp://h.example/live/ONLYKEY").apply(to: spec, slots: OutputSlots(spec: spec))
        } throws: { error in
            "\(error)".contains("the only output of job one; cancel the job instead") && !"\(error)".contains("ONLYKEY")
        }
    }
}
