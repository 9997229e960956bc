import Foundation
import JobStore
import SluiceTestSupport
import Testing
@testable import Sluice

/// Per-output renditions: one decode, an encoder per distinct setting, copy beside them.
@Suite("Per-output renditions", .serialized)
struct RenditionTests {
    @Test("a file ladder: the copy is bit-exact, each rung has its own size, outputs with equal settings agree")
    func fileLadder() throws {
        let harness = try JobHarness("ladder")
        let input = try Fixtures.mp4BFrames()  // 320x240, 30 fps, 3 s, AAC 48 kHz stereo
        let rung180 = #"{"mode": "encode", "encoder": "software", "height": 180, "bitrate_kbps": 300, "gop_s": 1}"#
        let rung120 = #"{"mode": "encode", "encoder": "software", "height": 120, "bitrate_kbps": 150, "gop_s": 1}"#
        let outcome = try harness.run(json: """
            {"id": "ladder", "input": "\(input)",
             "outputs": [
               "\(harness.path("copy.flv"))",
               {"url": "\(harness.path("180.flv"))", "video": \(rung180)},
               {"url": "\(harness.path("120.flv"))", "video": \(rung120), "audio": {"mode": "encode", "bitrate_kbps": 64, "channels": 1}},
               {"url": "\(harness.path("120.h264"))", "video": \(rung120)},
               "\(harness.path("copy.aac"))"]}
            """)
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        // Copy is lossless beside the encoders.
        #expect(try FrameHashes.of(harness.path("copy.flv"), .video) == FrameHashes.of(input, .video))
        #expect(try FrameHashes.of(harness.path("copy.flv"), .audio) == FrameHashes.of(input, .audio))
        #expect(try FrameHashes.of(harness.path("copy.aac"), .audio) == FrameHashes.of(input, .audio))
        // Each rung at its own size, 90 frames, no decode errors; 4:3 kept.
        for (file, width, height) in [("180.flv", 240, 180), ("120.flv", 160, 120), ("120.h264", 160, 120)] {
            let video = try #require(try Probe.streams(harness.path(file), "v").first, "\(file) has no video")
            #expect(video.codec == "h264" && video.width == width && video.height == height, "\(file): \(video)")
            #expect(try Probe.decodeErrors(harness.path(file)).isEmpty, "\(file) decodes with errors")
            #expect(abs(try Probe.frameCount(harness.path(file), "v") - 90) <= 1, "\(file)")
        }
        // The 120p FLV and .h264 take one encoder: the same pictures.
        #expect(try FrameHashes.of(harness.path("120.flv"), .video) == FrameHashes.of(harness.path("120.h264"), .video))
        // The 180p rung keeps the job's audio (copy); the 120p rung has its own (mono AAC).
        #expect(try FrameHashes.of(harness.path("180.flv"), .audio) == FrameHashes.of(input, .audio))
        let mono = try #require(try Probe.streams(harness.path("120.flv"), "a").first)
        #expect(mono.codec == "aac" && mono.channels == 1)
        // Audio and video of the encoded rung stay together.
        let video = try Probe.frames(harness.path("120.flv"), "v")
        let audio = try Probe.frames(harness.path("120.flv"), "a")
        let videoSpan = EncodeModeTests.span(video, lastDuration: 1.0 / 30)
        let audioSpan = EncodeModeTests.span(audio, lastDuration: 1024.0 / 48000)
        #expect(abs(videoSpan - audioSpan) <= 0.05, "video \(videoSpan) s, audio \(audioSpan) s")
        for file in ["copy.flv", "180.flv", "120.flv"] { try FLVChecks.validate(harness.path(file)) }
        // Progress counts the frames of one rendition, not of all of them.
        #expect(result.progress.videoFrames == 90)
        let rows = try harness.store.outputs(jobID: "ladder")
        #expect(rows.count == 5 && rows.allSatisfy { $0.state == .succeeded && $0.bytes > 0 }, "\(rows)")
        #expect(try harness.store.job(id: "ladder")?.encoder == "libx264")
    }

    @Test("a job that drops video still encodes it for the one output that asks; the others get audio only")
    func outputBringsVideoBack() throws {
        let harness = try JobHarness("bring-back")
        let input = try Fixtures.mp4BFrames()
        let outcome = try harness.run(json: """
            {"id": "bring-back", "input": "\(input)", "video": {"mode": "drop"},
             "outputs": ["\(harness.path("audio.flv"))",
                         {"url": "\(harness.path("small.flv"))", "video": {"mode": "encode", "encoder": "software", "height": 120}}]}
            """)
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        #expect(try Probe.streams(harness.path("audio.flv"), "v").isEmpty)
        #expect(try FrameHashes.of(harness.path("audio.flv"), .audio) == FrameHashes.of(input, .audio))
        #expect(try Probe.streams(harness.path("small.flv"), "v").first?.height == 120)
    }

    @Test("a copy rung of video copy cannot carry refuses by name, even beside encoded rungs")
    func copyRungOfUncopyableVideo() throws {
        let harness = try JobHarness("rung-refused")
        let input = try Fixtures.make("mpeg2-rung.ts", Fixtures.video(rate: 25) + Fixtures.audio(rate: 44100)
            + ["-t", "1", "-c:v", "mpeg2video", "-c:a", "aac", "-shortest", "-f", "mpegts"])
        let outcome = try harness.run(json: """
            {"id": "rung-refused", "input": "\(input)",
             "outputs": ["\(harness.path("copy.flv"))",
                         {"url": "\(harness.path("enc.flv"))", "video": {"mode": "encode", "encoder": "software"}}]}
            """)
        let failure = try #require(outcome.failureMessage, "job: \(outcome)")
        #expect(failure.contains("is mpeg2video: not supported in copy mode"), "\(failure)")
        #expect(!FileManager.default.fileExists(atPath: harness.path("enc.flv")))
    }
}
