import Foundation
import Testing
@testable import JobDocument

/// The job option `fallback`: a slate through input outages.
@Suite("Job spec: fallback")
struct FallbackSpecTests {
    static func problems(_ text: String) -> [String] { specProblems(text) }

    @Test("given in full, the values are kept; an empty object takes the defaults; absent means no fallback")
    func values() throws {
        let full = try JobSpec.parse(Data(#"{"id": "f", "input": "rtmp://h/live/k", "outputs": ["rtmp://d/live/x"], "fallback": {"after_s": 2.5, "max_s": 90, "slate": "slates/card.png"}}"#.utf8))
        #expect(full.fallback?.afterSeconds == 2.5 && full.fallback?.maxSeconds == 90 && full.fallback?.slate == "slates/card.png")
        let defaults = try JobSpec.parse(Data(#"{"id": "f", "input": "rtmp://h/live/k", "outputs": ["rtmp://d/live/x"], "fallback": {}}"#.utf8))
        #expect(defaults.fallback == FallbackSpec())
        #expect(defaults.fallback?.afterSeconds == 1 && defaults.fallback?.maxSeconds == 600 && defaults.fallback?.slate == nil)
        let none = try JobSpec.parse(Data(#"{"id": "f", "input": "rtmp://h/live/k", "outputs": ["rtmp://d/live/x"]}"#.utf8))
        #expect(none.fallback == nil)
    }

    @Test("bad values are named by path: out of range, unknown keys, a URL slate, a file input, a wrong type")
    func problems() {
        let base = #""id": "f", "input": "rtmp://h/live/k", "outputs": ["rtmp://d/live/x"]"#
        #expect(Self.problems("{\(base), \"fallback\": {\"after_s\": 0.1}}") == ["fallback.after_s: must be from 0.2 to 60 (seconds), got 0.1"])
        #expect(Self.problems("{\(base), \"fallback\": {\"max_s\": 100000}}") == ["fallback.max_s: must be from 1 to 86400 (seconds), got 100000"])
        #expect(Self.problems("{\(base), \"fallback\": {\"after\": 1}}") == ["fallback.after: unknown key"])
        #expect(Self.problems("{\(base), \"fallback\": true}") == ["fallback: must be an object, got a boolean"])
        let url = Self.problems("{\(base), \"fallback\": {\"slate\": \"rtmp://h/live/SECRETKEY\"}}")
        #expect(url.count == 1 && url[0].hasPrefix("fallback.slate: must be a file path") && !url[0].contains("SECRETKEY"), "\(url)")
        #expect(Self.problems("{\(base), \"fallback\": {\"slate\": \"\"}}") == ["fallback.slate: must name an image or video file, got an empty string"])
        #expect(Self.problems(#"{"id": "f", "input": "in.mp4", "outputs": ["o.flv"], "fallback": {}}"#)
                == ["fallback: needs a live input (rtmp://, rtmps:// or srt://): a file input never drops"])
    }

    @Test("the schema and the limits table carry the fallback's bounds")
    func schema() throws {
        let text = JobSchema.text
        #expect(text.contains("\"fallback\""))
        #expect(JobLimits.numbers.contains(JobLimits.fallbackAfter) && JobLimits.numbers.contains(JobLimits.fallbackMax))
        #expect(JobLimits.texts.contains(JobLimits.slate))
    }
}
