import Foundation
import Testing

/// MPEG-TS files whose clock restarts (`cat a.ts b.ts`, a restarted source) or wraps at 2^33 ticks of
/// 90 kHz: `sluice run` splices them onto one continuous timeline. The referee is ffmpeg: every decoded
/// video frame of every part, in order; every decoded audio frame of the joined file; presentation
/// times strictly increasing; the media duration the parts add up to; A/V offset kept at each splice.
@Suite("Timestamp discontinuities and wraps in files", .serialized)
struct TimestampDiscontinuityTests {
    /// 2^33 ticks at 90 kHz, in seconds: where MPEG-TS timestamps wrap.
    static let wrapSeconds = Double(1 << 33) / 90_000

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// Fixture file names, joined byte for byte in this order.
        let parts: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "two recordings concatenated (clock restarts)", parts: ["disc-a.ts", "disc-b.ts"]),
        Case(name: "one recording across the 33-bit wrap", parts: ["disc-wrap.ts"]),
        Case(name: "a recording, then one that starts 2 s before the wrap (jump ahead, then wrap)", parts: ["disc-a.ts", "disc-late.ts"]),
    ]

    /// H.264 with B-frames and AAC in MPEG-TS; `offset` seconds added to every timestamp by the muxer,
    /// which writes them modulo 2^33.
    static func part(_ name: String) throws -> String {
        let seconds: Double
        let offset: Double
        switch name {
        case "disc-a.ts": (seconds, offset) = (3, 0)
        case "disc-b.ts": (seconds, offset) = (2.5, 0)
        // Starts 3.7 s before the wrap, so the wrap falls mid-file.
        case "disc-wrap.ts": (seconds, offset) = (6, (wrapSeconds - 3.7).rounded(.down))
        default: (seconds, offset) = (4, (wrapSeconds - 2).rounded(.down))
        }
        return try Fixtures.make(name, Fixtures.video() + Fixtures.audio() + ["-t", String(seconds)] + Fixtures.x264
            + ["-bf", "2", "-c:a", "aac", "-shortest", "-f", "mpegts", "-output_ts_offset", String(offset)])
    }

    static func joined(_ parts: [String]) throws -> String {
        let path = (Fixtures.directory as NSString).appendingPathComponent(parts.joined(separator: "+"))
        var bytes = Data()
        for name in parts { bytes.append(try Data(contentsOf: URL(fileURLWithPath: try part(name)))) }
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Frame {
        var seconds: Double
        var hash: String
    }

    /// Every decoded frame of the first stream of `kind` (`v`/`a`) with its presentation time, from framemd5.
    static func frames(_ path: String, _ kind: String) throws -> [Frame] {
        let sync = kind == "v" ? ["-fps_mode", "passthrough"] : []
        let text = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", path, "-map", "0:\(kind):0"]
            + sync + ["-f", "framemd5", "-"]).text
        var timeBase = 1.0
        var frames: [Frame] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#tb 0:") {
                let fraction = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/")
                if fraction.count == 2, let num = Double(fraction[0]), let den = Double(fraction[1]) { timeBase = num / den }
                continue
            }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, let pts = Double(fields[2]) else { continue }
            frames.append(Frame(seconds: pts * timeBase, hash: fields[5]))
        }
        return frames
    }

    /// The raw 33-bit PTS values of a file's video, as ffprobe reports them (libavformat shows the part
    /// before a wrap it unwrapped as negative).
    static func videoPTS(_ path: String) throws -> [Int64] {
        let text = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts", "-of", "csv=p=0", path]).text
        return text.split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
    }

    @Test("spliced onto one timeline, frame-exact, in presentation order, A/V kept", arguments: cases)
    func spliced(_ testCase: Case) throws {
        let paths = try testCase.parts.map(Self.part)
        let input = testCase.parts.count == 1 ? paths[0] : try Self.joined(testCase.parts)
        if testCase.parts.last != "disc-b.ts" {
            // The fixture really crosses 2^33: its last part's timestamps run from before the wrap to after it.
            let pts = try Self.videoPTS(paths[paths.count - 1])
            #expect(pts.contains { $0 < 0 } && pts.contains { $0 > 0 }, "the fixture does not wrap")
        }
        let folder = Fixtures.scratch("discontinuity")
        let output = folder + "/out.flv"
        let job = folder + "/job.json"
        try #"{"id": "disc", "input": "\#(input)", "outputs": ["\#(output)"]}"#.write(toFile: job, atomically: true, encoding: .utf8)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", folder + "/jobs.sqlite", job], check: false)
        #expect(run.status == 0, "sluice run failed: \(run.stderr)")

        let partVideo = try paths.map { try Self.frames($0, "v") }
        let partAudio = try paths.map { try Self.frames($0, "a") }
        let video = try Self.frames(output, "v")
        let audio = try Self.frames(output, "a")
        #expect(video.map(\.hash) == partVideo.flatMap { $0.map(\.hash) }, "decoded video differs from the parts'")
        // AAC decoding carries state (overlap, noise substitution) across frames: the joined file, decoded
        // in one go, is the referee for audio.
        #expect(audio.map(\.hash) == (try Self.frames(input, "a")).map(\.hash), "decoded audio differs from the input's")
        #expect(audio.count == partAudio.reduce(0) { $0 + $1.count })

        // Presentation order is kept and the timeline is as long as the parts together.
        let backwards = zip(video, video.dropFirst()).first { pair in pair.1.seconds <= pair.0.seconds }
        #expect(backwards == nil, "video presentation goes from \(backwards?.0.seconds ?? 0) to \(backwards?.1.seconds ?? 0) s")
        let expectedDuration = partVideo.reduce(0) { $0 + ($1.last?.seconds ?? 0) - ($1.first?.seconds ?? 0) + 1.0 / 30 }
        let duration = (video.last?.seconds ?? 0) - (video.first?.seconds ?? 0) + 1.0 / 30
        #expect(abs(duration - expectedDuration) < 0.3, "output video lasts \(duration) s, the parts \(expectedDuration) s")

        // At each splice, the first video frame keeps its distance to the first audio frame of its part.
        var videoIndex = 0
        var audioIndex = 0
        for (partVideoFrames, partAudioFrames) in zip(partVideo, partAudio) {
            guard let v = partVideoFrames.first, let a = partAudioFrames.first, videoIndex < video.count, audioIndex < audio.count else { break }
            let inputOffset = v.seconds - a.seconds
            let outputOffset = video[videoIndex].seconds - audio[audioIndex].seconds
            #expect(abs(outputOffset - inputOffset) <= 0.05, "A/V at part start moved from \(inputOffset) to \(outputOffset) s")
            videoIndex += partVideoFrames.count
            audioIndex += partAudioFrames.count
        }
        try FLVChecks.validate(output)
    }

    @Test("encode mode: the decoders see the spliced timeline, so the second recording is encoded too")
    func encodeSpliced() throws {
        let input = try Self.joined(["disc-a.ts", "disc-b.ts"])
        let folder = Fixtures.scratch("discontinuity-encode")
        let output = folder + "/enc.flv"
        let job = folder + "/job.json"
        try #"""
            {"id": "disc-enc", "input": "\#(input)", "video": {"mode": "encode", "encoder": "software", "bitrate_kbps": 400},
             "audio": {"mode": "encode", "bitrate_kbps": 96}, "outputs": ["\#(output)"]}
            """#.write(toFile: job, atomically: true, encoding: .utf8)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", folder + "/jobs.sqlite", job], check: false)
        #expect(run.status == 0, "sluice run failed: \(run.stderr)")
        let inputFrames = try ["disc-a.ts", "disc-b.ts"].map { try Self.frames(try Self.part($0), "v").count }.reduce(0, +)
        let video = try Self.frames(output, "v")
        let audio = try Self.frames(output, "a")
        // Constant frame rate: the splice may add a frame or two where the parts meet, never lose a part.
        #expect(video.count >= inputFrames && video.count <= inputFrames + 4, "\(video.count) frames for \(inputFrames) in")
        let backwards = zip(video, video.dropFirst()).first { pair in pair.1.seconds <= pair.0.seconds }
        #expect(backwards == nil, "video presentation goes back at \(backwards?.1.seconds ?? 0) s")
        let videoEnd = (video.last?.seconds ?? 0) + 1.0 / 30
        let audioEnd = (audio.last?.seconds ?? 0) + 1024.0 / 48_000
        #expect(abs(videoEnd - audioEnd) <= 0.05, "video ends at \(videoEnd) s, audio at \(audioEnd) s")
    }
}
