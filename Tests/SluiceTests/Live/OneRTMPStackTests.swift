import Foundation
import JobStore
import LiveRelay
import SluiceTestSupport
import Testing
@testable import Sluice

/// A blocking job run on a thread of its own, so that several jobs (or a job and its publishers) run side by side.
final class JobOnThread: @unchecked Sendable {
    // Reason: `outcome` is written once by the thread before `done` is signalled, and read only after the wait.
    private var outcome: Result<JobOutcome, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> JobOutcome) {
        let thread = Thread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
        thread.start()
    }

    /// The job's outcome, or nil when it did not end within `seconds`.
    func wait(seconds: Double) throws -> JobOutcome? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return try outcome?.get()
    }
}

/// Every job's RTMP goes through the relay engine: file jobs publishing to RTMP, live inputs to encode,
/// listens of any kind on one shared port, RTMPS verified for all of them.
@Suite("One RTMP stack for every job", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct OneRTMPStackTests {
    static func key(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test("a file job publishes through the engine at 1x: a player connected before gets every video and audio frame")
    func fileToRTMP() throws {
        let source = try Fixtures.live(seconds: 3)
        let harness = try JobHarness("file-to-rtmp")
        let url = try #require(TestRTMP.url) + "/" + Self.key("file")
        // Idle for up to 6 s: the job may take a moment to start on a loaded machine.
        let player = try TestRTMP.play(url, into: harness.path("played.flv"), idle: 6)
        #expect(RTMPServerStatistics.waitForPlayer(url), "the player never attached to nginx-rtmp")
        let started = Stopwatch()
        let outcome = try harness.run(json: #"{"id": "file-to-rtmp", "input": "\#(source)", "outputs": ["\#(url)"]}"#)
        #expect(outcome.succeeded != nil, "job: \(outcome)")
        // Paced like `ffmpeg -re`: 3 s of media take about 3 s.
        #expect(started.seconds >= 2.5)
        #expect(player.wait(seconds: 30) == 0, "player: \(player.stderr)")
        #expect(try FrameHashes.of(harness.path("played.flv"), .video) == FrameHashes.of(source, .video))
        #expect(try FrameHashes.of(harness.path("played.flv"), .audio) == FrameHashes.of(source, .audio))
        let row = try #require(try harness.store.outputs(jobID: "file-to-rtmp").first)
        #expect(row.state == .succeeded && row.frames == 90 && row.bytes > 0, "\(row)")
        #expect(row.url.hasSuffix("/live/***"))
    }

    @Test("a live pull encoded to 320x180: the destination and the archive play at that size, .h264 and .aac decode")
    func livePullEncoded() throws {
        let source = try Fixtures.live(seconds: 6)
        let harness = try JobHarness("live-encode")
        let base = try #require(TestRTMP.url)
        let input = base + "/" + Self.key("enc-src")
        let output = base + "/" + Self.key("enc-dst")
        let player = try TestRTMP.play(output, into: harness.path("played.flv"), idle: TestRTMP.pullingJob)
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        let publisher = try TestRTMP.publish(source, to: input)
        defer { _ = publisher.wait(seconds: 10) }
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let outcome = try harness.run(json: """
            {"id": "live-encode", "input": {"url": "\(input)", "timeout_s": 5},
             "video": {"mode": "encode", "encoder": "software", "width": 320, "height": 180, "bitrate_kbps": 300, "fps": 30, "gop_s": 1},
             "audio": {"mode": "encode", "bitrate_kbps": 64},
             "outputs": ["\(output)", "\(harness.path("enc.flv"))", "\(harness.path("enc.h264"))", "\(harness.path("enc.aac"))"],
             "max_duration_s": 3}
            """)
        #expect(outcome.succeeded != nil, "job: \(outcome)")
        #expect(player.wait(seconds: 3 * TestRTMP.pullingJob + 15) == 0, "player: \(player.stderr)")
        for file in ["played.flv", "enc.flv", "enc.h264"] {
            let video = try Probe.streams(harness.path(file), "v")
            #expect(video.count == 1 && video.first?.width == 320 && video.first?.height == 180, "\(file): \(video)")
            #expect(try Probe.decodeErrors(harness.path(file)).isEmpty, "\(file) does not decode cleanly")
        }
        // 3 s at 30 fps, cut at max_duration_s.
        let frames = try Probe.frameCount(harness.path("enc.h264"), "v")
        #expect(frames >= 80 && frames <= 92, "enc.h264: \(frames) frames")
        #expect(try Probe.streams(harness.path("enc.aac"), "a").first?.codec == "aac")
        #expect(try Probe.frameCount(harness.path("enc.aac"), "a") > 120)
        #expect(try Probe.streams(harness.path("played.flv"), "a").first?.codec == "aac")
    }

    @Test("a live ladder: one pull published as copy and 180p, archived at 120p; every rung plays at its size")
    func liveLadder() throws {
        let source = try Fixtures.live(seconds: 10)  // 320x240, 30 fps
        let harness = try JobHarness("live-ladder")
        let base = try #require(TestRTMP.url)
        let input = base + "/" + Self.key("ladder-src")
        let copy = base + "/" + Self.key("ladder-copy")
        let rung = base + "/" + Self.key("ladder-180")
        // Attached before the job starts, so they must wait out its start (libav loaded, x264 opened): in CI, beside
        // the other suites, the 180p rung's first frame came more than the default 3 s after the play, and its player
        // gave up (EIO) with nothing written.
        let copyPlayer = try TestRTMP.play(copy, into: harness.path("copy.flv"), idle: 12)
        let rungPlayer = try TestRTMP.play(rung, into: harness.path("180.flv"), idle: 12)
        #expect(RTMPServerStatistics.waitForPlayer(copy) && RTMPServerStatistics.waitForPlayer(rung), "a player never attached")
        let publisher = try TestRTMP.publish(source, to: input)
        defer { _ = publisher.wait(seconds: 10) }
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let outcome = try harness.run(json: """
            {"id": "live-ladder", "input": {"url": "\(input)", "timeout_s": 5},
             "audio": {"mode": "encode", "bitrate_kbps": 64},
             "outputs": [
               {"url": "\(copy)", "audio": {"mode": "copy"}},
               {"url": "\(rung)", "video": {"mode": "encode", "encoder": "software", "height": 180, "bitrate_kbps": 300, "gop_s": 1}},
               {"url": "\(harness.path("120.flv"))", "video": {"mode": "encode", "encoder": "software", "height": 120, "bitrate_kbps": 150, "gop_s": 1}}],
             "max_duration_s": 6}
            """)
        #expect(outcome.succeeded != nil, "job: \(outcome)")
        // A player of nginx-rtmp fails when the stream ends before it has probed it (a loaded machine once left the
        // 3 s job's encoded rung too short for that): the job runs 6 s, and a failure shows what each output sent.
        let rows = try harness.store.outputs(jobID: "live-ladder").map { "\($0.state) \($0.bytes) bytes \($0.lastError ?? "")" }
        // A player of nginx-rtmp ends when its 12 s without data run out (an unpublish does not end it): 30 s bounds that.
        #expect(copyPlayer.wait(seconds: 30) == 0, "copy player: \(copyPlayer.stderr); outputs: \(rows)")
        #expect(rungPlayer.wait(seconds: 30) == 0, "180p player: \(rungPlayer.stderr); outputs: \(rows)")
        for (file, width, height) in [("copy.flv", 320, 240), ("180.flv", 240, 180), ("120.flv", 160, 120)] {
            let video = try Probe.streams(harness.path(file), "v")
            #expect(video.count == 1 && video.first?.width == width && video.first?.height == height, "\(file): \(video)")
            #expect(try Probe.decodeErrors(harness.path(file)).isEmpty, "\(file) does not decode cleanly")
            #expect(try Probe.streams(harness.path(file), "a").first?.codec == "aac", "\(file)")
            let frames = try Probe.frameCount(harness.path(file), "v")
            #expect(frames >= 170 && frames <= 182, "\(file): \(frames) frames, want about 6 s at 30 fps")
        }
        // The copy rung is lossless: the frames played are a run of the source's frames, in order.
        let played = try FrameHashes.of(harness.path("copy.flv"), .video)
        let original = try FrameHashes.of(source, .video)
        let start = try #require(played.first.flatMap { original.firstIndex(of: $0) }, "the copy's first frame is not the source's")
        #expect(Array(original[start..<min(start + played.count, original.count)]) == played)
    }

    @Test("one port, a copy listen job with .h264/.aac outputs and an encode listen job: each publisher reaches its job")
    func copyAndEncodeListenersShareAPort() throws {
        let source = try Fixtures.live(seconds: 4)
        let harness = try JobHarness("shared-port")
        let port = try TestRTMP.freePort()
        let copyKey = Self.key("copy")
        let encodeKey = Self.key("encode")
        let copy = JobOnThread {
            try harness.run(json: """
                {"id": "listen-copy", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/\(copyKey)", "listen": true, "timeout_s": 8},
                 "outputs": ["\(harness.path("copy.flv"))", "\(harness.path("copy.h264"))", "\(harness.path("copy.aac"))"]}
                """)
        }
        let encode = JobOnThread {
            try harness.run(json: """
                {"id": "listen-encode", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/\(encodeKey)", "listen": true, "timeout_s": 8},
                 "video": {"mode": "encode", "encoder": "software", "width": 160, "height": 120, "bitrate_kbps": 200},
                 "outputs": ["\(harness.path("encode.flv"))"]}
                """)
        }
        #expect(ListeningPort.wait(port), "the listen job never listened on \(port)")
        usleep(300_000)
        let first = try TestRTMP.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/\(copyKey)")
        let second = try TestRTMP.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/\(encodeKey)")
        #expect(first.wait(seconds: 20) == 0, "copy publisher: \(first.stderr)")
        #expect(second.wait(seconds: 20) == 0, "encode publisher: \(second.stderr)")
        let copied = try #require(try copy.wait(seconds: 30), "the copy listen job did not end")
        let encoded = try #require(try encode.wait(seconds: 30), "the encode listen job did not end")
        #expect(copied.succeeded != nil, "copy job: \(copied)")
        #expect(encoded.succeeded != nil, "encode job: \(encoded)")
        // The copy job's publisher was routed to it from its first frame: every frame, in each format.
        let published = try FrameHashes.of(source, .video)
        #expect(try FrameHashes.of(harness.path("copy.flv"), .video) == published)
        #expect(try FrameHashes.of(harness.path("copy.h264"), .video) == published)
        #expect(try FrameHashes.of(harness.path("copy.aac"), .audio) == FrameHashes.of(source, .audio))
        let video = try Probe.streams(harness.path("encode.flv"), "v")
        #expect(video.first?.width == 160 && video.first?.height == 120, "encode.flv: \(video)")
        #expect(try Probe.frameCount(harness.path("encode.flv"), "v") == published.count)
    }

    /// GStreamer's flvmux sends onMetaData again and again during a publish: an archive keeps only the first, at 0.
    @Test("ffmpeg, GStreamer rtmp2sink and GStreamer rtmpsink (librtmp) into listen jobs: each archive is exactly h264 + aac, every frame")
    func independentPublishers() throws {
        let source = try Fixtures.live(seconds: 3)
        let published = try FrameHashes.of(source, .video)
        let harness = try JobHarness("publishers")
        for client in ["ffmpeg", "rtmp2sink", "rtmpsink"] {
            let port = try TestRTMP.freePort()
            let key = Self.key(client)
            let url = "rtmp://127.0.0.1:\(port)/ingest/\(key)"
            let archive = harness.path("\(client).flv")
            // A listen job waits `timeout_s` for its first publisher as for a returning one: under load gst-launch
            // takes seconds to start (at 2 s, the job once ended before rtmp2sink connected, which was then refused).
            let job = JobOnThread {
                try harness.run(json: #"{"id": "publisher-\#(client)", "input": {"url": "\#(url)", "listen": true, "timeout_s": 8}, "outputs": ["\#(archive)"]}"#)
            }
            #expect(ListeningPort.wait(port), "the listen job never listened on \(port)")
            let publisher: BackgroundProcess
            if client == "ffmpeg" {
                publisher = try TestRTMP.publish(source, to: url)
            } else {
                publisher = try BackgroundProcess("gst-launch-1.0", [
                    "-q", "filesrc", "location=\(source)", "!", "qtdemux", "name=d", "d.video_0", "!", "queue", "!", "h264parse", "!",
                    "flvmux", "name=m", "streamable=true", "!", client, "location=\(url)",
                    "d.audio_0", "!", "queue", "!", "aacparse", "!", "m."])
            }
            #expect(publisher.wait(seconds: 30) == 0, "\(client): \(publisher.stderr)")
            let outcome = try #require(try job.wait(seconds: 30), "\(client): the listen job did not end")
            #expect(outcome.succeeded != nil, "\(client): \(outcome)")
            let kinds = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", archive]).text
            #expect(kinds.split(separator: "\n").sorted() == ["aac", "h264"], "\(client): ffprobe sees \(kinds)")
            #expect(try FrameHashes.of(archive, .video) == published, "\(client): the archive lost or changed frames")
            let first = try Probe.frames(archive, "v").first?.time
            #expect(first.map { $0 < 0.1 } == true, "\(client): the archive starts at \(first ?? -1) s")
        }
    }

    @Test("RTMPS outputs of a file job, an encode job and a pull: an untrusted server fails the output by its certificate, a trusted one takes it")
    func rtmpsVerifiedForEveryJob() throws {
        let ca = try #require(TestRTMPS.caFile, "SLUICE_TEST_RTMPS_CA is unset")
        let source = try Fixtures.live(seconds: 2)
        let harness = try JobHarness("rtmps-every-job")
        // Only the system's trust store: the terminator's certificate is signed by the run's own CA.
        let untrusted = RelayEngine(RelaySettings(rtmpsCAFile: nil))
        defer { untrusted.shutdown() }
        let pulled = try TestRTMPS.stream("tls-pull-src")
        let inputs: [(name: String, input: String, extra: String)] = [
            ("file", #""\#(source)""#, ""),
            ("encode", #""\#(source)""#, #", "video": {"mode": "encode", "encoder": "software", "width": 160, "height": 120}"#),
            ("pull", #"{"url": "\#(pulled.plain)", "timeout_s": 5}"#, #", "max_duration_s": 2"#),
        ]
        for (name, input, extra) in inputs {
            for trusted in [false, true] {
                let id = "rtmps-\(name)-\(trusted ? "trusted" : "untrusted")"
                let stream = try TestRTMPS.stream(id)
                let player = try TestRTMP.play(stream.plain, into: harness.path("\(id).flv"))
                #expect(RTMPServerStatistics.waitForPlayer(stream.plain), "the player never attached to nginx-rtmp")
                let publisher = name == "pull" ? try TestRTMP.publish(try Fixtures.live(seconds: 6), to: pulled.plain) : nil
                defer { _ = publisher?.wait(seconds: 0) }
                usleep(700_000)
                let json = #"{"id": "\#(id)", "input": \#(input), "outputs": ["\#(stream.tls)"], "reconnect": {"attempts": 0}\#(extra)}"#
                let outcome = try harness.runner.run(document: Data(json.utf8), relay: trusted ? JobHarness.liveEngine : untrusted)
                let row = try #require(try harness.store.outputs(jobID: id).first)
                _ = player.wait(seconds: 10)
                let played = (try? FrameHashes.of(harness.path("\(id).flv"), .video)) ?? []
                if trusted {
                    // Trusted, the output took the job's media over TLS without an error: its row and the player show
                    // that media came through. How much is not this test's question (a file job publishes as fast as it
                    // reads; under ThreadSanitizer in CI nginx-rtmp dropped half of that burst to a player that fell
                    // behind, and the row once counted 30 of the 60 frames at the job's end).
                    #expect(outcome.succeeded != nil, "\(id): \(outcome)")
                    #expect(row.frames > 0 && row.state == .succeeded && row.lastError == nil, "\(id): \(row)")
                    #expect(!played.isEmpty, "\(id): the trusted destination played nothing")
                } else {
                    #expect(outcome.succeeded == nil, "\(id) succeeded against a server it cannot authenticate")
                    #expect(row.lastError?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(id): \(row)")
                    #expect(outcome.failureMessage?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(id): \(outcome)")
                    #expect(played.isEmpty, "\(id): \(played.count) frames reached a server that was not verified")
                }
            }
        }
        #expect(!ca.isEmpty)
    }
}
