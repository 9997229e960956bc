import Foundation
import SluiceTestSupport
import Testing

/// SRT through `sluice run`, on both engines: an SRT listen job whose HEVC reaches a legacy RTMP destination through an
/// H.264 rendition (the codec engine reading the relay's SRT source), and a file job publishing to SRT (the codec
/// engine publishing through the relay's SRT output). Debian's ffmpeg is the SRT peer and the referee.
@Suite("SRT jobs on both engines", .serialized,
       .enabled(if: EnhancedReferee.isAvailable, EnhancedReferee.unavailableReason),
       .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct SRTJobTests {
    let folder = Fixtures.scratch("srt-jobs")
    static let passphrase = "srt-job-passphrase"

    @Test("HEVC + AAC over SRT to a listen job: a 320x180 H.264 rung plays from nginx-rtmp, the copy archive is the HEVC frame for frame, no secret in the log")
    func hevcToLegacyDestination() throws {
        let source = try EnhancedReferee.fixture(video: "hevc", audio: "aac")
        let destination = try TestRTMP.stream("srt-180")
        let player = try TestRTMP.play(destination, into: folder + "/played.flv", idle: 6)
        #expect(RTMPServerStatistics.waitForPlayer(destination), "the player never attached to nginx-rtmp")
        let port = try TestRTMP.freePort()
        let input = "srt://127.0.0.1:\(port)?streamid=publish:live/srtjobkey&passphrase=\(Self.passphrase)"
        let path = folder + "/hevc.json"
        try """
            {"id": "srt-hevc", "input": {"url": "\(input)", "listen": true, "timeout_s": 5},
             "outputs": [
               {"url": "\(destination)", "video": {"mode": "encode", "encoder": "software", "width": 320, "height": 180, "bitrate_kbps": 300, "gop_s": 1}},
               {"url": "\(folder)/copy.flv", "video": {"mode": "copy"}}
             ]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--db", folder + "/jobs.sqlite", path])
        // A caller that comes before the port is bound repeats its handshake until it is.
        usleep(500_000)
        let publisher = try BackgroundProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", source,
                                                                 "-c", "copy", "-f", "mpegts", input + "&linger=3"])
        #expect(publisher.wait(seconds: 30) == 0, "publisher: \(publisher.stderr)")
        #expect(sluice.wait(seconds: 40) == 0, "sluice: \(sluice.stderr)")
        // The player stops 6 s after the stream does (its read timeout). Once in CI it was still running 20 s after
        // the job ended, on a machine building an image beside the tests: what it recorded is what is judged below,
        // so a player still running after 30 s is ended here (SIGTERM: ffmpeg finishes its file), and only a player
        // that ended by itself must have ended well.
        let playerStatus = player.wait(seconds: 30)
        #expect(playerStatus == nil || playerStatus == 0, "player: \(player.stderr)")

        let video = try Probe.streams(folder + "/played.flv", "v")
        #expect(video.count == 1 && video.first?.codec == "h264" && video.first?.width == 320 && video.first?.height == 180, "\(video)")
        #expect(try Probe.decodeErrors(folder + "/played.flv").isEmpty)
        let frames = try Probe.frameCount(folder + "/played.flv", "v")
        #expect(frames >= 100 && frames <= 125, "played \(frames) frames")
        let published = try EnhancedReferee.decode(source)
        let copied = try EnhancedReferee.decode(folder + "/copy.flv")
        #expect(copied.errors.isEmpty && copied.video?.codec == "hevc", "\(copied.errors)")
        #expect(copied.video?.hashes == published.video?.hashes, "copy: \(copied.video?.frames ?? 0) of \(published.video?.frames ?? 0) frames equal")
        #expect(!sluice.stderr.contains("srtjobkey") && !sluice.stderr.contains(Self.passphrase), "sluice: \(sluice.stderr)")
    }

    @Test("a file job publishes to SRT: ffmpeg listening receives TS that decodes to the file's frames, in time")
    func fileToSRT() throws {
        let source = try Fixtures.make("srt-file.mp4", Fixtures.video() + Fixtures.audio() + [
            "-t", "4", "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        let port = try TestRTMP.freePort()
        let receiver = try BackgroundProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "warning",
                                                                "-i", "srt://127.0.0.1:\(port)?mode=listener&passphrase=\(Self.passphrase)",
                                                                "-c", "copy", "-f", "mpegts", "-y", folder + "/received.ts"])
        usleep(300_000)
        let path = folder + "/file.json"
        try """
            {"id": "srt-file", "input": "\(source)", "outputs": ["srt://127.0.0.1:\(port)?passphrase=\(Self.passphrase)"]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--db", folder + "/jobs.sqlite", path])
        #expect(sluice.wait(seconds: 40) == 0, "sluice: \(sluice.stderr)")
        #expect(receiver.wait(seconds: 15) == 0, "receiver: \(receiver.stderr)")
        #expect(!receiver.stderr.lowercased().contains("continuity"), "receiver: \(receiver.stderr)")
        #expect(try FrameHashes.of(folder + "/received.ts", .video) == FrameHashes.of(source, .video), "the received video is not the file's")
        #expect(try FrameHashes.of(folder + "/received.ts", .audio) == FrameHashes.of(source, .audio), "the received audio is not the file's")
        #expect(!sluice.stderr.contains(Self.passphrase))
        // The output's link as libsrt measured it, in the job's record and in `jobs show`.
        let show = try Command.run(Command.sluiceBinary, ["jobs", "show", "--db", folder + "/jobs.sqlite", "srt-file"]).text
        let line = try #require(show.split(separator: "\n").first { $0.contains("#0: rtt ") }, "no SRT link in: \(show)")
        let sent = try #require(line.firstMatch(of: /of (\d+)\)/).flatMap { Int($0.1) }, "\(line)")
        let bytes = try FileManager.default.attributesOfItem(atPath: folder + "/received.ts")[.size] as? Int ?? 0
        // 1,316 bytes of TS per packet: at least every packet the receiver wrote was sent.
        #expect(sent >= bytes / 1316 && sent > 100, "sent \(sent) packets for \(bytes) bytes received: \(line)")
        #expect(line.contains("0.00 % lost (0 of"), "loopback loses nothing: \(line)")
    }
}
