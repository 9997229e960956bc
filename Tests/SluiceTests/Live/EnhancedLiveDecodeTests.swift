import Foundation
import JobStore
import SluiceTestSupport
import Testing

extension EnhancedReferee {
    /// 4 s of testsrc2 320x240 30 fps and a sine, encoded by FFmpeg 8 (PyAV): "hevc"/"av1" video, "aac"/"opus" audio;
    /// "vp9" (with Opus) is made by Debian's ffmpeg (libvpx-vp9) into WebM.
    static func fixture(video: String, audio: String) throws -> String {
        if video == "vp9" {
            return try Fixtures.make("vp9-opus.webm", Fixtures.video() + Fixtures.audio() + [
                "-t", "4", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30", "-pix_fmt", "yuv420p",
                "-c:a", "libopus", "-shortest"])
        }
        let path = (Fixtures.directory as NSString).appendingPathComponent("pyav-\(video)-\(audio).mp4")
        if !FileManager.default.fileExists(atPath: path) {
            _ = try Command.run("/usr/bin/env", ["python3", script, "make", path, "--video", video, "--audio", audio, "--seconds", "4"])
        }
        return path
    }

    /// FFmpeg 8 publishing `file` over Enhanced RTMP at 1x (hvc1/av01/Opus ex-header tags).
    static func publish(_ file: String, to url: String) throws -> BackgroundProcess {
        try BackgroundProcess("/usr/bin/env", ["python3", script, "publish", file, url])
    }
}

