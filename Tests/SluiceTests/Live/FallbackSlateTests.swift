import Foundation
import JobDocument
import JobStore
import MediaEngine
import MediaFormats
import SluiceTestSupport
import Testing
@testable import Sluice
import MediaJob

/// A broadcast that never drops. A player on the destination from the start sees one unbroken stream while
/// the publisher goes away and comes back: the slate in between, at the stream's size, without a gap.
@Suite("Fallback slate", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct FallbackSlateTests {
    static func key(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    static let playArrivals = URL(fileURLWithPath: #filePath)
        .appendingPathComponent("../../../../scripts/lib/play-arrivals.py").standardizedFileURL.path

    /// An independent player (ffmpeg, via scripts/lib/play-arrivals.py) recording what reaches `url` and when.
    struct Player {
        let process: BackgroundProcess
        let file: String
        let arrivals: String

        init(_ url: String, harness: JobHarness, name: String, idle: Double = 4) throws {
            file = harness.path("\(name).flv")
            arrivals = harness.path("\(name).csv")
            process = try BackgroundProcess("python3", [FallbackSlateTests.playArrivals, url, file, arrivals, String(idle)])
        }

        /// (seconds since the first byte, timestamp ms) of every coded video tag received.
        func videoTags() throws -> [(arrival: Double, timestamp: Int64)] {
            try String(contentsOfFile: arrivals, encoding: .utf8).split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",")
                guard fields.count == 2, let arrival = Double(fields[0]), let stamp = Int64(fields[1]) else { return nil }
                return (arrival, stamp)
            }
        }
    }

    /// The largest gap between consecutive video tags, in arrival seconds and in timestamp seconds, and the span.
    static func gaps(_ tags: [(arrival: Double, timestamp: Int64)]) -> (arrival: Double, timestamp: Double, span: Double, at: String) {
        var arrival = 0.0
        var stamp = 0.0
        var at = ""
        for (previous, next) in zip(tags, tags.dropFirst()) {
            if next.arrival - previous.arrival > arrival {
                arrival = next.arrival - previous.arrival
                at = "after the tag stamped \(previous.timestamp) ms that arrived at \(previous.arrival) s"
            }
            stamp = max(stamp, Double(next.timestamp - previous.timestamp) / 1000)
        }
        let span = Double((tags.last?.timestamp ?? 0) - (tags.first?.timestamp ?? 0)) / 1000
        return (arrival, stamp, span, at)
    }

    /// Every decoded picture's size, once each.
    static func pictureSizes(_ path: String) throws -> Set<String> {
        let result = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0", path])
        // A frame with side data ends its line with an empty field ("320,240,").
        return Set(String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") })
    }

    /// What the player got must be one unbroken stream: no gap over 3 s in arrival (1.5 s in timestamps), one picture size,
    /// nothing undecodable, and at least `span` seconds of media.
    static func expectUnbroken(_ player: Player, size: String, span: Double, _ context: String) throws {
        let tags = try player.videoTags()
        let gaps = gaps(tags)
        #expect(tags.count > 100, "\(context): \(tags.count) video tags reached the player")
        // Arrivals are judged up to the last half second of media: the player's ffmpeg holds the stream's last video
        // packets back until its input ends when the last audio packets came earlier (it interleaves by time), so
        // they arrive with the end of the stream, seconds after the job finished, not with the job.
        let lastStamp = tags.last?.timestamp ?? 0
        let running = Self.gaps(tags.filter { $0.timestamp <= lastStamp - 500 })
        // The slate starts `after_s` (1 s) after the input's last data, seen on the 250 ms housekeeping tick: about 1.3 s
        // of silence at the destination by design, and more when the loaded machine schedules the player late (1.65 s
        // in a CI run beside the sanitizer builds). Without the slate the outage (6 to 10 s) would show whole.
        #expect(running.arrival <= 3, "\(context): \(running.arrival) s between two video packets' arrivals, \(running.at)")
        #expect(gaps.timestamp <= 1.5, "\(context): \(gaps.timestamp) s between two video timestamps")
        let ends = "\(tags.count) tags, first \(String(describing: tags.first)), last \(String(describing: tags.last))"
        #expect(gaps.span >= span, "\(context): \(gaps.span) s of media, want at least \(span); \(ends)")
        let sizes = try pictureSizes(player.file)
        #expect(sizes == [size], "\(context): picture sizes \(sizes)")
        let errors = try Probe.decodeErrors(player.file)
        #expect(errors.isEmpty, "\(context): the player's stream does not decode cleanly: \(errors.prefix(600))")
    }

    /// The job's slate events, as admins read them.
    static func slateEvents(_ harness: JobHarness, _ id: String) throws -> [EventRecord] {
        try harness.store.events(jobID: id).filter { $0.kind == .slateStarted || $0.kind == .slateEnded }
    }

    /// The outage every test plays: a player on `output` from the start; `source` published to `publishTo`, gone for
    /// `gap` seconds, published again; the job (started before the publisher when it listens, after otherwise) runs on a
    /// thread of its own. Returns the job's outcome and the player, once both ended.
    static func outage(_ harness: JobHarness, job json: String, source: String, publishTo: String, output: String, gap: Double,
                       listens: Bool = false) throws -> (JobOutcome, Player) {
        let player = try Player(output, harness: harness, name: "played")
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        var job: JobOnThread?
        let srt = publishTo.hasPrefix("srt://")
        // An SRT publisher: Debian's ffmpeg sending MPEG-TS, lingering until its last packets are acknowledged.
        let publish = { () throws -> BackgroundProcess in
            guard srt else { return try TestRTMP.publish(source, to: publishTo) }
            return try BackgroundProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", source,
                                                             "-c", "copy", "-f", "mpegts", publishTo + "&linger=3"])
        }
        if listens {
            job = JobOnThread { try harness.run(json: json) }
            if srt {
                // A caller that comes before the UDP port is bound repeats its handshake until it is.
                usleep(500_000)
            } else {
                let port = try #require(URLComponents(string: publishTo)?.port, "no port in \(publishTo)")
                #expect(ListeningPort.wait(port), "the job never listened on \(port)")
            }
        }
        let first = try publish()
        if !listens {
            #expect(RTMPServerStatistics.waitForPublisher(publishTo), "the publisher never reached nginx-rtmp: \(first.stderr)")
            job = JobOnThread { try harness.run(json: json) }
        }
        #expect(first.wait(seconds: 20) == 0, "first publisher: \(first.stderr)")
        Thread.sleep(forTimeInterval: gap)
        // A job may end at max_duration_s while the second publisher still sends (a listen job then closes it).
        _ = try publish().wait(seconds: 20)
        let outcome = try #require(try job?.wait(seconds: 40), "the job did not end at max_duration_s")
        _ = player.process.wait(seconds: 20)
        return (outcome, player)
    }

    @Test("a pull whose publisher sends 8 s, leaves for 10 s and sends 8 s more: the player sees one unbroken 24 s stream")
    func pullOutage() throws {
        let source = try Fixtures.live(seconds: 8)  // 320x240, 30 fps
        let harness = try JobHarness("fallback-pull")
        let base = try #require(TestRTMP.url)
        let input = base + "/" + Self.key("fb-src")
        let output = base + "/" + Self.key("fb-dst")
        let (outcome, player) = try Self.outage(harness, job: """
            {"id": "fallback-pull", "input": {"url": "\(input)", "timeout_s": 5},
             "reconnect": {"initial_delay_s": 0.2, "max_delay_s": 0.5},
             "fallback": {"after_s": 1, "max_s": 20}, "max_duration_s": 24, "outputs": ["\(output)"]}
            """, source: source, publishTo: input, output: output, gap: 10)
        // 8 s, about 10 s of slate, then the input again until max_duration_s (24 s of media).
        try Self.expectUnbroken(player, size: "320,240", span: 23, "pull")
        let events = try Self.slateEvents(harness, "fallback-pull")
        #expect(events.map(\.kind) == [.slateStarted, .slateEnded], "\(events.map { "\($0.kind): \($0.message ?? "")" })")
        let back = events.last?.message ?? ""
        #expect(back.contains("the input is back after") && back.contains("1 time on slate"), "\(back)")
        #expect(outcome.succeeded?.progress.slate?.switches == 1, "\(outcome)")
        #expect(outcome.succeeded?.reachedMaxDuration == true, "\(outcome)")
        let record = try #require(try harness.store.job(id: "fallback-pull"))
        #expect(record.state == .succeeded, "\(record)")
    }

    @Test("a listen job whose publisher reconnects: one unbroken stream at the destination")
    func listenReconnect() throws {
        let source = try Fixtures.live(seconds: 6)
        let harness = try JobHarness("fallback-listen")
        let ingest = "rtmp://127.0.0.1:\(try TestRTMP.freePort())/live/\(Self.key("fb-listen"))"
        let output = try #require(TestRTMP.url) + "/" + Self.key("fb-listen-dst")
        let (_, player) = try Self.outage(harness, job: """
            {"id": "fallback-listen", "input": {"url": "\(ingest)", "listen": true, "timeout_s": 20},
             "fallback": {"after_s": 1, "max_s": 20}, "max_duration_s": 16, "outputs": ["\(output)"]}
            """, source: source, publishTo: ingest, output: output, gap: 6, listens: true)
        try Self.expectUnbroken(player, size: "320,240", span: 15, "listen")
        #expect(try Self.slateEvents(harness, "fallback-listen").map(\.kind) == [.slateStarted, .slateEnded])
    }

    @Test("an SRT listen job whose publisher leaves and comes back: one unbroken stream at the RTMP destination")
    func srtListenReconnect() throws {
        let source = try Fixtures.live(seconds: 6)
        let harness = try JobHarness("fallback-srt")
        let ingest = "srt://127.0.0.1:\(try TestRTMP.freePort())?streamid=publish:live/\(Self.key("fb-srt"))"
        let output = try #require(TestRTMP.url) + "/" + Self.key("fb-srt-dst")
        let (outcome, player) = try Self.outage(harness, job: """
            {"id": "fallback-srt", "input": {"url": "\(ingest)", "listen": true, "timeout_s": 20},
             "fallback": {"after_s": 1, "max_s": 20}, "max_duration_s": 16, "outputs": ["\(output)"]}
            """, source: source, publishTo: ingest, output: output, gap: 6, listens: true)
        try Self.expectUnbroken(player, size: "320,240", span: 15, "srt listen")
        #expect(try Self.slateEvents(harness, "fallback-srt").map(\.kind) == [.slateStarted, .slateEnded])
        #expect(outcome.succeeded?.progress.slate?.switches == 1, "\(outcome)")
    }

    @Test("an encode job (pull to 320x180) whose publisher leaves and returns: the destination plays on at 320x180")
    func encodeOutage() throws {
        let source = try Fixtures.live(seconds: 6)
        let harness = try JobHarness("fallback-encode")
        let base = try #require(TestRTMP.url)
        let input = base + "/" + Self.key("fb-enc-src")
        let output = base + "/" + Self.key("fb-enc-dst")
        let (_, player) = try Self.outage(harness, job: """
            {"id": "fallback-encode", "input": {"url": "\(input)", "timeout_s": 5},
             "reconnect": {"initial_delay_s": 0.2, "max_delay_s": 0.5},
             "video": {"mode": "encode", "encoder": "software", "width": 320, "height": 180, "bitrate_kbps": 300, "gop_s": 1},
             "audio": {"mode": "encode", "bitrate_kbps": 64},
             "fallback": {"after_s": 1, "max_s": 20}, "max_duration_s": 10, "outputs": ["\(output)"]}
            """, source: source, publishTo: input, output: output, gap: 6)
        // The codec stage's own timeline has no gap (the decoder waits): max_duration_s counts 10 s of input, and the
        // destination got them with the slate between.
        try Self.expectUnbroken(player, size: "320,180", span: 14, "encode")
    }

    @Test("bad input changes nothing: a slate outside the input root, and one that does not decode, fail the job by name before any output")
    func badSlates() throws {
        let harness = try JobHarness("fallback-bad")
        let output = try #require(TestRTMP.url) + "/" + Self.key("fb-bad-dst")
        let notAPicture = harness.path("slate.png")
        try Data("this is not a picture".utf8).write(to: URL(fileURLWithPath: notAPicture))
        let broken = try harness.run(json: """
            {"id": "fallback-bad", "input": "rtmp://127.0.0.1:1/live/x", "fallback": {"slate": "\(notAPicture)"}, "outputs": ["\(output)"]}
            """)
        let message = try #require(broken.failureMessage, "\(broken)")
        #expect(message.contains("fallback.slate") && message.contains("slate.png"), "\(message)")
        // Nothing reached the destination: the job never connected.
        #expect(try harness.store.outputs(jobID: "fallback-bad").allSatisfy { $0.bytes == 0 })

        // A worker keeps the slate under its input root.
        let escaping = try JobSpec.parse(Data("""
            {"id": "fallback-escape", "input": "rtmp://127.0.0.1:1/live/x", "fallback": {"slate": "../../etc/passwd"}, "outputs": ["\(output)"]}
            """.utf8))
        #expect {
            _ = try JobPlan(spec: escaping, paths: .rooted(inputRoot: harness.folder, outputRoot: harness.folder))
        } throws: { error in
            "\(error)".contains("outside the allowed root")
        }
    }

    @Test("the slate matches the stream: size, profile and level, frame rate, and AAC silence at the stream's rate and channels")
    func slateMatchesTheStream() throws {
        let harness = try JobHarness("fallback-maker")
        let stream = harness.path("stream.flv")
        _ = try Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=426x240:rate=25", "-f", "lavfi",
                                       "-i", "sine=frequency=440:sample_rate=44100", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-profile:v", "main",
                                       "-level", "3.0", "-c:a", "aac", "-ac", "1", "-f", "flv", stream])
        var reader = FLVReader()
        reader.append(try Data(contentsOf: URL(fileURLWithPath: stream)))
        var videoHeader: [UInt8]?
        var audioHeader: [UInt8]?
        while let tag = try reader.nextTag() {
            if tag.header.tagType == .video, videoHeader == nil { videoHeader = tag.data }
            if tag.header.tagType == .audio, audioHeader == nil { audioHeader = tag.data }
        }
        let maker = try SlateMaker(slate: nil, root: nil)
        let loop = try maker.makeSlate(for: SlateTarget(videoHeader: videoHeader, audioHeader: audioHeader, frameRate: 25.1))
        #expect(loop.rateNumerator == 25 && loop.rateDenominator == 1)
        #expect(loop.videoFrames.count == 50, "2 s at 25 fps")
        #expect(loop.videoFrames.first?.first == 0x17, "the loop starts on a keyframe")
        #expect(loop.sampleRate == 44100 && loop.samplesPerFrame == 1024)
        #expect(loop.audioFrames.count == 87, "2 s of 1024-sample frames at 44.1 kHz")
        let record = try AVCDecoderConfigurationRecord(parsing: try #require(loop.videoHeader).dropFirst(5))
        let sps = try SequenceParameterSet(parsing: try #require(record.sequenceParameterSets.first))
        #expect(sps.width == 426 && sps.height == 240 && sps.profileIdc == 77 && sps.levelIdc == 30, "\(sps)")
        let config = try AudioSpecificConfig(parsing: try #require(loop.audioHeader).dropFirst(2))
        #expect(config.samplingFrequency == 44100 && config.channelConfiguration == 1)
        // Written out as FLV, the slate decodes without an error at the stream's size.
        let slate = harness.path("slate.flv")
        try Self.writeFLV(loop, to: slate)
        #expect(try Probe.decodeErrors(slate).isEmpty)
        #expect(try Self.pictureSizes(slate) == ["426,240"])

        // A slate file is scaled to the stream's size.
        let card = harness.path("card.png")
        _ = try Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=1280x720", "-frames:v", "1", card])
        let picture = try SlateMaker(slate: card, root: nil).makeSlate(for: SlateTarget(videoHeader: videoHeader, audioHeader: nil, frameRate: 25))
        #expect(picture.videoFrames.count == 50 && picture.audioFrames.isEmpty && picture.audioHeader == nil)
        try Self.writeFLV(picture, to: slate)
        #expect(try Self.pictureSizes(slate) == ["426,240"])

        // A stream the slate cannot match is named.
        let hevc: [UInt8] = [0x90] + Array("hvc1".utf8) + [0x01, 0x01]
        #expect(throws: SlateError.self) { try maker.makeSlate(for: SlateTarget(videoHeader: hevc, audioHeader: nil, frameRate: 30)) }
    }

    /// The loop's tags as an FLV file, each kind at its pace.
    static func writeFLV(_ loop: SlateLoop, to path: String) throws {
        var out: [UInt8] = [0x46, 0x4C, 0x56, 1, 5, 0, 0, 0, 9, 0, 0, 0, 0]
        func tag(_ type: UInt8, _ time: Int64, _ body: [UInt8]) {
            let size = body.count
            out += [type, UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
                    UInt8(time >> 16 & 0xFF), UInt8(time >> 8 & 0xFF), UInt8(time & 0xFF), UInt8(time >> 24 & 0xFF), 0, 0, 0]
            out += body
            let total = size + 11
            out += [UInt8(total >> 24 & 0xFF), UInt8(total >> 16 & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF)]
        }
        if let header = loop.videoHeader { tag(9, 0, header) }
        if let header = loop.audioHeader { tag(8, 0, header) }
        var frames: [(Int64, UInt8, [UInt8])] = loop.videoFrames.enumerated().map { (loop.videoTime(Int64($0.offset)), 9, $0.element) }
        frames += loop.audioFrames.enumerated().map { (loop.audioTime(Int64($0.offset)), 8, $0.element) }
        for (time, type, body) in frames.sorted(by: { $0.0 < $1.0 }) { tag(type, time, body) }
        try Data(out).write(to: URL(fileURLWithPath: path))
    }
}
