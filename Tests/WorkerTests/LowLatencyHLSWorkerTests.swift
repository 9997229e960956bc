import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JobStore
import MediaFormats
import SluiceTestSupport
import Testing

/// Low-Latency HLS end to end: `sluice worker --http` pulls a live stream from the private nginx-rtmp into an HLS
/// output with `part_s` 0.33 and serves it under /hls/ with blocking reload; our parser, ffprobe and ffmpeg read it.
@Suite(.enabled(if: PrivateBroker.isAvailable && LowLatencyRTMP.url != nil, "needs the private broker and nginx-rtmp"),
       .timeLimit(.minutes(3)))
struct LowLatencyHLSWorkerTests {

    struct Reply {
        var status: Int
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func get(_ url: String) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.timeoutInterval = 30
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return Reply(status: try #require(response as? HTTPURLResponse).statusCode, body: data)
    }

    @Test("part_s 0.33: blocking reload returns once the next part is listed; the playlist parses here and in ffprobe/ffmpeg over HTTP; a delta update skips; the end is ENDLIST and 404")
    func liveParts() async throws {
        let harness = try await QueueHarness("wk-llhls")
        let clip = (Media.inputRoot as NSString).appendingPathComponent(try await Media.clip(seconds: 60))
        let source = "llhls-\(UUID().uuidString.prefix(8).lowercased())"
        let input = "\(try #require(LowLatencyRTMP.url))/\(source)"
        // The clip (30 fps, a keyframe a second) at 1×, longer than the job (a looped clip's audio overlaps at the wrap).
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        publisher.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", clip,
                               "-c", "copy", "-f", "flv", input]
        publisher.standardInput = FileHandle.nullDevice
        publisher.standardOutput = FileHandle.nullDevice
        publisher.standardError = FileHandle.nullDevice
        try publisher.run()
        defer { if publisher.isRunning { publisher.terminate() } }

