import Foundation
import Testing
@testable import JobDocument

@Suite("Job spec v1")
struct JobSpecTests {
    static let repository = Scratch.repository

    @Test("every example in jobs/examples parses and validates")
    func examples() throws {
        let folder = JobSpecTests.repository.appendingPathComponent("jobs/examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count >= 4)
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(throws: Never.self, "\(name)") { _ = try JobSpec.parse(data) }
        }
    }

    @Test("the design's example parses to the values it states")
    func designExample() throws {
        let data = try Data(contentsOf: JobSpecTests.repository.appendingPathComponent("jobs/examples/encode-720p.json"))
        let spec = try JobSpec.parse(data)
        #expect(spec.id == "cam42-720p")
        #expect(spec.input.url == "rtmp://ingest.local/live/cam42")
        #expect(spec.input.timeoutSeconds == 10)
        #expect(spec.video.mode == .encode && spec.video.bitrateKbps == 2500 && spec.video.width == 1280 && spec.video.gopSeconds == 2)
        #expect(spec.audio.sampleRate == 48000 && spec.audio.channels == 2)
        #expect(spec.outputs.map(\.format) == [.flv, .flv, .adts, .annexb])
        #expect(spec.priority == 5)
        #expect(spec.maxAttempts == JobSpec.defaultMaxAttempts)
    }

