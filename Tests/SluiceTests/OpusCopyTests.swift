import Foundation
import JobStore
import Testing
@testable import Sluice

extension Fixtures {
    /// H.264 and Opus (libopus, stereo, pre-skip 312) in Matroska, made by Debian's ffmpeg.
    static func h264OpusMKV() throws -> String {
        try make("h264-opus.mkv", video() + audio() + ["-t", "2"] + x264 + ["-c:a", "libopus", "-b:a", "96k", "-shortest"])
    }

    /// VP9 (libvpx-vp9) or VP8 (libvpx), a keyframe a second, and Opus in WebM, as a browser's MediaRecorder writes them.
    static func vpxOpusWebM(_ codec: String) throws -> String {
        let encoder = codec == "vp9" ? "libvpx-vp9" : "libvpx"
        return try make("\(codec)-opus-file.webm", video() + audio() + ["-t", "2", "-c:v", encoder, "-deadline", "realtime", "-cpu-used", "8",
                                                                       "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "libopus", "-shortest"])
    }
}

extension FrameHashes {
    /// MD5 of every packet of the first stream of `kind`, as the demuxer gives it (`-c copy`): the referee for a copy
    /// that must carry each packet's bytes untouched. An MP4's edit list is ignored, so its hidden packets count too.
    static func packets(_ path: String, _ kind: Kind) throws -> [String] {
        let options = path.hasSuffix(".mp4") ? ["-ignore_editlist", "1"] : []
        let result = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error"] + options
            + ["-i", path, "-map", "0:\(kind.rawValue):0", "-c", "copy", "-f", "framemd5", "-"])
        // stream, dts, pts, duration, size, hash[, S=count, side data size, side data hash]: side data (Matroska's
        // discard padding on the last packet) is the container's, not the packet's bytes.
        return result.text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// The first audio stream decoded to 16-bit PCM as a player hears it: priming (an MP4 edit list, Matroska's codec
    /// delay) skipped.
    static func pcm(_ path: String) throws -> Data {
        try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-"]).stdout
    }
}

/// Opus from a file in copy mode: its packets untouched into fragmented MP4 (`Opus` + `dOps`, the pre-skip as the
/// edit list), HLS, MPEG-TS (with its descriptor) and FLV (Enhanced RTMP Opus); ADTS refuses it by name. VP9 from
/// WebM (no vpcC there: its first key frame's header gives one) into MP4 and HLS.
@Suite("Opus and VP9 file copy", .serialized)
struct OpusCopyTests {
    @Test("H.264 + Opus Matroska → .mp4, HLS and .ts with every Opus packet the source's, heard from the same sample")
    func opusToMP4TSAndHLS() throws {
        let input = try Fixtures.h264OpusMKV()
        let harness = try JobHarness("opus-copy")
        let outcome = try harness.run(.object(["id": .string("opus-1"), "input": .string(input), "outputs": .array([
            .string(harness.path("out.mp4")), .string(harness.path("out.ts")), .string(harness.path("hls/index.m3u8")),
            .string(harness.path("out.flv")),
        ])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        let source = try FrameHashes.packets(input, .audio)
        #expect(source.count >= 90, "\(source.count) Opus packets in the source")
        for output in ["out.mp4", "out.ts", "hls/index.m3u8"] {
            let path = harness.path(output)
            let audio = try Probe.streams(path, "a")
            #expect(audio.first?.codec == "opus" && audio.first?.channels == 2 && audio.first?.sampleRate == 48_000, "\(output): \(audio)")
            #expect(try FrameHashes.packets(path, .audio) == source, "\(output): Opus packets differ")
            #expect(try Probe.decodeErrors(path).isEmpty, "\(output) does not decode cleanly")
        }
        #expect(try FrameHashes.of(harness.path("out.mp4"), .video) == FrameHashes.of(input, .video))

        // The edit list starts the MP4's presentation after the pre-skip, as Matroska's codec delay does: a player
        // hears the same samples from the first one (the MP4 may run on into the last packet's padding).
        let heard = try FrameHashes.pcm(input)
        let mp4 = try FrameHashes.pcm(harness.path("out.mp4"))
        #expect(heard.count > 48_000 * 4 && mp4.count >= heard.count && mp4.count - heard.count <= 960 * 4, "\(mp4.count) bytes against \(heard.count)")
        #expect(mp4.prefix(heard.count) == heard, "the MP4's decoded Opus differs from the source's")

        // FLV: Enhanced RTMP Opus, which FFmpeg 8 reads (Debian's 5.1 does not), every packet decoded.
        if EnhancedReferee.isAvailable {
            let flv = try EnhancedReferee.decode(harness.path("out.flv"))
            #expect(flv.errors.isEmpty && flv.audio?.codec == "opus" && flv.audio?.frames == source.count,
                    "\(flv.errors) \(flv.audio?.codec ?? "no audio") \(flv.audio?.frames ?? 0) of \(source.count)")
        }
    }

    @Test("VP9 or VP8 + Opus WebM → .mp4 and HLS: every video frame and every Opus packet the source's, vp09 or vp08 with a vpcC from the first key frame",
          arguments: ["vp9", "vp8"])
    func webmToMP4AndHLS(codec: String) throws {
        let input = try Fixtures.vpxOpusWebM(codec)
        let harness = try JobHarness("webm-copy-\(codec)")
        let outcome = try harness.run(.object(["id": .string("webm-\(codec)"), "input": .string(input), "outputs": .array([
            .string(harness.path("out.mp4")), .string(harness.path("hls/index.m3u8")),
        ])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let frames = try FrameHashes.of(input, .video)
        let packets = try FrameHashes.packets(input, .audio)
        #expect(frames.count == 60 && packets.count >= 90)
        for output in ["out.mp4", "hls/index.m3u8"] {
            let path = harness.path(output)
            let video = try Probe.streams(path, "v")
            #expect(video.first?.codec == codec && video.first?.width == 320 && video.first?.height == 240, "\(output): \(video)")
            #expect(try FrameHashes.of(path, .video) == frames, "\(output): \(codec) frames differ")
            #expect(try FrameHashes.packets(path, .audio) == packets, "\(output): Opus packets differ")
        }
        // profile 0, 8 bits, 4:2:0: what the key frame says, as the CODECS string and FFmpeg's reading of vpcC show.
        let fourCC = codec == "vp9" ? "vp09" : "vp08"
        let entry = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string,profile,pix_fmt", "-of", "csv=p=0",
                                                harness.path("out.mp4")]).text
        #expect(entry.contains(fourCC) && entry.contains("yuv420p") && (codec == "vp8" || entry.contains("Profile 0")), "\(entry)")
        let playlist = try String(contentsOfFile: harness.path("hls/index.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MAP") && !playlist.contains("ERROR"), "\(playlist)")
        let variant = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0",
                                                  harness.path("hls/index-init.mp4")]).text
        #expect(variant.contains(fourCC), "\(variant)")
    }

    @Test("an ADTS output of Opus is refused naming the codec, and nothing is left behind")
    func opusToADTSRefused() throws {
        let harness = try JobHarness("opus-adts")
        let outcome = try harness.run(.object(["id": .string("opus-2"), "input": .string(try Fixtures.h264OpusMKV()),
                                               "outputs": .array([.string(harness.path("a.mp4")), .string(harness.path("a.aac"))])]))
        let message = try #require(outcome.failureMessage, "expected failure, got \(outcome)")
        #expect(message.contains("the audio is Opus, which ADTS does not carry"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: harness.path("a.aac")))
        #expect(!FileManager.default.fileExists(atPath: harness.path("a.mp4")))
    }
}