        let worker = try harness.startWorker(id: "w-llhls", ["--http", "127.0.0.1:0"])
        var base: String?
        _ = await eventually(timeout: .seconds(15)) {
            base = worker.log.firstMatch(of: /on (http:\/\/127\.0\.0\.1:[0-9]+)\//).map { String($0.1) }
            return base != nil
        }
        let http = try #require(base, "no listening line: \(worker.log)")
        let id = "llhls-job"
        try await harness.enqueue(#"""
            {"id": "\#(id)", "input": {"url": "\#(input)", "timeout_s": 15},
             "outputs": [{"url": "cam/index.m3u8", "segment_s": 1, "part_s": 0.33, "window": 10}], "max_duration_s": 24}
            """#)
        let url = "\(http)/hls/\(id)/0/index.m3u8"

        // The first parts: the playlist is served once the job has one.
        var first: HLSMediaPlaylist?
        _ = try await eventually(timeout: .seconds(30)) {
            let reply = try await Self.get(url)
            if reply.status == 200 { first = try HLSMediaPlaylist(parsing: reply.text) }
            return first.map { !$0.openSegment.parts.isEmpty || !$0.segments.isEmpty } ?? false
        }
        let playlist = try #require(first, "no live playlist: \(worker.log.suffix(3000))")
        try playlist.validate()
        #expect(playlist.partTarget.map { abs($0 - 1.0 / 3) < 0.001 } == true, "\(playlist)")
        #expect(playlist.serverControl?.canBlockReload == true)
        #expect((playlist.serverControl?.partHoldBack ?? 0) >= 1.0)
        #expect(playlist.serverControl?.canSkipUntil == 6)
        #expect(playlist.preloadHint != nil && playlist.mapURI == "index-init.mp4")

        // Blocking reload for the part after the last one listed: answered once that part is listed.
        for _ in 0..<5 {
            let plain = try await Self.get(url)
            try #require(plain.status == 200, "\(plain.status) \(plain.text): \(worker.log.suffix(3000))")
            let current = try HLSMediaPlaylist(parsing: plain.text)
            let msn = current.nextMediaSequence
            let part = current.openSegment.parts.count
            let reply = try await Self.get(url + "?_HLS_msn=\(msn)&_HLS_part=\(part)")
            try #require(reply.status == 200, "\(reply.status) \(reply.text): \(worker.log.suffix(3000))")
            let answered = try HLSMediaPlaylist(parsing: reply.text)
            let listed = answered.nextMediaSequence > msn || answered.openSegment.parts.count > part
            #expect(listed, "asked for part \(part) of \(msn), got \(reply.text)")
            // The hinted part is fetched: one moof + mdat.
            if let hint = answered.preloadHint?.uri {
                let bytes = try await Self.get("\(http)/hls/\(id)/0/\(hint)")
                #expect(bytes.status == 200 && bytes.body.count > 8 && bytes.text.contains("moof"), "\(hint): \(bytes.status)")
            }
        }

        // A segment still listing its parts is those parts joined, byte for byte; its first part starts at a keyframe.
        let listing = try HLSMediaPlaylist(parsing: try await Self.get(url).text)
        let withParts = try #require(listing.segments.last { !$0.parts.isEmpty }, "no completed segment lists its parts: \(listing)")
        var joined = Data()
        for part in withParts.parts { joined.append(try await Self.get("\(http)/hls/\(id)/0/\(part.uri)").body) }
        let segment = try await Self.get("\(http)/hls/\(id)/0/\(withParts.uri)")
        #expect(segment.status == 200 && !segment.body.isEmpty && segment.body == joined, "\(withParts.uri): \(segment.body.count) bytes, parts \(joined.count)")
        #expect(withParts.parts.first?.independent == true && withParts.parts.count >= 2, "\(withParts.parts)")
        #expect(withParts.parts.allSatisfy { $0.duration <= listing.partTarget ?? 0 }, "\(withParts.parts)")
        // As many parts as part_s promises: a whole 1 s segment of the 30 fps source is three (ten frames each).
        for segment in listing.segments where !segment.parts.isEmpty && abs(segment.duration - 1) < 0.01 {
            #expect(segment.parts.count == 3, "\(segment.uri): \(segment.parts.map(\.duration))")
        }

        // ffprobe and ffmpeg read the live playlist over HTTP (they ignore the Low-Latency tags, as §6.3.1 lets them).
        let probed = try await Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", url])
        #expect(probed.status == 0 && probed.output.contains("h264") && probed.output.contains("aac"), "\(probed.output)")
        let played = try await Subprocess.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url, "-t", "2", "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(played.status == 0, "\(played.output)")

        // Seven 1 s segments are past the 6 s skip boundary: a delta update skips the oldest.
        var delta: HLSMediaPlaylist?
        _ = try await eventually(timeout: .seconds(30)) {
            let reply = try await Self.get(url + "?_HLS_skip=YES")
            guard reply.status == 200 else { return false }
            delta = try HLSMediaPlaylist(parsing: reply.text)
            return (delta?.skippedSegments ?? 0) > 0
        }
        let skipped = try #require(delta, "no delta update")
        #expect(skipped.skippedSegments > 0, "\(skipped)")

        // The end: the job succeeds, the playlist on disk ends with ENDLIST and is no longer served live.
        let ended = try await eventually(timeout: .seconds(60)) { try harness.job(id)?.state == .succeeded }
        try #require(ended, "\(worker.log.suffix(3000))")
        let final = try HLSMediaPlaylist(parsing: try String(contentsOfFile: harness.output("cam/index.m3u8"), encoding: .utf8))
        #expect(final.endList && final.segments.allSatisfy(\.parts.isEmpty))
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: harness.output("cam")))
        #expect(files == Set(["index.m3u8", "index-init.mp4"] + final.segments.map(\.uri)), "\(files.sorted())")
        #expect(try await Self.get(url).status == 404)
    }
}

/// The private nginx-rtmp the test script starts (`rtmp://127.0.0.1:PORT/live`).
enum LowLatencyRTMP {
    static let url = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"]
}
