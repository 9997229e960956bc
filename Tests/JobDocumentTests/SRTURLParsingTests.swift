import Testing
@testable import JobDocument

/// `srt://` URLs as jobs, ffmpeg and srt-live-transmit write them; one table for the valid and one for the refused.
struct SRTURLParsingTests {
    static let secretPassphrase = "s3cret-passphrase"
    static let secretStream = "live/SECRETKEY"

    struct Valid: CustomTestStringConvertible, Sendable {
        let text: String
        let expected: SRTURL
        let redacted: String
        var testDescription: String { redacted }
    }

    static let valid: [Valid] = [
        Valid(text: "srt://127.0.0.1:9000", expected: SRTURL(host: "127.0.0.1", port: 9000), redacted: "srt://127.0.0.1:9000"),
        Valid(text: "SRT://ingest.example.com:9000?latency=400&mode=caller",
              expected: SRTURL(host: "ingest.example.com", port: 9000, latencyMilliseconds: 400),
              redacted: "srt://ingest.example.com:9000?latency=400"),
        Valid(text: "srt://[::1]:9000?streamid=publish:\(secretStream)&passphrase=\(secretPassphrase)&pbkeylen=32",
              expected: SRTURL(host: "::1", port: 9000, streamID: "publish:\(secretStream)", passphrase: secretPassphrase, keyLength: 32),
              redacted: "srt://[::1]:9000?streamid=***&passphrase=***&pbkeylen=32"),
        // `#` is part of an access-control streamid, not a fragment; `,` and `=` stay in the value.
        Valid(text: "srt://10.0.0.1:1935?streamid=#!::r=\(secretStream),m=publish",
              expected: SRTURL(host: "10.0.0.1", port: 1935, streamID: "#!::r=\(secretStream),m=publish"),
              redacted: "srt://10.0.0.1:1935?streamid=***"),
        Valid(text: "srt://10.0.0.1:1935?streamid=%23%21%3A%3Ar%3Dlive%2Fk",
              expected: SRTURL(host: "10.0.0.1", port: 1935, streamID: "#!::r=live/k"), redacted: "srt://10.0.0.1:1935?streamid=***"),
        Valid(text: "srt://:9000?mode=listener", expected: SRTURL(host: "", port: 9000, mode: .listener),
              redacted: "srt://:9000?mode=listener"),
        Valid(text: "srt://0.0.0.0:0?mode=listener&latency=20",
              expected: SRTURL(host: "0.0.0.0", port: 0, latencyMilliseconds: 20, mode: .listener),
              redacted: "srt://0.0.0.0:0?latency=20&mode=listener"),
        Valid(text: "srt://h:1?latency=8000&passphrase=0123456789", expected: SRTURL(host: "h", port: 1, passphrase: "0123456789", latencyMilliseconds: 8000),
              redacted: "srt://h:1?passphrase=***&latency=8000"),
        Valid(text: "srt://h:1?passphrase=\(String(repeating: "p", count: 79))",
              expected: SRTURL(host: "h", port: 1, passphrase: String(repeating: "p", count: 79)), redacted: "srt://h:1?passphrase=***"),
    ]

    @Test("valid URLs parse into their fields and redact their secrets", arguments: valid)
    func parsesValid(_ c: Valid) throws {
        let url = try SRTURL(parsing: c.text)
        #expect(url == c.expected)
        #expect(url.redacted == c.redacted)
        #expect("\(url)" == c.redacted)
        #expect(String(reflecting: url) == c.redacted)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let text: String
        /// A part of the error's reason.
        let reason: String
        var testDescription: String { reason }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "rtmp://h:1", reason: "scheme"),
        Invalid(text: "srt://h", reason: "port is missing"),
        Invalid(text: "srt://h:70000", reason: "not 0-65535"),
        Invalid(text: "srt://h:x", reason: "not 0-65535"),
        Invalid(text: "srt://::1:9000", reason: "brackets"),
        Invalid(text: "srt://[::1:9000", reason: "unclosed"),
        Invalid(text: "srt://user@h:1", reason: "no user"),
        Invalid(text: "srt://h:1/path", reason: "no path"),
        Invalid(text: "srt://:9000", reason: "a caller needs a host"),
        Invalid(text: "srt://h:0", reason: "port other than 0"),
        Invalid(text: "srt://h:1?latency=19", reason: "latency 19 ms is outside 20-8000"),
        Invalid(text: "srt://h:1?latency=8001", reason: "outside 20-8000"),
        Invalid(text: "srt://h:1?latency=fast", reason: "not a number of milliseconds"),
        Invalid(text: "srt://h:1?passphrase=short", reason: "10-79 characters (it has 5)"),
        Invalid(text: "srt://h:1?passphrase=\(String(repeating: "p", count: 80))", reason: "(it has 80)"),
        Invalid(text: "srt://h:1?passphrase=0123456789&pbkeylen=20", reason: "pbkeylen 20"),
        Invalid(text: "srt://h:1?pbkeylen=16", reason: "pbkeylen needs a passphrase"),
        Invalid(text: "srt://h:1?mode=rendezvous", reason: "not caller or listener"),
        Invalid(text: "srt://h:1?maxbw=100", reason: "unknown query key 'maxbw'"),
        Invalid(text: "srt://h:1?latency=100&latency=200", reason: "'latency' appears twice"),
        Invalid(text: "srt://h:1?latency", reason: "has no value"),
        Invalid(text: "srt://h:1?streamid=", reason: "streamid is empty"),
        Invalid(text: "srt://h:1?streamid=%zz", reason: "malformed %-escape"),
        Invalid(text: "srt://h:1?streamid=\(String(repeating: "k", count: 513))", reason: "longer than 512"),
    ]

    @Test("malformed or out-of-bounds URLs are refused, naming the part", arguments: invalid)
    func refusesInvalid(_ c: Invalid) {
        #expect {
            try SRTURL(parsing: c.text)
        } throws: { error in
            guard case let .invalidURL(reason) = error as? SRTAddressError else { return false }
            return reason.contains(c.reason)
        }
    }

    @Test("no error quotes a passphrase or streamid, even one written where a key belongs")
    func errorsHideSecrets() {
        let texts = [
            "srt://h:1?passphrase=\(Self.secretPassphrase)&pbkeylen=7",
            "srt://h:1?streamid=\(Self.secretStream)&mode=x",
            "srt://h:1?SECRETKEY", "srt://h:1?SECRETKEY=1",
            "srt://h:1?passphrase=\(Self.secretPassphrase)&passphrase=\(Self.secretPassphrase)",
            "srt://h:1?passphrase=SECRET", "srt://h:1?streamid=%zzSECRET",
        ]
        for text in texts {
            do {
                _ = try SRTURL(parsing: text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(!"\(error)".contains("SECRET"), "\(error)")
                #expect(!"\(error)".contains(Self.secretPassphrase))
            }
        }
    }
}
