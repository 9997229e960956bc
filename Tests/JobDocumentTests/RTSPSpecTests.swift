import Foundation
import JobDocument
import Testing

/// An rtsp:// or rtsps:// input: pulled from a camera over TCP or UDP, never listened for, never an output.
@Suite("RTSP inputs")
struct RTSPSpecTests {
    static func problems(_ text: String) -> [String] { specProblems(text) }

    @Test("a camera URL is a live input; its transport is TCP unless udp is named; its credentials are redacted")
    func accepted() throws {
        let plain = try JobSpec.parse(Data(#"{"id": "c", "input": "rtsp://admin:pw@10.0.0.7/cam", "outputs": ["rtmp://h/live/k"]}"#.utf8))
        #expect(plain.input.isNetwork && plain.input.isRTSP && !plain.input.isSRT)
        #expect(plain.input.rtspTransport == nil)
        #expect(plain.redactedInput == "rtsp://***@10.0.0.7/cam")
        #expect(!plain.redactedDocument.jsonText().contains("pw"))
        let udp = try JobSpec.parse(Data(#"{"id": "c", "input": {"url": "rtsps://cam.example/live", "transport": "udp"}, "outputs": ["a.flv"]}"#.utf8))
        #expect(udp.input.rtspTransport == .udp)
    }

    @Test("refused by name: a transport on another input, a listening camera, an RTSP output, an unknown transport")
    func refused() {
        #expect(Self.problems(#"{"id": "c", "input": {"url": "rtmp://h/live/k", "transport": "udp"}, "outputs": ["a.flv"]}"#)
                == ["input.transport: is for RTSP inputs (rtsp:// or rtsps://)"])
        #expect(Self.problems(#"{"id": "c", "input": {"url": "rtsp://h/cam", "listen": true}, "outputs": ["a.flv"]}"#)
                == ["input.listen: RTSP inputs are pulled from the camera; listen is for rtmp://, rtmps:// and srt://"])
        #expect(Self.problems(#"{"id": "c", "input": "rtsp://h/cam", "outputs": ["rtsp://h/out"]}"#)
                == [#"outputs[0].url: protocol "rtsp://" is not allowed; use a path, file://, rtmp://, rtmps://, srt:// or whep://"#])
        #expect(Self.problems(#"{"id": "c", "input": {"url": "rtsp://h/cam", "transport": "http"}, "outputs": ["a.flv"]}"#).count == 1)
    }
}
