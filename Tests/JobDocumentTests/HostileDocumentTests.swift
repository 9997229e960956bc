import Foundation
import SluiceTestSupport
import Testing
@testable import JobDocument

/// Documents written to break the worker: every one is refused with the field's path and the allowed
/// range, and none can crash, loop or exhaust the parser.
@Suite("Hostile job documents")
struct HostileDocumentTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let json: String
        let problems: [String]
        var testDescription: String { name }
    }

    /// A valid file job with `extra` spliced into its root object.
    static func job(_ extra: String = "", input: String = #""a.mp4""#, outputs: String = #"["o.flv"]"#) -> String {
        #"{"id": "h", "input": \#(input), "outputs": \#(outputs)\#(extra)}"#
    }

    static let long5000 = String(repeating: "x", count: 5000)

    static let cases: [Case] = [
        // The crash this suite is named after: Double → UInt64 when the input deadline was armed.
        Case(name: "timeout_s 1e20", json: job(input: #"{"url": "clip.mp4", "timeout_s": 1e20}"#),
             problems: ["input.timeout_s: must be from 0.1 to 3600 (seconds), got 1e+20"]),
        Case(name: "timeout_s 1e308", json: job(input: #"{"url": "a.mp4", "timeout_s": 1e308}"#),
             problems: ["input.timeout_s: must be from 0.1 to 3600 (seconds), got 1e+308"]),
        Case(name: "timeout_s negative", json: job(input: #"{"url": "a.mp4", "timeout_s": -1}"#),
             problems: ["input.timeout_s: must be from 0.1 to 3600 (seconds), got -1"]),
        Case(name: "timeout_s -0", json: job(input: #"{"url": "a.mp4", "timeout_s": -0}"#),
             problems: ["input.timeout_s: must be from 0.1 to 3600 (seconds), got -0"]),
        Case(name: "timeout_s too small", json: job(input: #"{"url": "a.mp4", "timeout_s": 1e-300}"#),
             problems: ["input.timeout_s: must be from 0.1 to 3600 (seconds), got 1e-300"]),
        Case(name: "timeout_s a string", json: job(input: #"{"url": "a.mp4", "timeout_s": "NaN"}"#),
             problems: ["input.timeout_s: must be a number, got a string"]),
        Case(name: "input.fps 1000", json: job(input: #"{"url": "a.h264", "fps": 1000}"#),
             problems: ["input.fps: must be from 1 to 240 (frames per second), got 1000"]),
        Case(name: "input.fps 0.001", json: job(input: #"{"url": "a.h264", "fps": 0.001}"#),
             problems: ["input.fps: must be from 1 to 240 (frames per second), got 0.001"]),
        Case(name: "max_duration_s 1e20", json: job(#", "max_duration_s": 1e20"#),
             problems: ["max_duration_s: must be from 0 to 2678400 (seconds), got 1e+20"]),
        Case(name: "max_duration_s -1e308", json: job(#", "max_duration_s": -1e308"#),
             problems: ["max_duration_s: must be from 0 to 2678400 (seconds), got -1e+308"]),
        Case(name: "priority fractional", json: job(#", "priority": 1.5"#),
             problems: ["priority: must be a whole number from 0 to 9, got 1.5"]),
        Case(name: "max_attempts 1e308", json: job(#", "max_attempts": 1e308"#),
             problems: ["max_attempts: must be a whole number from 1 to 100, got 1e+308"]),
        Case(name: "max_attempts a boolean", json: job(#", "max_attempts": true"#),
             problems: ["max_attempts: must be a whole number, got a boolean"]),
        Case(name: "video.bitrate_kbps fractional", json: job(#", "video": {"mode": "encode", "bitrate_kbps": 2500.5}"#),
             problems: ["video.bitrate_kbps: must be a whole number from 16 to 200000 (kbit/s), got 2500.5"]),
        Case(name: "video.width 1e19", json: job(#", "video": {"mode": "encode", "width": 1e19}"#),
             problems: ["video.width: must be a whole number from 16 to 8192 (pixels), got 1e+19"]),
        Case(name: "video.height odd", json: job(#", "video": {"mode": "encode", "height": 721}"#),
             problems: ["video.height: must be even, got 721"]),
        Case(name: "video.fps 0", json: job(#", "video": {"mode": "encode", "fps": 0}"#),
             problems: ["video.fps: must be from 1 to 240 (frames per second), got 0"]),
        Case(name: "video.gop_s 1e300", json: job(#", "video": {"mode": "encode", "gop_s": 1e300}"#),
             problems: ["video.gop_s: must be from 0.1 to 60 (seconds), got 1e+300"]),
        Case(name: "video.device too long", json: job(#", "video": {"mode": "encode", "device": "\#(long5000)"}"#),
             problems: ["video.device: must be at most 4096 characters, got 5000"]),
        Case(name: "video.profile too long is quoted short", json: job(#", "video": {"mode": "encode", "profile": "\#(long5000)"}"#),
             problems: [#"video.profile: must be one of baseline, constrained_baseline, main, high, got ""# + String(repeating: "x", count: 200) + #"…""#]),
        Case(name: "audio.sample_rate a string", json: job(#", "audio": {"mode": "encode", "sample_rate": "48000"}"#),
             problems: ["audio.sample_rate: must be a whole number, got a string"]),
        Case(name: "audio.channels negative", json: job(#", "audio": {"mode": "encode", "channels": -3}"#),
             problems: ["audio.channels: must be a whole number from 1 to 8, got -3"]),
        Case(name: "audio.bitrate_kbps huge", json: job(#", "audio": {"mode": "encode", "bitrate_kbps": 9007199254740993}"#),
             problems: ["audio.bitrate_kbps: must be a whole number from 8 to 1024 (kbit/s), got 9007199254740992"]),
        Case(name: "reconnect.attempts 1e10", json: job(#", "reconnect": {"attempts": 1e10}"#),
             problems: ["reconnect.attempts: must be a whole number from 0 to 10000, got 10000000000"]),
        Case(name: "reconnect.initial_delay_s tiny", json: job(#", "reconnect": {"initial_delay_s": 5e-324}"#),
             problems: ["reconnect.initial_delay_s: must be from 0.01 to 600 (seconds), got 5e-324"]),
        Case(name: "reconnect.max_delay_s 1e20", json: job(#", "reconnect": {"max_delay_s": 1e20}"#),
             problems: ["reconnect.max_delay_s: must be from 0.01 to 600 (seconds), got 1e+20"]),
        Case(name: "id with a line break", json: #"{"id": "job\n", "input": "a.mp4", "outputs": ["o.flv"]}"#,
             problems: [#"id: must match \#(JobSpec.idPattern), got "job\n""#]),
        Case(name: "id too long", json: #"{"id": "\#(String(repeating: "a", count: 129))", "input": "a.mp4", "outputs": ["o.flv"]}"#,
             problems: ["id: must be at most 128 characters, got 129"]),
        Case(name: "input URL string too long", json: job(input: #""\#(long5000)""#),
             problems: ["input: must be at most 4096 characters, got 5000"]),
        Case(name: "input.url too long", json: job(input: #"{"url": "\#(long5000)"}"#),
             problems: ["input.url: must be at most 4096 characters, got 5000"]),
        Case(name: "output URL string too long", json: job(outputs: #"["\#(long5000)"]"#),
             problems: ["outputs[0].url: must be at most 4096 characters, got 5000"]),
        Case(name: "output url in an object too long", json: job(outputs: #"["o.flv", {"url": "\#(long5000)"}]"#),
             problems: ["outputs[1].url: must be at most 4096 characters, got 5000"]),
        Case(name: "17 outputs", json: job(outputs: "[" + (0..<17).map { #""o\#($0).flv""# }.joined(separator: ",") + "]"),
             problems: ["outputs: must hold 1 to 16 outputs, got 17"]),
        Case(name: "input a number", json: job(input: "5"), problems: ["input: must be a URL string or an object, got a number"]),
        Case(name: "a track of a file input", json: job(input: #"{"url": "a.mp4", "video_track": 1}"#),
             problems: ["input.video_track: needs an RTMP input (rtmp:// or rtmps://): tracks are Enhanced RTMP multitrack ids"]),
        Case(name: "outputs an object", json: job(outputs: "{}"), problems: ["outputs: must be an array, got an object"]),
        Case(name: "video an array", json: job(#", "video": []"#), problems: ["video: must be an object, got an array"]),
        Case(name: "reconnect a string", json: job(#", "reconnect": "x""#), problems: ["reconnect: must be an object, got a string"]),
        Case(name: "unknown key inside input", json: job(input: #"{"url": "a.mp4", "extra": {"deep": [1, {"x": 2}]}}"#),
             problems: ["input.extra: unknown key"]),
        Case(name: "unknown key inside an output", json: job(outputs: #"["o.flv", {"url": "p.flv", "colour": "red"}]"#),
             problems: ["outputs[1].colour: unknown key"]),
        Case(name: "unknown key inside reconnect", json: job(#", "reconnect": {"tries": 3}"#), problems: ["reconnect.tries: unknown key"]),
        Case(name: "a very long unknown key is named short", json: job(#", "\#(long5000)": 1"#),
             problems: [String(repeating: "x", count: 200) + "…: unknown key"]),
        Case(name: "nesting 17 deep", json: job(#", "deep": "# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16)),
             problems: ["arrays and objects nest deeper than 16 levels"]),
        Case(name: "nesting 100 000 deep, unclosed", json: String(repeating: "[", count: 100_000),
             problems: ["arrays and objects nest deeper than 16 levels"]),
        Case(name: "a number past Double's range", json: job(#", "priority": 1e400"#), problems: ["<not JSON>"]),
        Case(name: "NaN is not JSON", json: job(#", "priority": NaN"#), problems: ["<not JSON>"]),
    ]

    @Test("refused with the field's path and the allowed range", arguments: cases)
    func refused(_ testCase: Case) {
        do {
            let spec = try JobSpec.parse(Data(testCase.json.utf8))
            Issue.record("accepted as \(spec.id)")
        } catch {
            if testCase.problems == ["<not JSON>"] {
                #expect(error.problems.count == 1 && error.problems[0].path == "" && error.problems[0].message.hasPrefix("not valid JSON"), "\(error)")
            } else {
                #expect(error.problems.map(\.description) == testCase.problems)
            }
        }
    }

    @Test("every number in the limits table is refused just outside its range and at ±1e308, and accepted at its bounds")
    func everyLimit() throws {
        for limit in JobLimits.numbers {
            for value in [limit.range.lowerBound, limit.range.upperBound] {
                let spec = try JobSpec.parse(Data(Self.document(setting: limit.path, to: JobLimits.format(value)).utf8))
                #expect(spec.id == "h", "\(limit.path) = \(value)")
            }
            let step = limit.isWhole ? (limit.isEven ? 2.0 : 1.0) : limit.range.lowerBound == 0 ? 0.001 : limit.range.lowerBound / 10
            for value in [limit.range.lowerBound - step, limit.range.upperBound + step, 1e308, -1e308] {
                // An output's number is named by the output's index.
                let named = limit.path.replacingOccurrences(of: "outputs[]", with: "outputs[0]")
                let expected = "\(named): must be \(limit.isWhole ? "a whole number " : "")\(limit.rangeText), got \(JobLimits.format(value))"
                do {
                    _ = try JobSpec.parse(Data(Self.document(setting: limit.path, to: String(value)).utf8))
                    Issue.record("\(limit.path) = \(value) accepted")
                } catch {
                    #expect(error.problems.map(\.description) == [expected])
                }
            }
        }
    }

    /// A valid job with the number at `path` (from the limits table) set to `value`.
    static func document(setting path: String, to value: String) -> String {
        let parts = path.split(separator: ".").map(String.init)
        switch parts.first {
        // Tracks are Enhanced RTMP multitrack ids: a live input's only.
        case "input" where parts[1].hasSuffix("_track"):
            return job(input: #"{"url": "rtmp://127.0.0.1/live/k", "\#(parts[1])": \#(value)}"#)
        case "input": return job(input: #"{"url": "a.h264", "\#(parts[1])": \#(value)}"#, outputs: #"["o.h264"]"#)
        case "video": return job(#", "video": {"mode": "encode", "\#(parts[1])": \#(value)}"#)
        case "audio": return job(#", "audio": {"mode": "encode", "\#(parts[1])": \#(value)}"#)
        case "reconnect" where parts[1] == "initial_delay_s":
            // max_delay_s must stay at least initial_delay_s.
            return job(#", "reconnect": {"initial_delay_s": \#(value), "max_delay_s": 600}"#)
        case "reconnect" where parts[1] == "max_delay_s":
            return job(#", "reconnect": {"initial_delay_s": 0.01, "max_delay_s": \#(value)}"#)
        case "reconnect": return job(#", "reconnect": {"\#(parts[1])": \#(value)}"#)
        // A slate fills the gaps of a live input only.
        case "fallback": return job(#", "fallback": {"\#(parts[1])": \#(value)}"#, input: #""rtmp://127.0.0.1/live/k""#)
        // Parts are for the HLS of a live input.
        case "outputs[]" where parts[1] == "part_s":
            return job(input: #""rtmp://127.0.0.1/live/k""#, outputs: #"[{"url": "o.m3u8", "part_s": \#(value)}]"#)
        // A window belongs to HLS outputs; segment_s's full range and retain to recordings in segments.
        case "outputs[]" where parts[1] == "window": return job(outputs: #"[{"url": "o.m3u8", "window": \#(value)}]"#)
        case "outputs[]" where parts[1] == "segment_s": return job(outputs: #"[{"url": "o.mp4", "segment_s": \#(value)}]"#)
        case "outputs[]": return job(outputs: #"[{"url": "o.mp4", "segment_s": 60, "\#(parts[1])": \#(value)}]"#)
        default: return job(#", "\#(path)": \#(value)"#)
        }
    }

    @Test("-0 is taken as 0 where 0 is allowed")
    func negativeZero() throws {
        let spec = try JobSpec.parse(Data(Self.job(#", "max_duration_s": -0, "priority": -0"#).utf8))
        #expect(spec.maxDurationSeconds == 0 && spec.maxDurationSeconds.sign == .plus && spec.priority == 0)
    }

    @Test("a 100 MB document is refused by its size before parsing")
    func hugeDocument() {
        var bytes = Data(Self.job(#", "pad": ""#).utf8)
        bytes.append(Data(repeating: UInt8(ascii: " "), count: 100_000_000))
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: JobSpecError(id: nil, problems: [SpecProblem(path: "", message: "the document is \(bytes.count) bytes; at most 1048576 are allowed")])) {
            try JobSpec.parse(bytes)
        }
        // The size check looks at the count only; parsing 100 MB would take seconds.
        #expect(clock.now - started < .seconds(1))
    }

    @Test("brackets inside strings, escaped quotes included, do not count as nesting")
    func bracketsInStrings() throws {
        let brackets = String(repeating: "[", count: 40) + String(repeating: "{", count: 40)
        let spec = try JobSpec.parse(Data(Self.job(outputs: #"["a\"\#(brackets).flv", "b\\\#(brackets).flv"]"#).utf8))
        #expect(spec.outputs.map(\.url) == ["a\"\(brackets).flv", "b\\\(brackets).flv"])
    }

    @Test("the depth scan counts levels as JSON does", arguments: [(16, true), (17, false)])
    func depthBoundary(_ depth: Int, _ accepted: Bool) {
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect((DocumentShape.problem(in: Array(text.utf8)) == nil) == accepted)
    }

    @Test("a repeated key is refused, by its path, even when escapes disguise it", arguments: [
        (#"{"id": "h", "input": "a.mp4", "outputs": ["o.flv"], "priority": 1, "priority": 1e20}"#, "priority"),
        (#"{"id": "h", "input": "a.mp4", "outputs": ["o.flv"], "priority": 1, "\u0070riority": 2}"#, "priority"),
        (#"{"id": "h", "input": "a.mp4", "outputs": ["o.flv", {"url": "a.flv", "url": "b.flv"}]}"#, "outputs[1].url"),
        (#"{"id": "h", "input": {"url": "a.mp4", "x": {"k": [1, {"z": 1, "z": 2}]}}, "outputs": ["o.flv"]}"#, "input.x.k[1].z"),
    ])
    func duplicateKeys(_ text: String, _ path: String) {
        #expect(throws: JobSpecError(id: nil, problems: [SpecProblem(path: path, message: "appears more than once in its object")])) {
            try JobSpec.parse(Data(text.utf8))
        }
    }

    @Test("the same key in different objects is no repeat")
    func sameKeyElsewhere() throws {
        let spec = try JobSpec.parse(Data(#"{"id": "h", "input": {"url": "a.mp4"}, "outputs": [{"url": "o.flv"}, {"url": "p.flv", "format": "flv"}]}"#.utf8))
        #expect(spec.outputs.count == 2)
    }

    // MARK: - Generated documents

    /// Values that have crashed or confused parsers and converters.
    static let hostileValues: [String] = [
        "1e20", "1e308", "-1e308", "5e-324", "-0", "0", "-1", "0.5", "1.5", "9007199254740993", "18446744073709551616",
        "\"\"", "\"x\"", "\"\(String(repeating: "y", count: 5000))\"", "true", "false", "null", "[]", "{}", "[[[[[[[[]]]]]]]]",
        "{\"a\":{\"b\":{\"c\":1}}}", "\"rtmp://u:p@h/app/KEY\"", "\"ftp://h/x\"", "\"file:///etc/passwd\"", "\"../../x.flv\"",
    ]

    static let keys = ["id", "input", "url", "listen", "timeout_s", "fps", "realtime", "video", "audio", "mode", "encoder", "device",
                       "bitrate_kbps", "width", "height", "gop_s", "profile", "sample_rate", "channels", "outputs", "format",
                       "max_duration_s", "priority", "max_attempts", "reconnect", "attempts", "initial_delay_s", "max_delay_s", "x"]

    static let base = #"{"id": "g", "input": {"url": "rtmp://h/live/k", "timeout_s": 5, "fps": 25}, "video": {"mode": "encode", "bitrate_kbps": 2500, "width": 1280, "height": 720, "fps": 30, "gop_s": 2}, "audio": {"mode": "encode", "bitrate_kbps": 128, "sample_rate": 48000, "channels": 2}, "outputs": ["o.flv", {"url": "o.aac"}, "rtmp://a/live/KEY"], "max_duration_s": 60, "priority": 5, "max_attempts": 3, "reconnect": {"attempts": 3, "initial_delay_s": 0.5, "max_delay_s": 5}}"#

    /// Replaces one value after a key, inserts a key, or damages bytes of the base document.
    static func mutate(_ text: String, using random: inout SeededGenerator) -> [UInt8] {
        var bytes = Array(text.utf8)
        switch Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            // A hostile value in place of the value that follows a known key.
            let key = Array("\"\(keys.randomElement(using: &random) ?? "id")\": ".utf8)
            guard let start = bytes.firstRange(of: key)?.upperBound, start < bytes.count else { return bytes }
            let end = valueEnd(bytes, from: start)
            bytes.replaceSubrange(start..<end, with: Array((hostileValues.randomElement(using: &random) ?? "0").utf8))
        case 2:
            // A key, known or not, with a hostile value, inside a random object.
            let objects = bytes.indices.filter { bytes[$0] == UInt8(ascii: "{") }
            let at = (objects.randomElement(using: &random) ?? 0) + 1
            let entry = "\"\(keys.randomElement(using: &random) ?? "x")\": \(hostileValues.randomElement(using: &random) ?? "0"), "
            bytes.insert(contentsOf: Array(entry.utf8), at: at)
        default:
            // Byte damage: JSON that may no longer parse.
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: at)
                default: bytes.insert(Array("[{\"},:9e-".utf8).randomElement(using: &random) ?? UInt8(ascii: "["), at: at)
                }
            }
        }
        return bytes
    }

    /// Where the JSON value starting at `start` ends: after its closing quote or bracket, or at the next `,`, `}` or `]`.
    static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        var depth = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                depth += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") {
                if depth == 0 { return index - 1 }
                if byte != UInt8(ascii: ",") { depth -= 1 }
            }
            if depth == 0 && !inString && index - 1 > start && (bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "[") || bytes[start] == UInt8(ascii: "{")) {
                return index
            }
        }
        return min(index, bytes.count)
    }

    @Test("500 mutated documents: each parses to a spec within every limit, or is refused with named problems")
    func sweep() {
        var random = SeededGenerator(seed: 0x5_1_0_1CE)
        var accepted = 0
        var refused = 0
        for round in 0..<500 {
            var text = Self.base
            // Up to three mutations in a row, so values combine.
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes = Self.mutate(text, using: &random)
                text = String(decoding: bytes, as: UTF8.self)
            }
            do {
                let spec = try JobSpec.parse(Data(bytes))
                accepted += 1
                Self.checkWithinLimits(spec, round: round)
            } catch {
                refused += 1
                #expect(!error.problems.isEmpty, "round \(round)")
                #expect(error.problems.allSatisfy { !$0.message.isEmpty && $0.description.unicodeScalars.count < 600 }, "round \(round): \(error)")
            }
        }
        // Both outcomes occur, so the sweep exercises the validator and not only the JSON parser.
        #expect(accepted > 20 && refused > 200, "accepted \(accepted), refused \(refused)")
    }

    static func checkWithinLimits(_ spec: JobSpec, round: Int) {
        func within(_ value: Double?, _ limit: NumberLimit) {
            guard let value else { return }
            #expect(value.isFinite && limit.range.contains(value), "round \(round): \(limit.path) = \(value)")
        }
        within(spec.input.timeoutSeconds, JobLimits.inputTimeout)
        within(spec.input.fps, JobLimits.inputFPS)
        within(spec.maxDurationSeconds, JobLimits.maxDuration)
        within(spec.video.bitrateKbps.map(Double.init), JobLimits.videoBitrate)
        within(spec.video.width.map(Double.init), JobLimits.width)
        within(spec.video.height.map(Double.init), JobLimits.height)
        within(spec.video.fps, JobLimits.videoFPS)
        within(spec.video.gopSeconds, JobLimits.gop)
        within(spec.audio.bitrateKbps.map(Double.init), JobLimits.audioBitrate)
        within(spec.audio.sampleRate.map(Double.init), JobLimits.sampleRate)
        within(spec.audio.channels.map(Double.init), JobLimits.channels)
        within(Double(spec.priority), JobLimits.priority)
        within(Double(spec.maxAttempts), JobLimits.maxAttempts)
        within(Double(spec.reconnect.attempts), JobLimits.reconnectAttempts)
        within(spec.reconnect.initialDelaySeconds, JobLimits.reconnectInitialDelay)
        within(spec.reconnect.maxDelaySeconds, JobLimits.reconnectMaxDelay)
        #expect(JobLimits.outputs.contains(spec.outputs.count), "round \(round)")
        #expect(spec.id.unicodeScalars.count <= JobLimits.id.maxLength && spec.input.url.unicodeScalars.count <= JobLimits.inputURL.maxLength)
        #expect(spec.outputs.allSatisfy { $0.url.unicodeScalars.count <= JobLimits.outputURL.maxLength }, "round \(round)")
    }
}
