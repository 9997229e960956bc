import Foundation
import Testing
@testable import JobDocument

@Suite("WHIP inputs")
struct WHIPSpecTests {
    static func problems(_ text: String) -> [String] { specProblems(text) }

    @Test("a whip:// listen input is live; its token is kept for the run and masked in the redacted document")
    func accepted() throws {
        let spec = try JobSpec.parse(Data(#"{"id": "w", "input": {"url": "whip://0.0.0.0:8080/live/cam", "listen": true, "token": "s3cr3t-T0ken"}, "outputs": ["rtmp://h/live/k", "a.flv"]}"#.utf8))
        #expect(spec.input.isNetwork && spec.input.isWHIP && spec.input.listen)
        #expect(spec.input.token == "s3cr3t-T0ken")
        #expect(spec.redactedInput == "whip://0.0.0.0:8080/live/cam")
        #expect(!spec.redactedDocument.jsonText().contains("s3cr3t"))
        #expect(spec.redactedDocument.jsonText().contains(#""token":"***""#))
        #expect(spec.document.jsonText().contains("s3cr3t-T0ken"))
        let url = try WHIPURL(parsing: spec.input.url)
        #expect(url.scheme == .whip && url.host == "0.0.0.0" && url.port == 8080 && url.path == "/live/cam")
        #expect(try WHIPURL(parsing: "whip://[::1]:9000/a").hostAndPort == "[::1]:9000")
        let open = try JobSpec.parse(Data(#"{"id": "w", "input": {"url": "whip://h:8080/x", "listen": true}, "outputs": ["a.flv"]}"#.utf8))
        #expect(open.input.token == nil)
    }

    @Test("refused by name: without listen, a token elsewhere, a bad token, and URLs without a port or path or with a query")
    func refused() {
        #expect(Self.problems(#"{"id": "w", "input": "whip://h:8080/x", "outputs": ["a.flv"]}"#)
                == [#"input.listen: a whip:// input is published to the worker: give the input as {"url": …, "listen": true}"#])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "rtmp://h/live/k", "token": "t"}, "outputs": ["a.flv"]}"#)
                == ["input.token: is for WHIP inputs (whip://); other inputs carry their secret in the URL"])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "whip://h:8080/x", "listen": true, "token": "has space"}, "outputs": ["a.flv"]}"#)
                == ["input.token: must be 1-256 printable ASCII characters without spaces (it is sent as a Bearer token)"])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "whip://h/x", "listen": true}, "outputs": ["a.flv"]}"#)
                == ["input.url: invalid WHIP URL: a port is required (whip://HOST:PORT/PATH)"])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "whip://h:80", "listen": true}, "outputs": ["a.flv"]}"#)
                == ["input.url: invalid WHIP URL: a path is required (whip://HOST:PORT/PATH)"])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "whip://h:80/x?token=t", "listen": true}, "outputs": ["a.flv"]}"#)
                == ["input.url: invalid WHIP URL: a query or fragment is not taken; the token is the input's own `token` field"])
        #expect(Self.problems(#"{"id": "w", "input": {"url": "whip://h:80/a/../b", "listen": true}, "outputs": ["a.flv"]}"#)
                == ["input.url: invalid WHIP URL: the path needs one or more non-empty segments, none of them '.' or '..'"])
    }

    @Test("a whep:// output is a live output carrying the job's stream or a rendition of its own; its token is masked; refused by name where it cannot be")
    func whepOutputs() throws {
        let spec = try JobSpec.parse(Data(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "whep://0.0.0.0:8080/watch/k", "token": "v13wer"}, "a.flv"]}"#.utf8))
        #expect(spec.outputs[0].isWHEP && spec.outputs[0].isNetwork && spec.outputs[0].format == .flv)
        #expect(spec.outputs[0].token == "v13wer")
        #expect(!spec.redactedDocument.jsonText().contains("v13wer"))
        #expect(Self.problems(#"{"id": "w", "input": "in.mp4", "outputs": ["whep://h:8080/x"]}"#)
                == ["outputs[0].url: a WHEP output needs a live input (rtmp://, rtmps://, srt://, rtsp:// or whip://)"])
        // An encode job's viewers get its rendition; a WHEP output may have one of its own (H.264 for an HEVC source).
        #expect(Self.problems(#"{"id": "w", "input": "rtmp://h/live/k", "video": {"mode": "encode"}, "outputs": ["whep://h:8080/x"]}"#) == [])
        let rendition = try JobSpec.parse(Data(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "whep://h:8080/x", "token": "v", "video": {"mode": "encode", "width": 640, "height": 360}}, "a.flv"]}"#.utf8))
        #expect(rendition.outputs[0].video?.mode == .encode && rendition.outputs[0].video?.width == 640 && rendition.outputs[0].token == "v")
        #expect(Self.problems(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "whep://h:8080/x", "video": {"mode": "copy"}, "audio": {"mode": "drop"}}]}"#) == [])
        #expect(Self.problems(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "whep://h:8080/x", "format": "mpegts"}]}"#)
                == ["outputs[0].format: WHEP outputs carry the job's stream over WebRTC; name no format"])
        #expect(Self.problems(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "rtmp://h/live/o", "token": "t"}]}"#)
                == ["outputs[0].token: is for WHEP outputs (whep://); other outputs carry their secret in the URL"])
        #expect(Self.problems(#"{"id": "w", "input": "rtmp://h/live/k", "outputs": [{"url": "whep://h:8080/x", "audio": {"mode": "encode"}}]}"#)
                == ["outputs[0].audio: a WHEP output's viewers get Opus made from the job's audio; give it audio copy or drop"])
    }
}
