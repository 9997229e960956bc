import Foundation
import JobStore
import MediaFormats
import SluiceTestSupport
import Testing
@testable import Sluice

extension Fixtures {
    /// HEVC (libx265, 3 B-frames, a keyframe a second, tagged hvc1) and AAC in MP4, made by Debian's ffmpeg.
    static func hevcMP4() throws -> String {
        try make("hevc.mp4", video() + audio() + ["-t", "2", "-c:v", "libx265", "-preset", "veryfast", "-tag:v", "hvc1",
                                                   "-x265-params", "keyint=30:min-keyint=30:bframes=3:log-level=error",
                                                   "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
    }

    /// HEVC in Matroska (hvcC in CodecPrivate), no audio.
    static func hevcMKV() throws -> String {
        try make("hevc.mkv", video() + ["-t", "2", "-c:v", "libx265", "-preset", "veryfast",
                                        "-x265-params", "keyint=30:min-keyint=30:bframes=2:log-level=error", "-pix_fmt", "yuv420p"])
    }

    /// AV1 (SVT-AV1) and AAC in MP4, made by Debian's ffmpeg.
    static func av1MP4() throws -> String {
        try make("av1.mp4", video() + audio() + ["-t", "2", "-c:v", "libsvtav1", "-preset", "10", "-g", "30",
                                                  "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
    }
}

/// HEVC and AV1 file inputs in copy mode: enhanced FLV that FFmpeg 8 decodes frame for frame, and HEVC
/// Annex B (`.h265`) that Debian's FFmpeg 5.1 decodes frame for frame; an Annex B file named for the other codec fails
/// naming both, leaving nothing behind.
@Suite("Enhanced copy: HEVC and AV1 files", .serialized)
struct EnhancedCopyTests {
    @Test("HEVC MP4 → enhanced FLV + .h265 + .aac, every decoded frame equal to the source's",
          .enabled(if: EnhancedReferee.isAvailable, EnhancedReferee.unavailableReason))
    func hevcFile() throws {
        let input = try Fixtures.hevcMP4()
        let harness = try JobHarness("hevc-copy")
        let outcome = try harness.run(.object(["id": .string("hevc-1"), "input": .string(input), "outputs": .array([
            .string(harness.path("out.flv")), .string(harness.path("out.h265")), .string(harness.path("out.aac")),
        ])]))
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        let source = try EnhancedReferee.decode(input)
        let sourceVideo = try #require(source.video)
        #expect(sourceVideo.frames == 60)
        let flv = try EnhancedReferee.decode(harness.path("out.flv"))
        #expect(flv.errors.isEmpty, "FFmpeg 8 logged errors: \(flv.errors)")
        #expect(flv.video?.codec == "hevc")
        #expect(flv.video?.hashes == sourceVideo.hashes, "enhanced FLV video differs")
        // FLV has no edit list: the AAC priming frame MP4 hides is carried (docs/JOBS.md, "What lossless means"), so the FLV's
        // audio is compared with the .aac output's, which Debian's ffmpeg checks against the source below.
        let adts = try EnhancedReferee.decode(harness.path("out.aac"))
        #expect((flv.audio?.frames ?? 0) > 90)
        #expect(flv.audio?.hashes == adts.audio?.hashes, "FLV audio differs")
        #expect(result.progress.videoFrames == sourceVideo.frames)

        // B-frames: composition offsets ride in CodedFrames, the rest in CodedFramesX; onMetaData names hvc1 as FFmpeg 6.1+ does.
        let tags = try EnhancedReferee.videoTags(harness.path("out.flv"))
        #expect(tags.fourCCs == ["hvc1"])
        #expect(tags.legacyTags == 0)
        #expect(tags.sequenceStarts == 1)
        #expect(tags.codedFrames > 0 && tags.codedFramesX > 0)
        #expect(tags.codedFrames + tags.codedFramesX == 60)
        #expect(tags.keyframes == 2)
        #expect(tags.videocodecid == Double(FLVVideoFourCC.hvc1.rawValue))

        // Debian's FFmpeg 5.1 is the referee for the Annex B file and the ADTS audio.
        let expected = try FrameHashes.of(input, .video)
        #expect(expected.count == 60)
        #expect(try FrameHashes.of(harness.path("out.h265"), .video) == expected, ".h265 differs")
        #expect(try FrameHashes.of(harness.path("out.aac"), .audio) == FrameHashes.of(input, .audio), ".aac differs")
        #expect(try harness.store.outputs(jobID: "hevc-1").allSatisfy { $0.state == .succeeded && $0.bytes > 0 })
    }

    @Test("HEVC Matroska → .hevc decodes frame for frame in Debian's FFmpeg")
    func hevcMatroska() throws {
        let input = try Fixtures.hevcMKV()
        let harness = try JobHarness("hevc-mkv")
        let outcome = try harness.run(.object(["id": .string("hevc-mkv"), "input": .string(input),
                                               "outputs": .array([.string(harness.path("out.hevc"))])]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        let expected = try FrameHashes.of(input, .video)
        #expect(expected.count == 60)
        #expect(try FrameHashes.of(harness.path("out.hevc"), .video) == expected)
    }

    @Test("AV1 MP4 → enhanced FLV, every decoded frame equal to the source's",
          .enabled(if: EnhancedReferee.isAvailable, EnhancedReferee.unavailableReason))
    func av1File() throws {
        let input = try Fixtures.av1MP4()
        let harness = try JobHarness("av1-copy")
        let outcome = try harness.run(.object(["id": .string("av1-1"), "input": .string(input),
                                               "outputs": .array([.string(harness.path("out.flv")), .string(harness.path("out.aac"))])]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        let source = try EnhancedReferee.decode(input)
        let flv = try EnhancedReferee.decode(harness.path("out.flv"))
        #expect(flv.errors.isEmpty, "FFmpeg 8 logged errors: \(flv.errors)")
        #expect(flv.video?.codec.contains("av1") == true || flv.video?.codec == "libdav1d")
        #expect((source.video?.frames ?? 0) == 60)
        #expect(flv.video?.hashes == source.video?.hashes, "enhanced FLV video differs")
        // The priming frame again (see hevcFile): FLV audio equals the .aac output's, which equals the source's.
        #expect((flv.audio?.frames ?? 0) > 90)
        #expect(try flv.audio?.hashes == EnhancedReferee.decode(harness.path("out.aac")).audio?.hashes, "FLV audio differs")
        #expect(try FrameHashes.of(harness.path("out.aac"), .audio) == FrameHashes.of(input, .audio), ".aac differs")
        let tags = try EnhancedReferee.videoTags(harness.path("out.flv"))
        #expect(tags.fourCCs == ["av01"])
        #expect(tags.codedFrames == 0 && tags.codedFramesX > 0)
        #expect(tags.videocodecid == Double(FLVVideoFourCC.av01.rawValue))
    }

    struct Mismatch: CustomTestStringConvertible, Sendable {
        let name: String
        let fixture: @Sendable () throws -> String
        let output: String
        let named: [String]
        var testDescription: String { name }
    }

    static let mismatches: [Mismatch] = [
        Mismatch(name: "HEVC into .h264", fixture: Fixtures.hevcMP4, output: "out.h264", named: ["H.264", "HEVC", ".h265"]),
        Mismatch(name: "H.264 into .h265", fixture: Fixtures.mp4BFrames, output: "out.h265", named: ["HEVC", "H.264", ".h264"]),
        Mismatch(name: "AV1 into .h264", fixture: Fixtures.av1MP4, output: "out.h264", named: ["AV1", "Annex B"]),
    ]

    @Test("an Annex B file named for another codec fails naming both, and nothing is left behind", arguments: mismatches)
    func codecMismatch(_ mismatch: Mismatch) throws {
        let harness = try JobHarness("annexb-mismatch")
        let outcome = try harness.run(.object(["id": .string("mismatch"), "input": .string(try mismatch.fixture()),
                                               "outputs": .array([.string(harness.path("ok.flv")), .string(harness.path(mismatch.output))])]))
        let message = try #require(outcome.failureMessage, "expected a failure: \(outcome)")
        for word in mismatch.named { #expect(message.contains(word), "\(message) does not name \(word)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: harness.folder)
        #expect(!names.contains { $0.hasSuffix(".flv") || $0.hasSuffix(".h264") || $0.hasSuffix(".h265") || $0.contains(".part") },
                "left behind: \(names)")
    }

    @Test("an .h265 output of encoded video is refused by the validator")
    func encodeIntoH265() throws {
        let harness = try JobHarness("h265-encode")
        let outcome = try harness.run(.object(["id": .string("h265-enc"), "input": .string("in.mp4"),
                                               "video": .object(["mode": .string("encode")]),
                                               "outputs": .array([.string(harness.path("out.h265"))])]))
        let rejection = try #require(outcome.rejection, "expected a rejection: \(outcome)")
        #expect("\(rejection)".contains("video.mode"))
        #expect("\(rejection)".contains("H.264"))
    }

    @Test("probe --json shows the hvcC/SPS and av1C/sequence header fields, agreeing with ffprobe")
    func probe() throws {
        for (path, profile, level) in [(try Fixtures.hevcMP4(), "profile_idc", "level_idc"), (try Fixtures.av1MP4(), "profile", "level_idx")] {
            let run = try Command.run(Command.sluiceBinary, ["probe", "--json", path], check: false)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            let ours = try #require((report["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "video" })
            let referee = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_streams", "-of", "json", path])
            let theirs = try #require(((try JSONSerialization.jsonObject(with: referee.stdout) as? [String: Any])?["streams"] as? [[String: Any]])?.first)
            #expect(ours["codec"] as? String == theirs["codec_name"] as? String)
            #expect(ours["width"] as? Int == theirs["width"] as? Int && ours["height"] as? Int == theirs["height"] as? Int, "\(ours)")
            // Main is general_profile_idc 1 in HEVC and seq_profile 0 in AV1; ffprobe's level is the same number as ours.
            #expect(ours[profile] as? Int == (theirs["codec_name"] as? String == "hevc" ? 1 : 0), "\(ours)")
            #expect(ours[level] as? Int == theirs["level"] as? Int, "\(ours)")
            #expect(ours["tier"] as? String == "main")
            #expect(ours["bit_depth"] as? Int == 8)
            #expect(ours["error"] == nil, "\(ours)")
        }
        let text = try Command.run(Command.sluiceBinary, ["probe", try Fixtures.hevcMP4()]).text
        #expect(text.contains("hevc 320x240 profile_idc 1 main tier level_idc 60 chroma 1 8-bit"), "\(text)")
    }

    @Test("HEVC MP4 → RTMP: FFmpeg 8 listening receives the HEVC as Enhanced RTMP and decodes every frame equal to the source's",
          .enabled(if: EnhancedReferee.isAvailable, EnhancedReferee.unavailableReason))
    func hevcFileToRTMP() throws {
        let input = try Fixtures.hevcMP4()
        let harness = try JobHarness("hevc-rtmp")
        let port = try TestRTMP.freePort()
        let url = "rtmp://127.0.0.1:\(port)/live/hevcfilekey"
        let json = harness.path("played.json")
        let server = try BackgroundProcess("/usr/bin/env", ["python3", EnhancedReferee.script, "listen", url, "--json", json, "--timeout", "30"])
        var bound = false
        for _ in 0..<150 where !bound {
            bound = server.stderr.contains("listening")
            if !bound { usleep(100_000) }
        }
        #expect(bound, "FFmpeg's listen server did not bind: \(server.stderr)")
        let outcome = try harness.run(.object(["id": .string("hevc-rtmp"), "input": .string(input), "outputs": .array([.string(url)])]))
        #expect(outcome.succeeded != nil, "job did not succeed: \(outcome)")
        #expect(server.wait(seconds: 30) == 0, "FFmpeg's listen server: \(server.stderr)")
        let played = try JSONDecoder().decode(EnhancedReferee.Decoded.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        let source = try EnhancedReferee.decode(input)
        #expect(played.video?.codec == "hevc")
        #expect(played.video?.hashes == source.video?.hashes, "\(played.video?.frames ?? 0) of \(source.video?.frames ?? 0) frames equal")
        #expect((played.audio?.frames ?? 0) > 90)
        #expect(!"\(outcome)".contains("hevcfilekey"))
    }
}
