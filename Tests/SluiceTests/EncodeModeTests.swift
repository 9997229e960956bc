import Foundation
import JobStore
import Testing
@testable import MediaEngine
@testable import Sluice
import MediaJob
import JobDocument

/// Encode mode (docs/ARCHITECTURE.md §3): real encodes of short lavfi clips, with ffprobe/ffmpeg as referees
/// for size, profile, GOP, frame rate, audio format, A/V duration and bitrate.
@Suite("Encode mode", .serialized)
struct EncodeModeTests {
    /// A render node that exists nowhere, so the VAAPI tests behave the same on a machine with a GPU.
    static let absentDevice = "/dev/dri/sluice-test-absent"

    static func job(_ id: String, input: String, video: [String: JSONValue]?, audio: [String: JSONValue]?, outputs: [String]) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(id), "input": .string(input), "outputs": .array(outputs.map { .string($0) })]
        if let video { object["video"] = .object(video) }
        if let audio { object["audio"] = .object(audio) }
        return .object(object)
    }

    /// Duration of a stream as a player sees it: from its first frame's start to its last frame's end.
    static func span(_ frames: [Probe.Frame], lastDuration: Double) -> Double {
        guard let first = frames.first, let last = frames.last else { return 0 }
        return last.time + lastDuration - first.time
    }

    @Test("size, profile, GOP, frame rate, audio rate and channels, A/V durations")
    func settingsAreHonoured() throws {
        let harness = try JobHarness("encode")
        let input = try Fixtures.mp4BFrames()  // 320x240, 30 fps, 3 s, AAC 48 kHz stereo
        let outcome = try harness.run(Self.job("enc-1", input: input,
            video: ["mode": .string("encode"), "encoder": .string("software"), "width": .number(160), "fps": .number(24), "gop_s": .number(0.5),
                    "profile": .string("baseline"), "bitrate_kbps": .number(200)],
            audio: ["mode": .string("encode"), "sample_rate": .number(44100), "channels": .number(1), "bitrate_kbps": .number(64)],
            outputs: [harness.path("o.flv"), harness.path("o.h264"), harness.path("o.aac")]))
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        try FLVChecks.validate(harness.path("o.flv"))

        for path in [harness.path("o.flv"), harness.path("o.h264")] {
            let video = try #require(try Probe.streams(path, "v").first)
            #expect(video.codec == "h264")
            #expect(video.width == 160 && video.height == 120, "width only keeps 4:3 (\(path))")
            #expect(video.profile == "Constrained Baseline", "\(path)")
            #expect(try Probe.decodeErrors(path).isEmpty, "\(path) decodes with errors")
        }
        for path in [harness.path("o.flv"), harness.path("o.aac")] {
            let audio = try #require(try Probe.streams(path, "a").first)
            #expect(audio.codec == "aac" && audio.profile == "LC")
            #expect(audio.sampleRate == 44100 && audio.channels == 1, "\(path)")
        }

        let frames = try Probe.frames(harness.path("o.flv"), "v")
        // 3 s at 24 fps.
        #expect(abs(frames.count - 72) <= 1, "\(frames.count) frames")
        #expect(result.progress.videoFrames == frames.count)
        let steps = zip(frames, frames.dropFirst()).map { $1.time - $0.time }
        // FLV keeps milliseconds: 1/24 s is 41 or 42 ms.
        #expect(steps.allSatisfy { abs($0 - 1.0 / 24) <= 0.001 }, "frame steps \(Set(steps))")
        let keyframes = frames.indices.filter { frames[$0].isKeyframe }
        #expect(keyframes == Array(stride(from: 0, to: frames.count, by: 12)), "keyframes at \(keyframes), want every 12th (0.5 s)")

        let audio = try Probe.frames(harness.path("o.flv"), "a")
        let videoSpan = Self.span(frames, lastDuration: 1.0 / 24)
        let audioSpan = Self.span(audio, lastDuration: Double(audio.last?.samples ?? 1024) / 44100)
        #expect(abs(videoSpan - 3) < 0.05, "video lasts \(videoSpan) s")
        #expect(abs(videoSpan - audioSpan) <= 0.05, "video \(videoSpan) s, audio \(audioSpan) s")

        let job = try #require(try harness.store.job(id: "enc-1"))
        #expect(job.state == .succeeded)
        #expect(job.encoder == "libx264")
        #expect(try harness.store.events(jobID: "enc-1").allSatisfy { $0.kind != .encoderFallback })
    }

    @Test("copy video + encode audio: 5.1 is downmixed to stereo, video stays bit-exact")
    func surroundDownmixWithCopiedVideo() throws {
        let harness = try JobHarness("downmix")
        let input = try Fixtures.surround()
        #expect(try Probe.streams(input, "a").first?.channels == 6)
        let outcome = try harness.run(Self.job("mix", input: input, video: nil,
            audio: ["mode": .string("encode"), "channels": .number(2)],
            outputs: [harness.path("o.flv"), harness.path("o.aac")]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        for path in [harness.path("o.flv"), harness.path("o.aac")] {
            let audio = try #require(try Probe.streams(path, "a").first)
            #expect(audio.channels == 2 && audio.channelLayout == "stereo", "\(path)")
            #expect(audio.sampleRate == 48000, "the input's rate is kept")
        }
        #expect(try FrameHashes.of(harness.path("o.flv"), .video) == FrameHashes.of(input, .video))
        let volume = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", harness.path("o.aac"), "-af", "volumedetect", "-f", "null", "-"]).stderr
        #expect(!volume.contains("mean_volume: -91"), "the downmix is silent")
        let video = try Probe.frames(harness.path("o.flv"), "v")
        let audio = try Probe.frames(harness.path("o.flv"), "a")
        #expect(abs(Self.span(video, lastDuration: 1.0 / 30) - Self.span(audio, lastDuration: 1024.0 / 48000)) <= 0.05)
        try FLVChecks.validate(harness.path("o.flv"))
        #expect(try harness.store.job(id: "mix")?.encoder == nil, "no video encoder was used")
    }

    @Test("MPEG-2 video + MP3 audio, which copy mode refuses, become H.264 + AAC in FLV")
    func mpeg2AndMP3() throws {
        let harness = try JobHarness("mpeg2")
        let input = try Fixtures.make("mpeg2-mp3.ts", Fixtures.video(rate: 25) + Fixtures.audio(rate: 44100)
            + ["-t", "2", "-c:v", "mpeg2video", "-c:a", "libmp3lame", "-shortest", "-f", "mpegts"])
        let outcome = try harness.run(Self.job("mp2", input: input,
            video: ["mode": .string("encode"), "encoder": .string("software")], audio: ["mode": .string("encode")], outputs: [harness.path("o.flv")]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        let video = try #require(try Probe.streams(harness.path("o.flv"), "v").first)
        let audio = try #require(try Probe.streams(harness.path("o.flv"), "a").first)
        #expect(video.codec == "h264" && video.width == 320 && video.height == 240)
        #expect(audio.codec == "aac" && audio.sampleRate == 44100)
        #expect(try Probe.decodeErrors(harness.path("o.flv")).isEmpty)
        // Input frame rate kept: 2 s at 25 fps.
        #expect(abs(try Probe.frames(harness.path("o.flv"), "v").count - 50) <= 1)
        try FLVChecks.validate(harness.path("o.flv"))
    }

    @Test("bitrate within 20 % of the target on a 10 s clip")
    func bitrate() throws {
        let harness = try JobHarness("bitrate")
        let input = try Fixtures.make("bitrate-10s.ts", Fixtures.video()
            + ["-t", "10", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10", "-f", "mpegts"])
        let outcome = try harness.run(Self.job("rate", input: input,
            video: ["mode": .string("encode"), "encoder": .string("software"), "bitrate_kbps": .number(300)], audio: ["mode": .string("drop")],
            outputs: [harness.path("o.h264")]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: harness.path("o.h264"))[.size] as? Int)
        let kbps = Double(size) * 8 / 10 / 1000
        #expect(abs(kbps - 300) <= 60, "\(kbps) kb/s for a 300 kb/s target")
    }

    @Test("encoder vaapi without a device fails with the device named")
    func vaapiWithoutDevice() throws {
        let harness = try JobHarness("vaapi")
        let outcome = try harness.run(Self.job("va", input: try Fixtures.mp4BFrames(),
            video: ["mode": .string("encode"), "encoder": .string("vaapi"), "device": .string(Self.absentDevice)], audio: nil,
            outputs: [harness.path("o.flv")]))
        let message = try #require(outcome.failureMessage, "expected failure, got \(outcome)")
        #expect(message.contains("VAAPI device \(Self.absentDevice) is not usable"), "message: \(message)")
        #expect(message.contains("av_hwdevice_ctx_create"), "message: \(message)")
        #expect(try harness.store.job(id: "va")?.error == message)
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.folder).filter { $0.hasPrefix("o.") }.isEmpty)
    }

    @Test("encoder auto falls back to libx264, recorded in the job row and a job.encoder_fallback event")
    func autoFallsBack() throws {
        let harness = try JobHarness("auto")
        let outcome = try harness.run(Self.job("auto", input: try Fixtures.mp4BFrames(),
            video: ["mode": .string("encode"), "encoder": .string("auto"), "device": .string(Self.absentDevice), "width": .number(160)], audio: nil,
            outputs: [harness.path("o.flv")]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        #expect(try Probe.streams(harness.path("o.flv"), "v").first?.codec == "h264")
        let job = try #require(try harness.store.job(id: "auto"))
        #expect(job.encoder == "libx264")
        let fallback = try #require(try harness.store.events(jobID: "auto").first { $0.kind == .encoderFallback })
        #expect(fallback.message?.contains(Self.absentDevice) == true, "event: \(String(describing: fallback.message))")
    }
}

/// An encoder that writes no extradata: the avcC is built from the first IDR's SPS/PPS (docs/ARCHITECTURE.md §3).
@Suite("Encode mode, in-band parameter sets")
struct InBandParameterSetTests {
    @Test("without extradata the first IDR's SPS/PPS become the FLV sequence header and the .h264's")
    func avccFromFirstIDR() throws {
        let harness = try JobHarness("inband")
        var settings = VideoEncodeSettings()
        settings.encoder = .software
        settings.globalHeader = false
        var options = MediaJobOptions(inputURL: try Fixtures.mp4BFrames(), inputName: "bframes.mp4")
        options.video = .encode(settings)
        options.audio = .drop
        options.outputs = [OutputDescription(target: .file(path: harness.path("o.flv")), kind: .flv, name: "o.flv"),
                           OutputDescription(target: .file(path: harness.path("o.h264")), kind: .annexB, name: "o.h264")]
        let result = try CodecJob(options: options).run()
        #expect(result.progress.videoFrames == 90)
        let summary = try FLVChecks.validate(harness.path("o.flv"))
        #expect(summary.videoSequenceHeaders == 1)
        #expect(summary.videoTags == 90)
        for path in [harness.path("o.flv"), harness.path("o.h264")] {
            #expect(try Probe.decodeErrors(path).isEmpty, "\(path) decodes with errors")
            #expect(try Probe.frameCount(path, "v") == 90, "\(path)")
        }
    }
}
