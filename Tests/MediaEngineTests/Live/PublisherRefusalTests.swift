import Testing
@testable import MediaEngine

/// The warnings of FFmpeg 5.1's rtmp listener (`rtmpproto.c`), verbatim.
@Suite("PublisherRefusal")
struct PublisherRefusalTests {
    static func lines(_ texts: String...) -> [FFmpegLogCapture.Line] {
        texts.map { FFmpegLogCapture.Line(level: 24, text: $0) }
    }

    @Test("no listener warning: the publisher asked for the job's URL")
    func accepted() {
        #expect(PublisherRefusal.judge(Self.lines("Stream #0: not enough frames to estimate rate; consider increasing probesize")) == nil)
        #expect(PublisherRefusal.judge([]) == nil)
    }

    @Test("each listener warning maps to its refusal")
    func refusals() {
        #expect(PublisherRefusal.judge(Self.lines("App field don't match up: other <-> ingest")) == .wrongApplication(requested: "other", expected: "ingest"))
        #expect(PublisherRefusal.judge(Self.lines("App field not found in connect")) == .missingApplication)
        #expect(PublisherRefusal.judge(Self.lines("Unexpected stream guess, expecting s3cret")) == .wrongStreamKey)
        #expect(PublisherRefusal.judge(Self.lines("Unable to parse stream name - name too long?")) == .unreadableStreamName)
    }

    @Test("the refusal text never carries a stream key")
    func noKeys() {
        let refusal = PublisherRefusal.judge(Self.lines("Unexpected stream guess, expecting s3cret"))
        let text = refusal.map { "\($0)" } ?? ""
        #expect(!text.contains("guess") && !text.contains("s3cret") && !text.isEmpty)
    }
}
