import Foundation
import SluiceTestSupport
import JobStore
import MediaEngine
import Testing
@testable import Sluice
import MediaJob

/// Live copy mode against a real nginx-rtmp, with ffmpeg as publisher and player and its framemd5
/// as the referee. Serialized: one test stops and restarts the shared server.
@Suite("Live restream over RTMP", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct LiveRestreamTests {
    @Test("RTMP → RTMP copy: the frames a player pulls are the published frames, from a keyframe on")
    func restream() throws {
        let source = try Fixtures.live(seconds: 6)
        let input = try TestRTMP.stream("src")
        let output = try TestRTMP.stream("dst")
        let harness = try JobHarness("rtmp-restream")
        let player = try TestRTMP.play(output, into: harness.path("played.flv"), idle: TestRTMP.pullingJob)
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        let publisher = try TestRTMP.publish(source, to: input)
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let outcome = try harness.run(json: """
            {"id": "restream", "input": {"url": "\(input)", "timeout_s": 5}, "outputs": ["\(output)"], "max_duration_s": 3}
            """)
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        #expect(result.reachedMaxDuration)
        #expect(player.wait(seconds: 3 * TestRTMP.pullingJob + 15) == 0, "player: \(player.stderr)")
        publisher.wait(seconds: 10)

        let published = try FrameHashes.of(source, .video)
        let played = try FrameHashes.of(harness.path("played.flv"), .video)
        // 3 s of media at 30 fps, cut at max_duration_s.
        #expect(played.count >= 85 && played.count <= 91, "played \(played.count) frames")
        // A cut at max_duration_s in decode order can leave the last B-frames without their packets.
        let videoIsRun = published.containsContiguous(Array(played.dropLast(2)))
        #expect(videoIsRun, "played video is not a run of the published frames")
        #expect(played.count == result.progress.outputs.first?.videoFrames)
        // AAC frames decode alike once the decoder has seen the frame before them (overlap-add).
        let publishedAudio = try FrameHashes.of(source, .audio)
        let playedAudio = try FrameHashes.of(harness.path("played.flv"), .audio)
        #expect(playedAudio.count > 100)
        let audioIsRun = publishedAudio.containsContiguous(Array(playedAudio.dropFirst(1)))
        #expect(audioIsRun, "played audio is not a run of the published audio")

        let rows = try harness.store.outputs(jobID: "restream")
        #expect(rows.first?.state == .succeeded)
        #expect(rows.first?.frames == played.count)
        #expect(rows.first?.url.hasSuffix("/live/***") == true, "stream key in the listing: \(rows.first?.url ?? "")")
    }

    @Test("SLUICE_LATENCY_HISTOGRAM=1: sluice run prints each RTMP output's latency line, counting its frames, key redacted")
    func latencyHistogram() throws {
        let source = try Fixtures.live(seconds: 6)
        let input = try TestRTMP.stream("lat-src")
        let output = try TestRTMP.stream("lat-dst")
        let harness = try JobHarness("latency")
        let job = harness.path("job.json")
        try """
            {"id": "latency", "input": {"url": "\(input)", "timeout_s": 5}, "outputs": ["\(output)"], "max_duration_s": 3}
            """.write(toFile: job, atomically: true, encoding: .utf8)
        let publisher = try TestRTMP.publish(source, to: input)
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--quiet", "--db", harness.path("run.sqlite"), job],
                                           environment: [LatencyReport.environmentVariable: "1"])
        #expect(sluice.wait(seconds: 30) == 0, "sluice run: \(sluice.stderr)")
        publisher.wait(seconds: 10)
        let lines = sluice.stderr.split(separator: "\n").filter { $0.hasPrefix("latency output 0 (") }
        let line = try #require(lines.first.map(String.init), "no latency line in: \(sluice.stderr)")
        #expect(lines.count == 1, "\(lines)")
        // `latency output 0 (rtmp://…/live/***): n=… p50=…ms p99=…ms max=…ms`, the key redacted.
        #expect(line.contains("/live/***): n="), "\(line)")
        let key = output.split(separator: "/").last.map(String.init) ?? output
        #expect(!line.contains(key), "the stream key leaked: \(line)")
        let fields = Dictionary(uniqueKeysWithValues: line.split(separator: " ").compactMap { field -> (String, Double)? in
            let parts = field.split(separator: "=")
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), Double(parts[1].replacingOccurrences(of: "ms", with: "")) ?? -1)
        })
        // Every frame written while the output was connected is counted: at least the video frames of 3 s.
        let count = try #require(fields["n"])
        #expect(count >= 85, "n=\(count)")
        let p50 = try #require(fields["p50"]), p99 = try #require(fields["p99"]), max = try #require(fields["max"])
        #expect(p50 >= 0 && p50 <= p99 && p99 <= max, "\(line)")
    }

    @Test("fan-out: a destination that refuses connections gives up; the working one gets every frame")
    func fanOutWithDeadDestination() throws {
        let source = try Fixtures.live(seconds: 3)
        let dead = "rtmp://127.0.0.1:\(try TestRTMP.freePort())/live/deadkey"
        let working = try TestRTMP.stream("fan")
        let harness = try JobHarness("rtmp-fanout")
        let player = try TestRTMP.play(working, into: harness.path("played.flv"))
        #expect(RTMPServerStatistics.waitForPlayer(working), "the player never attached to nginx-rtmp")
        usleep(300_000)
        let outcome = try harness.run(json: """
            {"id": "fanout", "input": "\(source)", "outputs": ["\(dead)", "\(working)", "\(harness.path("copy.flv"))"],
             "reconnect": {"attempts": 3, "initial_delay_s": 0.1, "max_delay_s": 0.2}}
            """)
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        #expect(player.wait(seconds: 15) == 0, "player: \(player.stderr)")

        // The player was there before the first packet: every frame, video and audio.
        let played = harness.path("played.flv")
        let sourceVideo = try FrameHashes.of(source, .video)
        let everyVideoFrame = try FrameHashes.of(played, .video) == sourceVideo
        let everyAudioFrame = try FrameHashes.of(played, .audio) == FrameHashes.of(source, .audio)
        let archiveWhole = try FrameHashes.of(harness.path("copy.flv"), .video) == sourceVideo
        #expect(sourceVideo.count == 90)
        #expect(everyVideoFrame, "the working destination's video differs from the source")
        #expect(everyAudioFrame, "the working destination's audio differs from the source")
        #expect(archiveWhole, "the file output's video differs from the source")

        let rows = try harness.store.outputs(jobID: "fanout")
        #expect(rows.map(\.state) == [.failed, .succeeded, .succeeded])
        #expect(rows[0].reconnects == 3)
        #expect(rows[0].bytes == 0)
        #expect(rows[0].lastError?.contains("Connection refused") == true, "last_error: \(rows[0].lastError ?? "nil")")
        #expect(rows[0].url == "rtmp://127.0.0.1:\(dead.split(separator: ":")[2].split(separator: "/")[0])/live/***")
        #expect(rows[1].reconnects == 0 && rows[1].drops == 0)
        #expect(result.progress.outputs[0].failed)
        let job = try #require(try harness.store.job(id: "fanout"))
        #expect(job.state == .succeeded)
        let events = try harness.store.events(jobID: "fanout")
        let summary = try #require(events.last?.message)
        #expect(summary.contains("output 0 (rtmp://127.0.0.1:") && summary.contains("failed after 3 reconnect attempts"), "summary: \(summary)")
        #expect(!summary.contains("deadkey"))
    }

    @Test("nginx killed mid-stream and restarted: the output reconnects at a keyframe; the job succeeds at max_duration_s")
    func serverRestart() throws {
        let source = try Fixtures.live(seconds: 24)
        // A server of its own: the shared one carries other suites' streams at the same time.
        let server = try PrivateRTMPServer()
        let output = server.stream("restart")
        let harness = try JobHarness("rtmp-restart")
        let late = harness.path("late.flv")
        // Kill at ~1.5 s of the 1× job, start again 0.5 s later, then a player joins the republished stream. Under
        // load the kill and the start take seconds each (the script reads /proc): in one CI run the start returned
        // 8 s after the kill, 53 ms after a 9 s job had ended. So the job runs 20 s, and the output keeps reconnecting
        // for up to 30 s: the player must still see seconds of the reconnected publish.
        let outage = DispatchGroup()
        nonisolated(unsafe) var outageError: (any Error)?
        nonisolated(unsafe) var player: BackgroundProcess?
        nonisolated(unsafe) var outageTimes = ""
        DispatchQueue.global().async(group: outage) {
            do {
                usleep(1_500_000)
                outageTimes += "kill \(Date().timeIntervalSince1970) "
                try server.control("kill")
                usleep(500_000)
                outageTimes += "start \(Date().timeIntervalSince1970) "
                try server.control("start")
                outageTimes += "play \(Date().timeIntervalSince1970)"
                player = try TestRTMP.play(output, into: late)
            } catch {
                outageError = error
            }
        }
        let outcome = try harness.run(json: """
            {"id": "restart", "input": "\(source)", "outputs": ["\(output)", "\(harness.path("archive.flv"))"],
             "max_duration_s": 20, "reconnect": {"attempts": 60, "initial_delay_s": 0.2, "max_delay_s": 0.5}}
            """)
        outage.wait()
        if let outageError { throw outageError }
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        #expect(result.reachedMaxDuration)

        let rows = try harness.store.outputs(jobID: "restart")
        #expect(rows[0].state == .succeeded)
        #expect(rows[0].reconnects >= 1)
        #expect(rows[0].lastError != nil)
        #expect(rows[1].state == .succeeded)
        // The archive is whole: trailer written, `.part` renamed, the first 20 s of frames.
        let names = try FileManager.default.contentsOfDirectory(atPath: harness.folder)
        #expect(names.contains("archive.flv") && !names.contains { $0.hasSuffix(".part") })
        let archived = try FrameHashes.of(harness.path("archive.flv"), .video)
        let archiveIsPrefix = Array(archived.dropLast(2)) == Array(try FrameHashes.of(source, .video).prefix(archived.count - 2))
        #expect(archiveIsPrefix, "the archive is not the source's first frames")
        #expect(archived.count >= 598 && archived.count <= 601, "archived \(archived.count) frames")

        // What the reconnected publish carried decodes as an unbroken run of source frames.
        let latePlayer = try #require(player)
        let events = try harness.store.events(jobID: "restart")
        let eventLines = events.map { "\($0.at.timeIntervalSince1970) \($0.kind) \($0.message ?? "")" }.joined(separator: "\n")
        #expect(latePlayer.wait(seconds: 15) == 0, "late player: \(latePlayer.stderr)\noutage: \(outageTimes)\nevents:\n\(eventLines)")
        let played = try FrameHashes.of(late, .video)
        #expect(played.count >= 60, "late player got \(played.count) frames")
        let lateIsRun = try FrameHashes.of(source, .video).containsContiguous(Array(played.dropLast(2)))
        #expect(lateIsRun, "the reconnected publish is not an unbroken run of source frames")
        let summary = try #require(events.last?.message)
        #expect(summary.contains("output reconnects") && summary.contains("stopped at max_duration_s"), "summary: \(summary)")
    }

    @Test("a pulled input whose publisher stops and comes back: the output carries on, timestamps continuous")
    func inputGap() throws {
        let source = try Fixtures.live(seconds: 6)
        let input = try TestRTMP.stream("gap")
        let harness = try JobHarness("rtmp-gap")
        // The job plays the stream before anything is published (nginx-rtmp holds a player until a publisher comes),
        // so it has the first publish from its start however late a loaded machine starts either side: a job started
        // 0.3 s after the publisher once came up after the 2 s publish had ended.
        let running = DispatchGroup()
        nonisolated(unsafe) var outcome: Result<JobOutcome, any Error>?
        DispatchQueue.global().async(group: running) {
            outcome = Result { try harness.run(json: """
                {"id": "gap", "input": {"url": "\(input)", "timeout_s": 10}, "outputs": ["\(harness.path("gap.flv"))"], "max_duration_s": 4}
                """) }
        }
        #expect(RTMPServerStatistics.waitForPlayer(input, seconds: 30), "the job never played the stream")
        // Two publishes of the same clip, a second apart; each starts its clock at zero again.
        try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", source,
                                         "-t", "2", "-c", "copy", "-f", "flv", input]).wait(seconds: 20)
        usleep(1_000_000)
        try TestRTMP.publish(source, to: input).wait(seconds: 20)
        running.wait()
        let ended = try #require(outcome, "the job never returned").get()
        let result = try #require(ended.succeeded, "job did not succeed: \(ended)")
        #expect(result.reachedMaxDuration)

        // Monotonic DTS per stream (FLVChecks) and no hole where the publisher was away.
        try FLVChecks.validate(harness.path("gap.flv"))
        let times = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts_time",
                                               "-of", "csv=p=0", harness.path("gap.flv")])
        let dts = times.text.split(separator: "\n").compactMap { Double($0) }
        let largestStep = zip(dts.dropFirst(), dts).map { $0 - $1 }.max() ?? 0
        #expect(largestStep < 0.2, "a \(largestStep) s hole in the video timestamps")
        #expect((dts.last ?? 0) > 3.5)
        // Both publishes are in it: two unbroken runs of source frames, the second from the clip's start
        // (each may end without its last B-frames: the first publish was cut at 2 s, the job at 4 s).
        let sourceVideo = try FrameHashes.of(source, .video)
        let archived = try FrameHashes.of(harness.path("gap.flv"), .video)
        let restart = try #require(archived.lastIndex(of: sourceVideo[0]), "the second publish is missing")
        let firstRun = sourceVideo.containsContiguous(Array(archived[..<restart].dropLast(2)))
        let secondRun = Array(archived[restart...].dropLast(2)) == Array(sourceVideo.prefix(archived.count - restart - 2))
        #expect(restart >= 15 && firstRun && secondRun, "runs: restart at \(restart), first \(firstRun), second \(secondRun)")
    }

    @Test("a publisher looping its file: the TS, FLV and MP4 outputs' DTS strictly increase per stream across the loop")
    func loopingPublisherDecodeOrder() throws {
        let source = try Fixtures.live(seconds: 3)
        let input = try TestRTMP.stream("loop")
        let harness = try JobHarness("rtmp-loop")
        let publisher = try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "2",
                                                         "-i", source, "-c", "copy", "-f", "flv", input])
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let outcome = try harness.run(json: """
            {"id": "loop", "input": {"url": "\(input)", "timeout_s": 5}, "outputs": ["\(harness.path("loop.ts"))", \
            "\(harness.path("loop.flv"))", "\(harness.path("loop.mp4"))"], "max_duration_s": 7}
            """)
        publisher.wait(seconds: 20)
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        #expect(result.reachedMaxDuration)
        for name in ["loop.ts", "loop.flv", "loop.mp4"] {
            let packets = try Command.run("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,dts", "-of", "csv=p=0",
                                                      harness.path(name)])
            var last: [Int: Int64] = [:]
            var backwards: [String] = []
            var count = 0
            for line in packets.text.split(separator: "\n") {
                let fields = line.split(separator: ",")
                guard fields.count == 2, let stream = Int(fields[0]), let dts = Int64(fields[1]) else { continue }
                if let previous = last[stream], dts <= previous { backwards.append("stream \(stream): \(previous) → \(dts)") }
                last[stream] = dts
                count += 1
            }
            #expect(count > 300 && last.count == 2, "\(name): \(count) packets in \(last.count) streams")
            #expect(backwards.isEmpty, "\(name): DTS not increasing: \(backwards.prefix(5))")
        }
    }

    @Test("RTMP carries no priming: a live .mp4 and HLS output give AAC LC 1,024 samples of it in their edit lists")
    func livePrimingEditList() throws {
        let source = try Fixtures.live(seconds: 3)
        let input = try TestRTMP.stream("priming")
        let harness = try JobHarness("rtmp-priming")
        let publisher = try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", source,
                                                         "-c", "copy", "-f", "flv", input])
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let outcome = try harness.run(json: """
            {"id": "priming", "input": {"url": "\(input)", "timeout_s": 5}, "outputs": ["\(harness.path("live.mp4"))", \
            {"url": "\(harness.path("hls/index.m3u8"))", "segment_s": 1}], "max_duration_s": 2}
            """)
        publisher.wait(seconds: 20)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        for name in ["live.mp4", "hls/index.m3u8"] {
            let first = AudioPrimingTests.fields(try AudioPrimingTests.firstAudioPacket(harness.path(name)).packet)
            #expect(first.count == 9 && first[1] == "-1024" && first[2] == "-1024" && first[6] == "S=1", "\(name): \(first)")
        }
    }

    @Test("a publisher whose clock wraps (FFmpeg's flvenc clears bit 31) is pulled onto one continuous timeline")
    func publisherClockWraps() throws {
        let source = try Fixtures.live(seconds: 6)
        let input = try TestRTMP.stream("wrap")
        let harness = try JobHarness("rtmp-wrap")
        // The clock offset is injected, not waited for: 2 s after joining, the published timestamps pass
        // 2^31 ms, where flvenc's 31-bit timestamps wrap to 0.
        let publisher = try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", source,
                                                         "-c", "copy", "-output_ts_offset", "2147481.5", "-f", "flv", input])
        usleep(700_000)
        let outcome = try harness.run(json: """
            {"id": "wrap", "input": {"url": "\(input)", "timeout_s": 5}, "outputs": ["\(harness.path("wrap.flv"))"], "max_duration_s": 4}
            """)
        publisher.wait(seconds: 10)
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        #expect(result.reachedMaxDuration)

        try FLVChecks.validate(harness.path("wrap.flv"))
        let times = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts_time",
                                               "-of", "csv=p=0", harness.path("wrap.flv")])
        let dts = times.text.split(separator: "\n").compactMap { Double($0) }
        let steps = zip(dts.dropFirst(), dts).map { $0 - $1 }
        #expect((steps.max() ?? 0) < 0.2 && (steps.min() ?? 0) > 0, "video DTS steps from \(steps.min() ?? 0) to \(steps.max() ?? 0) s")
        #expect((dts.last ?? 0) > 3.5 && (dts.last ?? 0) < 4.5)
        // One unbroken run of the published frames across the wrap.
        let sourceVideo = try FrameHashes.of(source, .video)
        let archived = try FrameHashes.of(harness.path("wrap.flv"), .video)
        #expect(archived.count >= 100)
        #expect(sourceVideo.containsContiguous(Array(archived.dropLast(2))), "archived video is not a run of the published frames")
    }
}
