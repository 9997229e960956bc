import Foundation
import Testing
@testable import JobDocument

@Suite("SRT URLs")
struct SRTURLTests {
    @Test("options are read as FFmpeg's srt:// URLs name them", arguments: [
        ("srt://10.0.0.5:9000", SRTURL(host: "10.0.0.5", port: 9000)),
        ("SRT://h:1?latency=200&pbkeylen=16", SRTURL(host: "h", port: 1, latencyMilliseconds: 200, keyLength: 16)),
        ("srt://h:9000?streamid=publish:live/k&passphrase=0123456789", SRTURL(host: "h", port: 9000, streamID: "publish:live/k", passphrase: "0123456789")),
        // The access-control syntax starts with '#', which is the streamid's own here, not a fragment.
        ("srt://h:9000?streamid=#!::r=live/k,m=publish", SRTURL(host: "h", port: 9000, streamID: "#!::r=live/k,m=publish")),
        ("srt://h:9000?streamid=%23!::r=live/k%2Cm=publish", SRTURL(host: "h", port: 9000, streamID: "#!::r=live/k,m=publish")),
        ("srt://[::1]:9000?mode=listener", SRTURL(host: "::1", port: 9000, mode: .listener)),
        ("srt://h:9000?mode=Caller&", SRTURL(host: "h", port: 9000)),
    ])
    func parses(_ text: String, _ expected: SRTURL) throws {
        #expect(try SRTURL(parsing: text) == expected)
    }

    @Test("a bad URL is refused naming what was wrong, never quoting a secret", arguments: [
        ("rtmp://h:1/a/b", SRTURLError.notSRT),
        ("srt://h", .port), ("srt://h:0", .port), ("srt://h:70000", .port), ("srt://:9000", .host),
        ("srt://user:pw@h:9000", .credentials), ("srt://h:9000/live/k", .path),
        ("srt://h:9000?token=x", .unknownKey("token")), ("srt://h:9000?latency=100&latency=200", .repeatedKey("latency")),
        ("srt://h:9000?streamid", .missingValue("streamid")), ("srt://h:9000?passphrase=", .missingValue("passphrase")),
        ("srt://h:9000?passphrase=short", .passphraseLength(5)),
        ("srt://h:9000?latency=5", .latency("5")), ("srt://h:9000?latency=1.5", .latency("1.5")),
        ("srt://h:9000?pbkeylen=8", .keyLength("8")), ("srt://h:9000?mode=rendezvous", .mode("rendezvous")),
        ("srt://h:9000?streamid=%zz", .missingValue("streamid")),
    ])
    func refuses(_ text: String, _ expected: SRTURLError) {
        #expect(throws: expected) { try SRTURL(parsing: text) }
        #expect(!expected.description.contains("short"))
    }

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
        let listen = try JobSpec.parse(Data(#"{"id":"b","input":{"url":"srt://0.0.0.0:9000?streamid=publish:live/k","listen":true},"outputs":["rtmp://d/live/x"]}"#.utf8))
        #expect(listen.input.listen && listen.input.isSRT)
    }

    @Test("SRT jobs that cannot work are refused by key path", arguments: [
        (#"{"id":"a","input":{"url":"srt://0.0.0.0:9000","listen":true},"outputs":["o.flv"]}"#,
         ["input.url: a listening SRT input needs the streamid its publisher sends: srt://HOST:PORT?streamid=publish:live/KEY"]),
        (#"{"id":"a","input":"srt://0.0.0.0:9000?mode=listener","outputs":["o.flv"]}"#,
         [#"input.url: an SRT input waits for its publisher with "listen": true (the worker's shared SRT port), not mode=listener"#]),
        (#"{"id":"a","input":"srt://h:9000?passphrase=SECRET","outputs":["o.flv"]}"#,
         ["input: the SRT passphrase must be 10 to 79 characters, got 6"]),
        (#"{"id":"a","input":"o.mp4","outputs":[{"url":"srt://h:9000","format":"flv"}]}"#,
         ["outputs[0].format: SRT outputs carry MPEG-TS, not flv"]),
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
