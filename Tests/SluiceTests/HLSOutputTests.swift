import Foundation
import MediaFormats
import SluiceTestSupport
import Testing
@testable import Sluice
import JobDocument

/// HLS outputs (docs/JOBS.md): fragmented MP4 segments cut at keyframes and a playlist, as players take them:
/// ffmpeg 5.1 and FFmpeg 8 decode the input's frames from the playlist, GStreamer's hlsdemux plays it to the end.
@Suite("HLS outputs", .serialized)
struct HLSOutputTests {
    @Test("a file copied to HLS: a VOD playlist of keyframe-cut segments that decodes to the input's frames in ffmpeg 5.1, FFmpeg 8 and GStreamer")
    func vodFromFile() throws {
        let input = try Fixtures.mp4BFrames()
        let harness = try JobHarness("hls-vod")
        let playlistPath = harness.path("hls/index.m3u8")
        let outcome = try harness.run(.object(["id": .string("hls-vod"), "input": .string(input), "outputs": .array([
            .object(["url": .string(playlistPath), "segment_s": .number(1)]),
        ])]))
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        let playlist = try HLSMediaPlaylist(parsing: String(decoding: try Data(contentsOf: URL(fileURLWithPath: playlistPath)), as: UTF8.self))
        #expect(playlist.playlistType == .vod && playlist.endList)
        #expect(playlist.mapURI == "index-init.mp4")
        // 3 s with a keyframe every 30 frames: segments of at least a second each.
        let keyframes = try Self.keyframeTimes(input)
        #expect(playlist.segments.count >= 2, "\(playlist.segments.count) segments for keyframes at \(keyframes)")
        #expect(abs(playlist.segments.map(\.duration).reduce(0, +) - 3) < 0.1)
        let folder = harness.path("hls")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder))
                == Set(["index.m3u8", "index-init.mp4"] + playlist.segments.map(\.uri)), "no part or stray file left")
        // Every segment starts with a keyframe: its first video packet, read after the init segment, is flagged K.
        let initSegment = try Data(contentsOf: URL(fileURLWithPath: folder + "/index-init.mp4"))
        for segment in playlist.segments {
            let joined = harness.path("probe-\(segment.uri).mp4")
            var bytes = initSegment
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment.uri)))
            try bytes.write(to: URL(fileURLWithPath: joined))
            let flags = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                                                     "-of", "csv=p=0", joined]).text
            #expect(flags.split(separator: "\n").first?.hasPrefix("K") == true, "\(segment.uri) starts with \(flags.prefix(20))")
        }

        // ffmpeg 5.1: the decoded frames of the playlist equal the input's.
        for kind in [FrameHashes.Kind.video, .audio] {
            let expected = try FrameHashes.of(input, kind)
            #expect(expected.count > 10)
            #expect(try FrameHashes.of(playlistPath, kind) == expected, "\(kind) differs")
        }
        // FFmpeg 8 (PyAV): the same video frames, and no error.
        if EnhancedReferee.isAvailable {
            let decoded = try EnhancedReferee.decode(playlistPath)
            let source = try EnhancedReferee.decode(input)
            #expect(decoded.errors.isEmpty, "\(decoded.errors)")
            #expect(decoded.video?.hashes == source.video?.hashes && (decoded.video?.frames ?? 0) > 10)
            #expect((decoded.audio?.frames ?? 0) > 10)
        }
        // GStreamer: playbin picks hlsdemux and plays to the end.
        let played = try Command.run("gst-launch-1.0", ["-v", "playbin", "uri=file://" + playlistPath,
                                                         "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"], check: false)
        #expect(played.status == 0, "\(played.text.suffix(2000))")
        #expect(played.text.contains("GstHLSDemux") && played.text.contains("Got EOS"), "\(played.text.suffix(2000))")
        #expect(!played.text.contains("ERROR"), "\(played.text.suffix(2000))")
    }

    @Test("a job that fails leaves none of its HLS output behind: no playlist, no init segment, no segment")
    func failedJobRemovesSegments() throws {
        let harness = try JobHarness("hls-failed")
        // The .mp4 output fails when the SPS changes half way, after the HLS output wrote its first segments.
        let outcome = try harness.run(.object(["id": .string("hls-failed"), "input": .string(try Fixtures.resolutionChange()),
                                                "outputs": .array([
            .object(["url": .string(harness.path("hls/index.m3u8")), "segment_s": .number(1)]),
            .string(harness.path("out.mp4")),
        ])]))
        guard case .failed = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: harness.path("hls"))) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// The input's video keyframe times, seconds (for the messages).
    static func keyframeTimes(_ path: String) throws -> [String] {
        try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-skip_frame", "nokey", "-show_entries", "frame=pts_time",
                                    "-of", "csv=p=0", path]).text.split(separator: "\n").map(String.init)
    }
}

