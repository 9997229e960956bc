import Foundation
import Testing
@testable import JobDocument

/// SRT in job documents: what the validator takes and refuses, and what listings show (the URL and streamid
/// grammars themselves: SRTURLParsingTests, SRTStreamIDTests).
@Suite("SRT in job documents")
struct SRTURLTests {
    @Test("listings show the options' names and hide streamid and passphrase")
    func redacts() {
        let url = "srt://h:9000?streamid=publish:live/SECRETKEY&passphrase=SECRETPASS1&latency=200"
        #expect(Redaction.redact(url: url) == "srt://h:9000?streamid=***&passphrase=***&latency=200")
        // One that does not parse still loses its query.
        #expect(Redaction.redact(url: "srt://h:9000?passphrase=x&streamid=SECRETKEY") == "srt://h:9000")
        #expect(Redaction.redact(url: "srt://[::1]:9000?mode=listener") == "srt://[::1]:9000?mode=listener")
    }

    @Test("jobs take SRT inputs and outputs; SRT outputs are MPEG-TS")
    func jobs() throws {
        let pull = try JobSpec.parse(Data(#"{"id":"a","input":"srt://h:9000?streamid=read:live/k","outputs":["srt://d:9001?passphrase=0123456789","o.flv"]}"#.utf8))
        #expect(pull.input.isNetwork && pull.input.isSRT && !pull.input.listen)
        #expect(pull.outputs[0].format == .mpegts && pull.outputs[0].isSRT && pull.outputs[0].isNetwork)
        #expect(pull.outputs[0].redactedURL == "srt://d:9001?passphrase=***")
        #expect(!pull.redactedDocument.jsonText().contains("0123456789"))
        let listen = try JobSpec.parse(Data(#"{"id":"b","input":{"url":"srt://0.0.0.0:9000?streamid=%23!::r=live/k,m=publish","listen":true},"outputs":["rtmp://d/live/x"]}"#.utf8))
        #expect(listen.input.listen && listen.input.isSRT)
    }

    @Test("SRT jobs that cannot work are refused by key path, never quoting a secret", arguments: [
        (#"{"id":"a","input":{"url":"srt://0.0.0.0:9000","listen":true},"outputs":["o.flv"]}"#,
         ["input.url: a listening SRT input needs the streamid its publisher sends: srt://HOST:PORT?streamid=publish:live/KEY"]),
        (#"{"id":"a","input":{"url":"srt://0.0.0.0:9000?streamid=read:live/SECRET","listen":true},"outputs":["o.flv"]}"#,
         ["input.url: a listening SRT input's streamid names a publish (publish:live/KEY or #!::r=live/KEY,m=publish), not a read"]),
        (#"{"id":"a","input":{"url":"srt://0.0.0.0:9000?streamid=play:live/SECRET","listen":true},"outputs":["o.flv"]}"#,
         ["input.url: invalid SRT streamid: the action before ':' is not publish or read"]),
        (#"{"id":"a","input":"srt://0.0.0.0:9000?mode=listener","outputs":["o.flv"]}"#,
         [#"input.url: an SRT input waits for its publisher with "listen": true (the worker's shared SRT port), not mode=listener"#]),
        (#"{"id":"a","input":"srt://h:9000?passphrase=SECRET","outputs":["o.flv"]}"#,
         ["input: invalid SRT URL: the passphrase must be 10-79 characters (it has 6)"]),
        (#"{"id":"a","input":{"url":"srt://h:0?streamid=publish:k","listen":true},"outputs":["o.flv"]}"#,
         ["input.url: invalid SRT URL: a caller needs a port other than 0"]),
        (#"{"id":"a","input":"o.mp4","outputs":["srt://0.0.0.0:0?mode=listener"]}"#,
         ["outputs[0].url: invalid SRT URL: a job's SRT URL needs a port from 1 to 65535"]),
        (#"{"id":"a","input":"o.mp4","outputs":[{"url":"srt://h:9000","format":"flv"}]}"#,
         ["outputs[0].format: SRT outputs carry MPEG-TS, not flv"]),
        (#"{"id":"a","input":"o.mp4","outputs":["srt://h:9000?SECRETKEY=1"]}"#,
         ["outputs[0].url: invalid SRT URL: unknown query key (not shown) (known: streamid, passphrase, latency, pbkeylen, mode)"]),
        (#"{"id":"a","input":{"url":"srt://h:9000","video_track":1},"outputs":["o.flv"]}"#,
         ["input.video_track: needs an RTMP input (rtmp:// or rtmps://): tracks are Enhanced RTMP multitrack ids"]),
    ])
    func refusedJobs(_ json: String, _ problems: [String]) {
        do {
            _ = try JobSpec.parse(Data(json.utf8))
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.problems.map(\.description) == problems)
            #expect(!error.problems.map(\.description).joined().contains("SECRET"))
        }
    }
}