    @Test("defaults: copy, copy; a string input; realtime unset")
    func defaults() throws {
        let spec = try JobSpec.parse(Data(#"{"id":"a","input":"in.mp4","outputs":["o.flv"]}"#.utf8))
        #expect(spec.video.mode == .copy && spec.audio.mode == .copy)
        #expect(spec.input.listen == false && spec.input.realtime == nil && spec.input.fps == nil)
        #expect(spec.maxDurationSeconds == 0 && spec.priority == 0)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let json: String
        let problems: [String]
        var testDescription: String { problems.joined(separator: " | ") }
    }

    static let invalid: [Invalid] = [
        Invalid(json: #"[]"#, problems: ["a job must be a JSON object, got an array"]),
        Invalid(json: #"{"input":"a.mp4","outputs":["o.flv"]}"#, problems: ["id: is required"]),
        Invalid(json: #"{"id":"has space","input":"a.mp4","outputs":["o.flv"]}"#, problems: [#"id: must match [A-Za-z0-9._:-]{1,128}, got "has space""#]),
        Invalid(json: #"{"id":7,"input":"a.mp4","outputs":["o.flv"]}"#, problems: ["id: must be a string, got a number"]),
        Invalid(json: #"{"id":"a","outputs":["o.flv"]}"#, problems: ["input: is required"]),
        Invalid(json: #"{"id":"a","input":"http://h/x.mp4","outputs":["o.flv"]}"#, problems: [#"input: protocol "http://" is not allowed; use a file path, file://, rtmp://, rtmps://, srt://, rtsp://, rtsps:// or whip://"#]),
        Invalid(json: #"{"id":"a","input":{"url":"a.mp4","timeout":3},"outputs":["o.flv"]}"#, problems: ["input.timeout: unknown key"]),
        Invalid(json: #"{"id":"a","input":{"url":"a.mp4","listen":"yes"},"outputs":["o.flv"]}"#, problems: ["input.listen: must be true or false, got a string"]),
        Invalid(json: #"{"id":"a","input":{"url":"a.mp4","listen":true},"outputs":["o.flv"]}"#, problems: ["input.listen: listen needs an rtmp://, rtmps://, srt:// or whip:// URL"]),
        Invalid(json: #"{"id":"a","input":"a.mp4"}"#, problems: ["outputs: is required (1 to 16 outputs)"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[]}"#, problems: ["outputs: must hold 1 to 16 outputs, got 0"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":["o.mkv"]}"#, problems: [#"outputs[0].url: cannot tell the format from the extension .mkv; name one with "format": flv, adts, annexb, mp4, mpegts, hls"#]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o","format":"mkv"}]}"#, problems: [#"outputs[0].format: must be one of flv, adts, annexb, mp4, mpegts, hls, got "mkv""#]),
        // Regression (fuzz, JobDocument): Foundation's NSString.pathExtension trapped on this URL: the worker died.
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":["///a//"]}"#, problems: [#"outputs[0].url: cannot tell the format from a path without an extension; name one with "format": flv, adts, annexb, mp4, mpegts, hls"#]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":["rtmp:/idBBBBB0.1:1935///////Unsa///"]}"#, problems: [#"outputs[0].url: cannot tell the format from a path without an extension; name one with "format": flv, adts, annexb, mp4, mpegts, hls"#]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":["o.flv","o.flv"]}"#, problems: ["outputs[1].url: is the same as outputs[0].url"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.aac","segment_s":2}]}"#, problems: ["outputs[0]: segment_s applies to HLS outputs and to file recordings in .mp4, .ts or .flv, not to ADTS"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.flv","window":2}]}"#, problems: ["outputs[0]: window applies to HLS outputs (.m3u8) only"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.m3u8","segment_s":0.5}]}"#, problems: ["outputs[0].segment_s: must be from 1 to 86400 (seconds), got 0.5"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.m3u8","segment_s":61}]}"#, problems: ["outputs[0].segment_s: must be from 1 to 60 (seconds) for HLS, got 61"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.m3u8","retain":3}]}"#, problems: ["outputs[0]: retain and retain_bytes apply to recordings in segments (.mp4, .ts, .flv with segment_s), not to HLS (use window)"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.mp4","retain":3}]}"#, problems: ["outputs[0]: retain and retain_bytes need segment_s (a recording in segments)"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"o.mp4","segment_s":2.5}]}"#, problems: ["outputs[0].segment_s: must be a whole number of seconds for a recording, got 2.5"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"rec-%F.mp4","segment_s":60}]}"#, problems: ["outputs[0].url: is a segment name pattern that uses %F, which is not a segment name field (allowed: %Y %m %d %H %M %S %j %s %%)"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"rtmp://h/app/k","segment_s":60}]}"#, problems: ["outputs[0]: segment_s applies to HLS outputs and to file recordings in .mp4, .ts or .flv, not to RTMP or SRT outputs"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":[{"url":"rtmp://h/app/key","format":"adts"}]}"#, problems: ["outputs[0].format: RTMP outputs carry FLV, not adts"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","audio":{"mode":"drop"},"outputs":["o.aac"]}"#, problems: ["outputs[0]: an ADTS output needs audio, but audio.mode is drop"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","video":{"mode":"copy","bitrate_kbps":100},"outputs":["o.flv"]}"#, problems: ["video.bitrate_kbps: only applies when video.mode is encode"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","video":{"mode":"encode","width":1279},"outputs":["o.flv"]}"#, problems: ["video.width: must be even, got 1279"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","video":{"mode":"encode","profile":"ultra"},"outputs":["o.flv"]}"#, problems: [#"video.profile: must be one of baseline, constrained_baseline, main, high, got "ultra""#]),
        Invalid(json: #"{"id":"a","input":"a.mp4","priority":12,"outputs":["o.flv"]}"#, problems: ["priority: must be a whole number from 0 to 9, got 12"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","max_duration_s":-1,"outputs":["o.flv"]}"#, problems: ["max_duration_s: must be from 0 to 2678400 (seconds), got -1"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","outputs":["rtmp://u:p@h/app/SECRET"],"x":1,"y":{}}"#, problems: ["x: unknown key", "y: unknown key"]),
        Invalid(json: #"{"id":"a","input":"a.mp4","video":{"mode":"drop"},"audio":{"mode":"drop"},"outputs":["o.flv"]}"#, problems: ["outputs[0]: an FLV output needs audio or video, but both are dropped", "video and audio are both dropped: nothing to do"]),
    ]

    @Test("invalid documents list every problem by key path", arguments: invalid)
    func invalidDocuments(_ testCase: Invalid) throws {
        do {
            _ = try JobSpec.parse(Data(testCase.json.utf8))
            Issue.record("accepted: \(testCase.json)")
        } catch {
            #expect(error.problems.map(\.description) == testCase.problems)
        }
    }

    @Test("output extensions are read as NSString reads them, without its trap on slash runs", arguments: [
        ("o.flv", "flv"), ("dir/o.aac", "aac"), ("a/b.flv/", "flv"), ("/x/y.h264//", "h264"), ("a.b.flv", "flv"),
        ("x/.flv", ""), (".flv", ""), ("a.", ""), ("o", ""), ("///a//", ""), ("////a.flv//", "flv"),
    ])
    func pathExtension(_ path: String, _ expected: String) {
        #expect(SpecValidator.pathExtension(of: path) == expected)
    }

    @Test("not JSON names the problem")
    func notJSON() {
        #expect(throws: JobSpecError.self) { try JobSpec.parse(Data("{".utf8)) }
    }

    @Test("redacted documents carry no stream key or credentials")
    func redactedDocument() throws {
        let spec = try JobSpec.parse(Data(#"{"id":"a","input":"rtmp://user:pw@in.example/live/INKEY","outputs":["rtmp://out.example:1936/app/OUTKEY?token=T"]}"#.utf8))
        let text = spec.redactedDocument.jsonText()
        for secret in ["INKEY", "OUTKEY", "user", "pw", "token=T"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("rtmp://out.example:1936/app/***"))
        #expect(spec.document.jsonText().contains("OUTKEY"))
    }
}

@Suite("Redaction")
struct RedactionTests {
    @Test("URLs", arguments: [
        ("rtmp://a.example/live/KEY", "rtmp://a.example/live/***"),
        ("rtmp://user:pass@a.example:1935/live/KEY?x=1", "rtmp://a.example:1935/live/***"),
        ("rtmps://a.example/app/inst/KEY", "rtmps://a.example/app/***"),
        ("rtmp://a.example/live", "rtmp://a.example/live"),
        ("RTMP://a.example/live/KEY", "rtmp://a.example/live/***"),
        ("amqp://guest:secret@broker:5672/vhost", "amqp://broker:5672/vhost"),
        ("/media/cam42.flv", "/media/cam42.flv"),
        ("cam42:2026.flv", "cam42:2026.flv"),
        ("rtsp://admin:se%3Acret@10.0.0.7:554/Streaming/Channels/101?token=t", "rtsp://***@10.0.0.7:554/Streaming/Channels/101"),
        ("rtsps://cam.example/live", "rtsps://cam.example/live"),
    ])
    func urls(_ pair: (String, String)) {
        #expect(Redaction.redact(url: pair.0) == pair.1)
    }

    @Test("scrub replaces a URL echoed in free text")
    func scrub() {
        let text = "Connection to rtmp://u:p@h/live/KEY refused"
        #expect(Redaction.scrub(text, urls: ["rtmp://u:p@h/live/KEY"]) == "Connection to rtmp://h/live/*** refused")
    }
}

@Suite("Path policy")
struct PathPolicyTests {
    let root = Scratch.folder("roots")

    @Test("trusted: paths as given; file:// URLs become paths")
    func trusted() throws {
        #expect(try PathPolicy.trusted.resolveInput("../x.mp4") == "../x.mp4")
        #expect(try PathPolicy.trusted.resolveInput("file:///tmp/a%20b.mp4") == "/tmp/a b.mp4")
        #expect(try PathPolicy.trusted.resolveInput("rtmp://h/live/k") == "rtmp://h/live/k")
    }

    @Test("rooted: relative paths land under the root; escapes are refused")
    func rooted() throws {
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        let policy = PathPolicy.rooted(inputRoot: root + "/in", outputRoot: root + "/out")
        let resolvedRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        #expect(try policy.resolveInput("cam/a.mp4") == resolvedRoot + "/in/cam/a.mp4")
        #expect(try policy.resolveOutput("b.flv") == resolvedRoot + "/out/b.flv")
        #expect(throws: PathPolicy.Refusal.self) { try policy.resolveInput("../out/b.flv") }
        #expect(throws: PathPolicy.Refusal.self) { try policy.resolveInput("/etc/passwd") }
        #expect(throws: PathPolicy.Refusal.self) { try policy.resolveOutput("/tmp/x.flv") }
        try FileManager.default.createSymbolicLink(atPath: root + "/in/escape", withDestinationPath: "/etc")
        #expect(throws: PathPolicy.Refusal.self) { try policy.resolveInput("escape/passwd") }
    }
}

@Suite("jobs/schema.json")
struct JobSchemaTests {
    /// Validates documents against jobs/schema.json with Python's jsonschema (installed by scripts/bootstrap);
    /// prints one line per document: "ok" or "invalid".
    static func schemaVerdicts(_ documents: [String]) throws -> [String] {
        let schema = JobSpecTests.repository.appendingPathComponent("jobs/schema.json").path
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        for line in sys.stdin:
            try:
                jsonschema.validate(json.loads(line), schema); print("ok")
            except jsonschema.ValidationError:
                print("invalid")
        """
        let input = Data(Array(documents.map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n").utf8) + [10])
        return try Scratch.run("python3", ["-c", script, schema], input: input).split(separator: "\n").map(String.init)
    }

    @Test("the schema accepts every example, as the parser does")
    func examples() throws {
        let folder = JobSpecTests.repository.appendingPathComponent("jobs/examples")
        let documents = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
        #expect(try JobSchemaTests.schemaVerdicts(documents) == Array(repeating: "ok", count: documents.count))
    }

    @Test("the schema refuses what the parser refuses for structural reasons")
    func invalid() throws {
        let documents = [
            #"{"input":"a.mp4","outputs":["o.flv"]}"#,
            #"{"id":"has space","input":"a.mp4","outputs":["o.flv"]}"#,
            #"{"id":"a","input":"http://h/x.mp4","outputs":["o.flv"]}"#,
            #"{"id":"a","input":{"url":"a.mp4","timeout":3},"outputs":["o.flv"]}"#,
            #"{"id":"a","input":"a.mp4","outputs":[]}"#,
            #"{"id":"a","input":"a.mp4","outputs":[{"url":"o","format":"mkv"}]}"#,
            #"{"id":"a","input":"a.mp4","priority":12,"outputs":["o.flv"]}"#,
            #"{"id":"a","input":"a.mp4","outputs":["o.flv"],"colour":"red"}"#,
            #"{"id":"a","input":{"url":"a.mp4","timeout_s":1e20},"outputs":["o.flv"]}"#,
            #"{"id":"a","input":{"url":"a.h264","fps":1000},"outputs":["o.flv"]}"#,
            #"{"id":"a","input":"a.mp4","max_duration_s":1e9,"outputs":["o.flv"]}"#,
            #"{"id":"a","input":"a.mp4","video":{"mode":"encode","width":1279},"outputs":["o.flv"]}"#,
            #"{"id":"a","input":"a.mp4","outputs":["\#(String(repeating: "x", count: 4097))"]}"#,
            #"{"id":"a","input":"a.mp4","outputs":[\#((0..<17).map { "\"o\($0).flv\"" }.joined(separator: ","))]}"#,
        ]
        for document in documents {
            #expect(throws: JobSpecError.self, "\(document)") { try JobSpec.parse(Data(document.utf8)) }
        }
        #expect(try JobSchemaTests.schemaVerdicts(documents) == Array(repeating: "invalid", count: documents.count))
    }

    @Test("jobs/schema.json is the schema generated from JobLimits (regenerate: swift run sluice schema > jobs/schema.json)")
    func generated() throws {
        let committed = try String(contentsOf: JobSpecTests.repository.appendingPathComponent("jobs/schema.json"), encoding: .utf8)
        #expect(committed == JobSchema.text)
    }

    @Test("the schema states every bound of the limits table")
    func bounds() throws {
        let text = JobSchema.text
        for limit in JobLimits.numbers {
            var object = JobSchema.document
            for component in limit.path.split(separator: ".").map(String.init) {
                // `outputs[]`: the object form of an array's items.
                let key = component.hasSuffix("[]") ? String(component.dropLast(2)) : component
                guard case var .object(fields) = object else { break }
                if case let .object(items)? = fields["items"] { fields = items }
                // `video` and `audio` are defined once under $defs: the job's and every output's refer to them.
                if case let .string(reference)? = fields["$ref"], reference.hasPrefix("#/$defs/"),
                   case let .object(root) = JobSchema.document, case let .object(definitions)? = root["$defs"],
                   case let .object(definition)? = definitions[String(reference.dropFirst("#/$defs/".count))] {
                    fields = definition
                }
                if case let .object(properties)? = fields["properties"] { object = properties[key] ?? .null } else if case let .array(choices)? = fields["oneOf"], case let .object(last)? = choices.last, case let .object(properties)? = last["properties"] {
                    object = properties[key] ?? .null
                } else { object = .null }
            }
            guard case let .object(schema) = object else {
                Issue.record("\(limit.path) is not in the schema")
                continue
            }
            #expect(schema["minimum"] == .number(limit.range.lowerBound) && schema["maximum"] == .number(limit.range.upperBound), "\(limit.path)")
            #expect(schema["type"] == .string(limit.isWhole ? "integer" : "number"), "\(limit.path)")
        }
        #expect(text.contains("\"maxLength\" : 4096") || text.contains("\"maxLength\": 4096"))
    }
}