/// A live pull to HLS: the playlist is replaced while the job runs and keeps its window; at the end it is a whole
/// event that decodes to the frames pulled.
@Suite("HLS outputs of live jobs", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct LiveHLSOutputTests {
    @Test("RTMP pull → HLS with window 3: a live playlist of at most 3 segments while it runs, ENDLIST and no older segment at the end")
    func liveWindow() throws {
        let source = try Fixtures.live(seconds: 12)
        let input = try TestRTMP.stream("hls-src")
        let harness = try JobHarness("hls-live")
        let playlistPath = harness.path("live/index.m3u8")
        let publisher = try TestRTMP.publish(source, to: input)
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let watcher = PlaylistWatcher(path: playlistPath)
        let outcome = try harness.run(json: """
            {"id": "hls-live", "input": {"url": "\(input)", "timeout_s": 5},
             "outputs": [{"url": "\(playlistPath)", "segment_s": 1, "window": 3}], "max_duration_s": 7}
            """)
        watcher.stop()
        publisher.wait(seconds: 15)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        // While the job ran: live playlists (no ENDLIST) of at most three segments, or one more when the three newest
        // last less than three target durations (the shortest a live playlist may be, RFC 8216bis §6.2.2: a keyframe
        // early in the input cuts a short segment), the media sequence moving on.
        let seen = watcher.playlists
        #expect(watcher.unreadableVersions.isEmpty, "\(watcher.unreadableVersions)")
        let live = seen.filter { !$0.endList }
        #expect(!live.isEmpty, "no live playlist was seen while the job ran")
        let keepsItsWindow = { (playlist: HLSMediaPlaylist) in
            playlist.segments.count <= 3
                || (playlist.segments.count == 4 && playlist.segments.dropFirst().reduce(0) { $0 + $1.duration } < 3)
        }
        #expect(live.allSatisfy { keepsItsWindow($0) && $0.playlistType == nil },
                "\(live.map { $0.segments.map(\.duration) })")
        #expect((live.map(\.mediaSequence).max() ?? 0) > 0, "the window never slid")
        // At the end: the last window with ENDLIST, the segments that left it deleted.
        let final = try HLSMediaPlaylist(parsing: String(decoding: try Data(contentsOf: URL(fileURLWithPath: playlistPath)), as: UTF8.self))
        // At most 3 segments, or one more when the last, cut short by max_duration_s, would leave the window under three
        // target durations (the window's rule, RFC 8216bis §6.2.2).
        let withoutOldest = final.segments.dropFirst().reduce(0) { $0 + $1.duration }
        #expect(final.endList && (final.segments.count <= 3 || (final.segments.count == 4 && withoutOldest < 3)), "\(final.render())")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: harness.path("live")))
        #expect(files == Set(["index.m3u8", "index-init.mp4"] + final.segments.map(\.uri)), "\(files.sorted())")
        // What the last window holds decodes to a run of the published frames.
        let published = try FrameHashes.of(source, .video)
        let played = try FrameHashes.of(playlistPath, .video)
        #expect(played.count >= 20, "\(played.count) frames in the last window")
        // A cut at max_duration_s in decode order can leave the last B-frames without their packets.
        #expect(published.containsContiguous(Array(played.dropLast(2))), "the last window is not a run of the published frames")
    }

    @Test("a looping publisher (its audio overlaps at each loop) to HLS and .mp4: both outputs go on through three loops and decode without an error")
    func loopingPublisher() throws {
        let source = try Fixtures.live(seconds: 3)
        let input = try TestRTMP.stream("hls-loop")
        let harness = try JobHarness("hls-loop")
        let publisher = try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                                         "-i", source, "-c", "copy", "-f", "flv", input])
        defer { publisher.end() }
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let playlist = harness.path("loop/index.m3u8"), recording = harness.path("loop.mp4")
        let outcome = try harness.run(json: """
            {"id": "hls-loop", "input": {"url": "\(input)", "timeout_s": 5},
             "outputs": [{"url": "\(playlist)", "segment_s": 1}, "\(recording)"], "max_duration_s": 10}
            """)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        for output in [playlist, recording] {
            let decode = try Command.run("ffmpeg", ["-v", "error", "-i", output, "-enc_time_base:v", "-1", "-f", "null", "-"])
            #expect(decode.stderr.isEmpty, "\(output): \(decode.stderr)")
            let seconds = try Probe.frameCount(output, "v")
            #expect(seconds >= 240, "\(output): \(seconds) frames of about 300")
        }
    }
}

/// Reads a playlist every 50 ms on a thread of its own until stopped, keeping each distinct version that parses.
final class PlaylistWatcher: @unchecked Sendable {
    // Reason: `seen`, `unreadable` and `running` are guarded by `lock`; `last` is the thread's own.
    private let lock = NSLock()
    private var seen: [HLSMediaPlaylist] = []
    private var unreadable: [String] = []
    private var running = true
    private var last = ""
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                if let data = FileManager.default.contents(atPath: path) {
                    let text = String(decoding: data, as: UTF8.self)
                    // A playlist is replaced whole (renamed into place), so every read is a whole version.
                    if text != last {
                        last = text
                        do {
                            let playlist = try HLSMediaPlaylist(parsing: text)
                            lock.withLock { seen.append(playlist) }
                        } catch {
                            lock.withLock { unreadable.append("\(error): \(text)") }
                        }
                    }
                }
                usleep(50_000)
            }
            done.signal()
        }
        thread.start()
    }

    var playlists: [HLSMediaPlaylist] { lock.withLock { seen } }
    /// Versions that did not parse (a playlist written in place rather than replaced whole would show here).
    var unreadableVersions: [String] { lock.withLock { unreadable } }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}
