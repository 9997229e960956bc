import Foundation
import Testing
@testable import Sluice
import JobDocument

/// AAC priming in `.mp4` and HLS (docs/ARCHITECTURE.md §8): an edit list starts the presentation where the encoder's
/// priming ends, as FFmpeg's own `.mp4` does, so players skip it and audio and video start together. FFmpeg reads the
/// edit list as skip samples on the first audio packet: that line of `-f framemd5` is the referee.
@Suite("AAC priming as an edit list", .serialized)
struct AudioPrimingTests {
    /// The first audio packet of `path` as `ffmpeg -copyts -map 0:a -c copy -f framemd5` lists it (dts, pts, duration,
    /// size, hash, side data), and the time base line above it. `-copyts`: the packet's time on its track's own
    /// presentation, not moved by another track's start (a video edit rounded to 1/90,000 s can start a tick early).
    static func firstAudioPacket(_ path: String) throws -> (timeBase: String, packet: String) {
        let text = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-copyts", "-i", path, "-map", "0:a:0", "-c", "copy",
                                              "-f", "framemd5", "-"]).text
        let lines = text.split(separator: "\n").map(String.init)
        return (lines.first { $0.hasPrefix("#tb") } ?? "", lines.first { !$0.hasPrefix("#") } ?? "")
    }

    /// The fields of a framemd5 packet line.
    static func fields(_ line: String) -> [String] { line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

    /// Decoded frames with the edit lists applied (priming skipped), as a player gets them.
    static func playedFrames(_ path: String, _ kind: String) throws -> [String] {
        let sync = kind == "v" ? ["-fps_mode", "passthrough"] : []
        let text = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", path, "-map", "0:\(kind):0"] + sync
                                   + ["-f", "framemd5", "-"]).text
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("an MP4 that ffmpeg made from AAC, copied to .mp4 and HLS: the first audio packet shows the source's skip samples, and played with the edit lists every frame equals the source's")
    func copiedMP4KeepsThePriming() throws {
        let input = try Fixtures.mp4BFrames()
        let harness = try JobHarness("priming-copy")
        let outcome = try harness.run(.object(["id": .string("priming-copy"), "input": .string(input), "outputs": .array([
            .string(harness.path("out.mp4")), .object(["url": .string(harness.path("hls/index.m3u8")), "segment_s": .number(1)]),
        ])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let source = try Self.firstAudioPacket(input)
        #expect(Self.fields(source.packet).count == 9 && source.packet.contains("S=1"), "the fixture has no skip samples: \(source.packet)")
        let copied = try Self.firstAudioPacket(harness.path("out.mp4"))
        #expect(copied.timeBase == source.timeBase)
        #expect(copied.packet == source.packet, "out.mp4: \(copied.packet); the source: \(source.packet)")
        for kind in ["a", "v"] {
            let played = try Self.playedFrames(input, kind)
            #expect(played.count > 50)
            #expect(try Self.playedFrames(harness.path("out.mp4"), kind) == played, "\(kind): out.mp4 played is not the source played")
        }
        // The HLS init segment carries the same edit: its first audio packet, read through the playlist.
        let hls = try Self.firstAudioPacket(harness.path("hls/index.m3u8"))
        #expect(Array(Self.fields(hls.packet).suffix(3)) == Array(Self.fields(source.packet).suffix(3)), "HLS: \(hls.packet)")
    }

    @Test("FLV carries no priming: its AAC LC gets 1,024 samples of it in .mp4, starting with the video")
    func flvInputGetsTheCodecsPriming() throws {
        let input = try Fixtures.flvInput()
        let harness = try JobHarness("priming-flv")
        let outcome = try harness.run(.object(["id": .string("priming-flv"), "input": .string(input), "outputs": .array([.string(harness.path("out.mp4"))])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let first = Self.fields(try Self.firstAudioPacket(harness.path("out.mp4")).packet)
        #expect(first.count == 9 && first[1] == "-1024" && first[2] == "-1024" && first[6] == "S=1", "\(first)")
        // The first played audio and video frames start together, as the FLV's priming frame ends 1,024 samples in.
        let probe = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time", "-of", "csv=p=0",
                                                harness.path("out.mp4")]).text
        let starts = probe.split(separator: "\n").compactMap { line -> Double? in Double(line.split(separator: ",").last ?? "") }
        #expect(starts.count == 2 && abs(starts[0] - starts[1]) < 0.001, "start times \(probe)")
    }

    @Test("an encode job's AAC: our encoder's priming (libavcodec's initial_padding) in the .mp4's edit list")
    func encodedAACGetsTheEncodersPriming() throws {
        let input = try Fixtures.mp4BFrames()
        let harness = try JobHarness("priming-encode")
        let outcome = try harness.run(.object(["id": .string("priming-encode"), "input": .string(input),
                                               "audio": .object(["mode": .string("encode"), "bitrate_kbps": .number(96)]),
                                               "outputs": .array([.string(harness.path("out.mp4"))])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let first = Self.fields(try Self.firstAudioPacket(harness.path("out.mp4")).packet)
        #expect(first.count == 9 && first[1] == "-1024" && first[2] == "-1024" && first[6] == "S=1", "\(first)")
    }
}