/// Encode-mode jobs whose live input is HEVC, AV1 or Opus over Enhanced RTMP: the engine hands the
/// codec stage ex-header tags, which it decodes (libavcodec hevc, libdav1d, opus) and encodes to H.264/AAC for legacy
/// destinations; a copy rung beside keeps the enhanced stream.
@Suite("Enhanced RTMP live input, decoded", .serialized,
       .enabled(if: EnhancedReferee.isAvailable, EnhancedReferee.unavailableReason),
       .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct EnhancedLiveDecodeTests {
    let folder = Fixtures.scratch("enhanced-live")

    /// Runs `sluice run` on a listen job (`job` completes the document after its input), then FFmpeg 8 publishes
    /// `source` to it; returns when both ended.
    func listen(id: String, source: String, job: String) throws -> (sluice: BackgroundProcess, publisher: BackgroundProcess) {
        let port = try TestRTMP.freePort()
        let path = folder + "/\(id).json"
        try """
            {"id": "\(id)", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/k3y-\(id)", "listen": true, "timeout_s": 10}, \(job)}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--quiet", "--db", folder + "/jobs.sqlite", path])
        // A publisher that comes before the listener binds is refused by the OS.
        #expect(ListeningPort.wait(port), "sluice never listened on \(port): \(sluice.stderr)")
        let publisher = try EnhancedReferee.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/k3y-\(id)")
        return (sluice, publisher)
    }

    @Test("HEVC + AAC published to a listen job: the 320x180 H.264 rung plays from nginx-rtmp in Debian's ffmpeg, the copy rung archive and .h265 are the HEVC, frame for frame")
    func hevcToLegacyDestination() throws {
        let source = try EnhancedReferee.fixture(video: "hevc", audio: "aac")
        let destination = try TestRTMP.stream("hevc-180")
        // The player attaches before anything is published and waits for the encoded rung's first frame: 15 s, as a
        // loaded machine (CI's ThreadSanitizer build beside it) took more than the 6 s it had.
        let player = try TestRTMP.play(destination, into: folder + "/played.flv", idle: 15)
        #expect(RTMPServerStatistics.waitForPlayer(destination), "the player never attached to nginx-rtmp")
        let (sluice, publisher) = try listen(id: "hevc-enc", source: source, job: """
            "outputs": [
              {"url": "\(destination)", "video": {"mode": "encode", "encoder": "software", "width": 320, "height": 180, "bitrate_kbps": 300, "gop_s": 1}},
              {"url": "\(folder)/copy.flv", "video": {"mode": "copy"}},
              {"url": "\(folder)/copy.h265", "video": {"mode": "copy"}}
            ]
            """)
        #expect(sluice.wait(seconds: 40) == 0, "sluice: \(sluice.stderr)")
        publisher.wait(seconds: 10)
        #expect(player.wait(seconds: 120) == 0, "player: \(player.stderr)")

        // Debian's FFmpeg 5.1 reads the legacy rung: H.264 at the asked size, AAC, no decode error.
        let video = try Probe.streams(folder + "/played.flv", "v")
        #expect(video.count == 1 && video.first?.codec == "h264" && video.first?.width == 320 && video.first?.height == 180, "\(video)")
        #expect(try Probe.streams(folder + "/played.flv", "a").first?.codec == "aac")
        #expect(try Probe.decodeErrors(folder + "/played.flv").isEmpty)
        let frames = try Probe.frameCount(folder + "/played.flv", "v")
        #expect(frames >= 100 && frames <= 125, "played \(frames) frames")

        // The copy rung: the published HEVC, every frame, as FFmpeg 8 decodes it.
        let published = try EnhancedReferee.decode(source)
        let copied = try EnhancedReferee.decode(folder + "/copy.flv")
        #expect(copied.errors.isEmpty, "\(copied.errors)")
        #expect(copied.video?.codec == "hevc")
        #expect(copied.video?.hashes == published.video?.hashes, "copy rung: \(copied.video?.frames ?? 0) of \(published.video?.frames ?? 0) frames equal")
        // The same HEVC as Annex B, which Debian's FFmpeg 5.1 decodes frame for frame.
        #expect(try FrameHashes.of(folder + "/copy.h265", .video) == FrameHashes.of(source, .video), ".h265 differs")
        #expect(!sluice.stderr.contains("k3y-hevc-enc"))
    }

    struct Source: CustomTestStringConvertible, Sendable {
        let video: String
        let audio: String
        var testDescription: String { "\(video.uppercased()) + \(audio == "opus" ? "Opus" : "AAC")" }
    }

    @Test("AV1, HEVC or VP9 with Opus published to a listen job that encodes both kinds: an H.264 + AAC archive Debian's ffmpeg decodes; VP9's job also copies the VP9 and Opus to .mp4, frame for frame",
          arguments: [Source(video: "av1", audio: "opus"), Source(video: "hevc", audio: "opus"), Source(video: "vp9", audio: "opus")])
    func opusToAAC(_ published: Source) throws {
        let source = try EnhancedReferee.fixture(video: published.video, audio: published.audio)
        let id = "\(published.video)-\(published.audio)"
        // The codec stage copies VP9 (its vpcC from the sequence start) and Opus beside its encodes.
        let copy = published.video == "vp9" ? #", {"url": "\#(folder)/\#(id)-copy.mp4", "video": {"mode": "copy"}, "audio": {"mode": "copy"}}"# : ""
        let (sluice, publisher) = try listen(id: id, source: source, job: """
            "video": {"mode": "encode", "encoder": "software", "width": 320, "height": 180, "gop_s": 1},
            "audio": {"mode": "encode", "bitrate_kbps": 64},
            "outputs": ["\(folder)/\(id).flv", "\(folder)/\(id).aac"\(copy)]
            """)
        #expect(sluice.wait(seconds: 40) == 0, "sluice: \(sluice.stderr)")
        publisher.wait(seconds: 10)
        let archive = folder + "/\(id).flv"
        let video = try Probe.streams(archive, "v")
        #expect(video.first?.codec == "h264" && video.first?.width == 320 && video.first?.height == 180, "\(video)")
        #expect(try Probe.streams(archive, "a").first?.codec == "aac")
        #expect(try Probe.decodeErrors(archive).isEmpty)
        let frames = try Probe.frameCount(archive, "v")
        #expect(frames >= 100 && frames <= 125, "\(frames) video frames")
        // 4 s of 48 kHz audio is 187.5 AAC frames; the listen start may cut a few.
        let audioFrames = try Probe.frameCount(folder + "/\(id).aac", "a")
        #expect(audioFrames >= 160 && audioFrames <= 192, "\(audioFrames) audio frames")
        if !copy.isEmpty {
            try expectVP9Copied(folder + "/\(id)-copy.mp4", of: source)
            try expectOpusCopied(folder + "/\(id)-copy.mp4", of: source)
        }
    }

    /// VP9's frames in an MP4 or an HLS output, decoded by Debian's ffmpeg, are the published ones, every frame.
    func expectVP9Copied(_ path: String, of source: String, file: String = #fileID, line: Int = #line) throws {
        let video = try Probe.streams(path, "v")
        #expect(video.count == 1 && video.first?.codec == "vp9" && video.first?.width == 320 && video.first?.height == 240, "\(path): \(video)")
        let copied = try FrameHashes.of(path, .video)
        let published = try FrameHashes.of(source, .video)
        #expect(copied.count >= 100 && copied == published, "\(path): \(copied.count) frames, \(published.count) published, equal up to \(zip(copied, published).prefix { $0 == $1 }.count)")
    }

    /// The Opus of an output: the published packets from where the outputs started (the first key frame), none changed
    /// or lost.
    func expectOpusCopied(_ path: String, of source: String) throws {
        let published = try FrameHashes.packets(source, .audio)
        let copied = try FrameHashes.packets(path, .audio)
        let start = published.firstIndex(of: copied.first ?? "") ?? published.count
        #expect(copied.count >= published.count * 9 / 10 && published[start...].starts(with: copied),
                "\(path): \(copied.count) Opus packets, \(published.count) published, a run of them from \(start)")
        #expect(try Probe.streams(path, "a").first?.codec == "opus")
    }

    @Test("VP9 + Opus published to a copy job: .mp4 and HLS get the VP9 as vp09 + vpcC, frame for frame, and the Opus packets as they came, on the relay engine")
    func vp9CopiedToMP4AndHLS() throws {
        let source = try EnhancedReferee.fixture(video: "vp9", audio: "opus")
        let (sluice, publisher) = try listen(id: "vp9-copy", source: source, job: """
            "outputs": ["\(folder)/vp9.mp4", {"url": "\(folder)/vp9-hls/index.m3u8", "segment_s": 1}]
            """)
        #expect(sluice.wait(seconds: 40) == 0, "sluice: \(sluice.stderr)")
        publisher.wait(seconds: 10)
        try expectVP9Copied(folder + "/vp9.mp4", of: source)
        try expectVP9Copied(folder + "/vp9-hls/index.m3u8", of: source)
        for output in ["vp9.mp4", "vp9-hls/index.m3u8"] { try expectOpusCopied(folder + "/" + output, of: source) }
        // The init segment's sample entry and its CODECS string: vp09, profile 0, 8 bits.
        let entry = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string,profile", "-of", "csv=p=0",
                                                folder + "/vp9-hls/index-init.mp4"]).text
        #expect(entry.contains("vp09"), "\(entry)")
    }
}
