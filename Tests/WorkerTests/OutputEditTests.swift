import Foundation
import SluiceTestSupport
@testable import JobQueue
import JobStore
import Testing

/// Outputs on the fly: `sluice jobs outputs add|remove` against real `sluice worker` processes on the
/// private broker, restreaming a looping publisher through nginx-rtmp. nginx's statistics page (who publishes each
/// stream, with the connection's id) and ffprobe reading the destinations are the referees.
@Suite("Outputs on the fly", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct OutputEditTests {
    /// Runs `sluice jobs outputs ACTION --amqp-url … JOB URL`.
    static func outputs(_ fixture: LongRestream, _ action: String, job: String? = nil, _ url: String) async throws -> (status: Int32, output: String) {
        try await Subprocess.run(Subprocess.sluice, ["jobs", "outputs", action, "--amqp-url", fixture.amqpURL, job ?? fixture.id, url])
    }

    /// How long until `condition` holds, sampled every 100 ms; nil when it did not within `timeout`.
    static func timeUntil(_ timeout: Duration, _ condition: () throws -> Bool) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if (try? condition()) == true { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// ffprobe plays the stream and names its video codec and size (the destination really carries the picture).
    static func probe(_ url: String) async throws -> String {
        try await Subprocess.run("ffprobe", ["-v", "error", "-rw_timeout", "8000000", "-select_streams", "v:0",
                                             "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", url]).output
    }

    @Test("add flows within 5 s, remove stops within 5 s, the first destination never reconnects; store and events show both; bad input changes nothing")
    func addAndRemove() async throws {
        let fixture = try await LongRestream("edit", seconds: 90)
        let worker = try fixture.startWorker("w-edit")
        let tap = try EventTap(configuration: BrokerConfiguration(url: try BrokerURL(parsing: fixture.amqpURL)))
        defer { tap.stop() }
        try await fixture.enqueue()
        try #require(await eventually(timeout: .seconds(30)) { (try? fixture.publishers(of: fixture.destination).count) == 1 },
                     "the job never published: \(worker.process.log.suffix(3000))")
        let first = try fixture.publishers(of: fixture.destination)
        let rtmp = try #require(LongRestream.rtmpURL)
        let second = fixture.destination + "-b"
        let secondURL = "\(rtmp)/\(second)"

        // Add: the CLI answers once the worker applied it; the destination has a publisher within 5 s of the command.
        let adding = ContinuousClock.now
        let added = try await Self.outputs(fixture, "add", secondURL)
        let addAnswered = ContinuousClock.now - adding
        #expect(added.status == 0, "\(added.output) \(worker.process.log.suffix(2000))")
        #expect(added.output.contains("output 1 added: \(rtmp)/***"), "\(added.output)")
        let flowing = try await Self.timeUntil(.seconds(10)) { try fixture.publishers(of: second).count == 1 }
        try #require(flowing != nil, "the added output never published: \(worker.process.log.suffix(3000))")
        let toFlow = ContinuousClock.now - adding
        #expect(toFlow < .seconds(5), "the added destination had a publisher \(toFlow) after the command started")
        let probed = try await Self.probe(secondURL)
        #expect(probed.contains("h264,"), "ffprobe on the added destination: \(probed)")

        // Bad input: each is refused with its reason, and changes nothing.
        let invalid = try await Self.outputs(fixture, "add", "ftp://x.example/live/FTPSECRET")
        #expect(invalid.status == 2 && invalid.output.contains("not rtmp://, rtmps:// or srt://") && !invalid.output.contains("FTPSECRET"), "\(invalid)")
        let noKey = try await Self.outputs(fixture, "add", "rtmp://127.0.0.1:1")
        #expect(noKey.status == 1 && noKey.output.contains("refused"), "\(noKey)")
        let duplicate = try await Self.outputs(fixture, "add", secondURL)
        #expect(duplicate.status == 1 && duplicate.output.contains("already has the output \(rtmp)/***") && !duplicate.output.contains(second), "\(duplicate)")
        let unknown = try await Self.outputs(fixture, "remove", "\(rtmp)/nowhere-SECRET")
        #expect(unknown.status == 1 && unknown.output.contains("has no output \(rtmp)/***") && !unknown.output.contains("SECRET"), "\(unknown)")
        let notRunning = try await Self.outputs(fixture, "add", job: "no-such-job-\(UUID().uuidString.prefix(6))", secondURL + "-c")
        #expect(notRunning.status == 1 && notRunning.output.contains("is not running on any worker"), "\(notRunning)")
        #expect(try fixture.store("w-edit").outputs(jobID: fixture.id).count == 2)

        // Remove: the added destination loses its publisher within 5 s; the first one never noticed any of it.
        let removing = ContinuousClock.now
        let removed = try await Self.outputs(fixture, "remove", secondURL)
        let removeAnswered = ContinuousClock.now - removing
        #expect(removed.status == 0 && removed.output.contains("output 1 removed: \(rtmp)/***"), "\(removed)")
        let stopped = try await Self.timeUntil(.seconds(10)) { try fixture.publishers(of: second).isEmpty }
        try #require(stopped != nil, "the removed output still publishes: \(worker.process.log.suffix(3000))")
        let toStop = ContinuousClock.now - removing
        #expect(toStop < .seconds(5), "the removed destination still had a publisher \(toStop) after the command started")
        try await Task.sleep(for: .seconds(2))
        #expect(try fixture.publishers(of: second).isEmpty, "the removed output came back")
        let firstNow = try fixture.publishers(of: fixture.destination)
        #expect(firstNow == first, "the first destination reconnected: \(first) → \(firstNow)")
        print("outputs on the fly: add answered in \(addAnswered), destination publishing \(toFlow) after the command started; "
              + "remove answered in \(removeAnswered), destination without publisher \(toStop) after the command started")

        // The store and the events show both; the key is in none of them.
        let store = try fixture.store("w-edit")
        let rows = try store.outputs(jobID: fixture.id)
        #expect(rows.map(\.state) == [.running, .removed], "\(rows)")
        #expect(rows.count == 2 && rows[1].url == "\(rtmp)/***" && rows[1].bytes > 0, "\(rows)")
        let events = try store.events(jobID: fixture.id)
        let edits = events.filter { $0.kind == .outputAdded || $0.kind == .outputRemoved }
        #expect(edits.map(\.kind) == [.outputAdded, .outputRemoved], "\(events.map(\.kind))")
        #expect(edits.allSatisfy { $0.message?.contains("\(rtmp)/***") == true && !($0.message ?? "").contains(second) && !($0.data ?? "").contains(second) })
        // … and so do the events on sluice.events.
        let published = await eventually(timeout: .seconds(5)) {
            Set(tap.of(fixture.id).map(\.kind)).isSuperset(of: ["job.output_added", "job.output_removed"])
        }
        #expect(published, "\(tap.of(fixture.id).map(\.kind))")
        #expect(tap.of(fixture.id).allSatisfy { !$0.json.contains(second) }, "a stream key on sluice.events")
        let record = try #require(try store.job(id: fixture.id))
        #expect(record.state == .running && record.attempts == 1)
        #expect(!(record.specRedacted ?? "").contains(second) && !(record.specRedacted ?? "").contains("-b\""))
        #expect(!worker.process.log.contains(second) && !worker.process.log.contains("FTPSECRET"), "a stream key in the log")
    }

    @Test("a job taken over after kill -9 keeps its edited outputs: the new worker publishes to the added destination, not the removed one")
    func takeOverKeepsEdits() async throws {
        let fixture = try await LongRestream("edit-takeover", seconds: 90)
        let pair = [try fixture.startWorker("w-a"), try fixture.startWorker("w-b")]
        try await fixture.enqueue()
        let (holder, other) = try await fixture.holder(of: pair)
        let rtmp = try #require(LongRestream.rtmpURL)
        let added = "\(rtmp)/\(fixture.destination)-c"
        let result = try await Self.outputs(fixture, "add", added)
        #expect(result.status == 0, "\(result.output)")
        let original = "\(rtmp)/\(fixture.destination)"
        let removed = try await Self.outputs(fixture, "remove", original)
        #expect(removed.status == 0, "\(removed.output)")
        try #require(await eventually(timeout: .seconds(10)) { (try? fixture.publishers(of: fixture.destination + "-c").count) == 1 })
        // The edited job rides on the lease's claim from now on: the claim is renewed at once, then every second.
        try await Task.sleep(for: .seconds(5))
        holder.process.kill(SIGKILL)
        let killed = ContinuousClock.now
        let resumed = try await eventually(timeout: .seconds(60)) {
            try fixture.store(other.id).job(id: fixture.id)?.state == .running
                && (try? fixture.publishers(of: fixture.destination + "-c").count) == 1
        }
        try #require(resumed, "not resumed with the edit: \(other.process.log.suffix(3000))")
        print("take-over of an edited job: the added destination had a publisher again \(ContinuousClock.now - killed) after kill -9")
        let rows = try fixture.store(other.id).outputs(jobID: fixture.id)
        #expect(rows.map(\.url) == ["\(rtmp)/***"] && rows.count == 1, "\(rows)")
        try await Task.sleep(for: .seconds(3))
        #expect(try fixture.publishers(of: fixture.destination).isEmpty, "the removed destination is published again after the take-over")
        let spec = try #require(try fixture.store(other.id).job(id: fixture.id)?.specRedacted)
        #expect(spec.contains("\(rtmp)/***") && !spec.contains(fixture.destination), "\(spec)")
    }

    @Test("a job in the codec stage answers that its outputs cannot be changed, and nothing changes")
    func codecStageRefuses() async throws {
        let fixture = try await LongRestream("edit-codec", seconds: 60)
        let worker = try fixture.startWorker("w-codec")
        let rtmp = try #require(LongRestream.rtmpURL)
        // Encoding the audio makes this live job one of the codec stage (every copy job, whatever its files, is the relay's).
        let job = #"{"id": "\#(fixture.id)", "input": {"url": "\#(rtmp)/\#(fixture.source)", "timeout_s": 10}, "#
            + #""audio": {"mode": "encode"}, "outputs": ["\#(rtmp)/\#(fixture.destination)", "codec.flv"], "max_duration_s": 60}"#
        try job.write(toFile: fixture.folder + "/job.json", atomically: true, encoding: .utf8)
        let enqueued = try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", fixture.amqpURL, fixture.folder + "/job.json"])
        try #require(enqueued.status == 0, "\(enqueued.output)")
        try #require(await eventually(timeout: .seconds(30)) { (try? fixture.publishers(of: fixture.destination).count) == 1 },
                     "the job never published: \(worker.process.log.suffix(3000))")
        let first = try fixture.publishers(of: fixture.destination)
        let refused = try await Self.outputs(fixture, "add", "\(rtmp)/\(fixture.destination)-x")
        #expect(refused.status == 1 && refused.output.contains("outputs cannot be changed while it runs"), "\(refused)")
        #expect(!refused.output.contains(fixture.destination + "-x"))
        let store = try fixture.store("w-codec")
        #expect(try store.outputs(jobID: fixture.id).count == 2)
        #expect(try store.events(jobID: fixture.id).allSatisfy { $0.kind != .outputAdded })
        #expect(try fixture.publishers(of: fixture.destination + "-x").isEmpty)
        #expect(try fixture.publishers(of: fixture.destination) == first)
    }

    @Test("an SRT output added to a running restream reaches ffmpeg listening, is removed again, and the RTMP destination never reconnects; the record says mpegts and removed")
    func srtOutputOnTheFly() async throws {
        let fixture = try await LongRestream("edit-srt", seconds: 60)
        let worker = try fixture.startWorker("w-edit-srt")
        try await fixture.enqueue()
        try #require(await eventually(timeout: .seconds(30)) { (try? fixture.publishers(of: fixture.destination).count) == 1 },
                     "the job never published: \(worker.process.log.suffix(3000))")
        let first = try fixture.publishers(of: fixture.destination)
        let port = try await StackTests.freePort()
        let received = fixture.folder + "/received.ts"
        let receiver = try BackgroundProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "warning",
                                                                "-i", "srt://127.0.0.1:\(port)?mode=listener&passphrase=edit-srt-passphrase",
                                                                "-c", "copy", "-f", "mpegts", "-y", received])
        defer { receiver.end() }
        let url = "srt://127.0.0.1:\(port)?streamid=publish:live/EDITKEY&passphrase=edit-srt-passphrase"
        let added = try await Self.outputs(fixture, "add", url)
        #expect(added.status == 0 && added.output.contains("output 1 added: srt://127.0.0.1:\(port)?streamid=***&passphrase=***"),
                "\(added.output) \(worker.process.log.suffix(2000))")
        let size = { ((try? FileManager.default.attributesOfItem(atPath: received)[.size]) as? Int) ?? 0 }
        try #require(await eventually(timeout: .seconds(10)) { size() > 200_000 }, "the SRT receiver got \(size()) bytes: \(receiver.stderr)")

        let removed = try await Self.outputs(fixture, "remove", url)
        #expect(removed.status == 0, "\(removed.output)")
        // The receiver's caller went: it ends, and what it got is a TS that decodes without an error.
        #expect(receiver.wait(seconds: 15) != nil, "the SRT receiver did not see its caller go")
        // The fixture loops a clip whose audio overlaps at each loop: the muxer's notes on those timestamps are the
        // source's, passed on as every copy does; anything else is an error.
        let decode = try await Subprocess.run("ffmpeg", ["-v", "error", "-i", received, "-enc_time_base:v", "-1", "-f", "null", "-"])
        let errors = decode.output.split(separator: "\n").filter { !$0.contains("non monotonically increasing dts") && !$0.isEmpty }
        #expect(decode.status == 0 && errors.isEmpty, "\(decode.output)")
        #expect(!receiver.stderr.lowercased().contains("continuity"), "\(receiver.stderr)")
        let frames = try await Subprocess.run("ffprobe", ["-v", "quiet", "-count_packets", "-select_streams", "v:0",
                                                          "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", received])
        // The stream's count, once per program and stream it is listed in.
        #expect((frames.output.split(whereSeparator: \.isNewline).compactMap { Int($0) }.first ?? 0) >= 60, "\(frames.output)")

        // The RTMP destination kept its one connection; the record shows the SRT output as MPEG-TS, removed.
        #expect(try fixture.publishers(of: fixture.destination) == first)
        let rows = try fixture.store(worker.id).outputs(jobID: fixture.id)
        #expect(rows.count == 2 && rows[1].format == "mpegts" && rows[1].state == .removed && rows[1].bytes > 200_000, "\(rows)")
        #expect(!worker.process.log.contains("EDITKEY") && !worker.process.log.contains("edit-srt-passphrase"))
    }
}
