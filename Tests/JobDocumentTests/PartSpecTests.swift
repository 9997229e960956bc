import Foundation
import JobDocument
import Testing

/// `part_s` on HLS outputs (Low-Latency HLS): a live input's only, within its limits, and a whole number of parts in
/// a segment.
@Suite("HLS part_s")
struct PartSpecTests {
    static func problems(_ text: String) -> [String] { specProblems(text) }

    static func job(input: String = "rtmp://127.0.0.1/live/k", _ output: String) -> String {
        #"{"id": "p", "input": "\#(input)", "outputs": [\#(output)]}"#
    }

    @Test("accepted on the HLS output of a live input, and carried into the spec")
    func accepted() throws {
        let spec = try JobSpec.parse(Data(Self.job(#"{"url": "out/index.m3u8", "segment_s": 1, "part_s": 0.33}"#).utf8))
        #expect(spec.outputs[0].partSeconds == 0.33 && spec.outputs[0].segmentSeconds == 1)
        // The default segment (2 s) holds 6 parts of 0.33 s, 4 of 0.5 s, 2 of 1 s.
        for part in ["0.33", "0.5", "1", "0.2"] {
            #expect(Self.problems(Self.job(#"{"url": "o.m3u8", "part_s": \#(part)}"#)).isEmpty, "part_s \(part)")
        }
        #expect(try JobSpec.parse(Data(Self.job(#"{"url": "o.m3u8"}"#).utf8)).outputs[0].partSeconds == nil)
    }

    @Test("refused by name: a file input, another format, a segment that is not whole parts, outside 0.2 to 1")
    func refused() {
        #expect(Self.problems(Self.job(input: "in.mp4", #"{"url": "o.m3u8", "part_s": 0.5}"#))
                == ["outputs[0].part_s: needs a live input (rtmp://, rtmps://, srt:// or rtsp://); a file input's HLS is VOD, which has no parts"])
        #expect(Self.problems(Self.job(#"{"url": "o.mp4", "part_s": 0.5}"#))
                == ["outputs[0].part_s: applies to HLS outputs (.m3u8) only"])
        #expect(Self.problems(Self.job(#"{"url": "o.m3u8", "segment_s": 1, "part_s": 0.4}"#))
                == ["outputs[0].part_s: segment_s (1) must be a whole number of parts, at least 2: 0.4 s parts make 2.5"])
        #expect(Self.problems(Self.job(#"{"url": "o.m3u8", "segment_s": 1, "part_s": 1}"#))
                == ["outputs[0].part_s: segment_s (1) must be a whole number of parts, at least 2: 1 s parts make 1"])
        #expect(Self.problems(Self.job(#"{"url": "o.m3u8", "part_s": 0.1}"#))
                == ["outputs[0].part_s: must be from 0.2 to 1 (seconds), got 0.1"])
        #expect(Self.problems(Self.job(#"{"url": "o.m3u8", "part_s": "fast"}"#)).count == 1)
    }
}
