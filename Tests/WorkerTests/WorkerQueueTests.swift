import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// `sluice worker` end to end against the private RabbitMQ: each test has its own vhost, folders and
/// database, so the suite runs in parallel; workers are real child processes (kill -9 and SIGTERM are real).
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(5)))
struct WorkerQueueTests {
    /// A job document; `input` may be a path or a JSON object text (starting with `{`).
    static func job(_ id: String, input: String, outputs: [String], extra: String = "") -> String {
        let inputJSON = input.hasPrefix("{") ? input : "\"\(input)\""
        let outputsJSON = outputs.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"id": "\#(id)", "input": \#(inputJSON), "outputs": [\#(outputsJSON)]\#(extra)}"#
    }

    @Test("20 jobs with concurrency 2: 20 succeeded, one attempt each, the queue empty, outputs lossless")
    func twentyJobs() async throws {
        let harness = try await QueueHarness("wk-twenty")
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-twenty", ["--concurrency", "2"])
        for index in 0..<20 {
            try await harness.enqueue(Self.job("j\(index)", input: clip, outputs: ["j\(index).flv"]))
        }
        let done = try await eventually(timeout: .seconds(60)) { try harness.store.jobs(state: .succeeded).count == 20 }
        try #require(done, "worker log: \(worker.log.suffix(3000))")
        #expect(try await eventually { try await harness.queued() == 0 })
        let jobs = try harness.store.jobs()
        #expect(jobs.count == 20 && jobs.allSatisfy { $0.attempts == 1 && $0.workerID == "w-twenty" })
        let reference = try await Media.videoHashes((Media.inputRoot as NSString).appendingPathComponent(clip))
        for name in ["j0.flv", "j19.flv"] {
            #expect(try await Media.videoHashes(harness.output(name)) == reference, "\(name) differs from the input")
        }
        #expect(await eventually { harness.events.all.filter { $0.kind == "job.succeeded" }.count == 20 })
        let event = try #require(harness.events.of("j7").first { $0.kind == "job.succeeded" })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        #expect(body["worker"] as? String == "w-twenty")
        #expect(body["attempt"] as? Int == 1)
        #expect((body["at"] as? String)?.hasSuffix("Z") == true)
        let outputs = try #require(body["outputs"] as? [[String: Any]])
        #expect(outputs.count == 1 && outputs[0]["state"] as? String == "succeeded")
        #expect(harness.events.of("j7").map(\.kind).starts(with: ["job.received", "job.running"]))
    }

    @Test("malformed JSON, an unknown key, paths escaping the roots and http:// are dead-lettered with the reason")
    func deadLetters() async throws {
        let harness = try await QueueHarness("wk-dead")
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-dead")
        try await harness.enqueue("{this is not json")
        try await harness.enqueue(Self.job("unknown-key", input: clip, outputs: ["u.flv"], extra: #", "colour": "red""#))
        try await harness.enqueue(Self.job("escape-in", input: "../../../../../etc/passwd", outputs: ["e.flv"]))
        try await harness.enqueue(Self.job("escape-out", input: clip, outputs: ["../../escaped.flv"]))
        try await harness.enqueue(Self.job("web", input: "http://127.0.0.1:9/x.mp4", outputs: ["w.flv"]))
        try await harness.enqueue(Self.job("after", input: clip, outputs: ["after.flv"]))

        let consuming = try await eventually { try harness.job("after")?.state == .succeeded }
        try #require(consuming, "the worker stopped consuming: \(worker.log.suffix(3000))")
        let dead = try await harness.deadLetters(count: 5)
        try #require(dead.count == 5, "dead letters: \(dead)")
        let reasons = dead.map { $0.reason ?? "" }
        #expect(reasons.contains { $0.contains("not valid JSON") })
        #expect(reasons.contains { $0.contains("colour: unknown key") })
        #expect(reasons.contains { $0.contains("escape-in") && $0.contains("outside the allowed root") })
        #expect(reasons.contains { $0.contains("escape-out") && $0.contains("outside the allowed root") })
        #expect(reasons.contains { $0.contains(#"protocol "http://" is not allowed"#) })
        #expect(dead.contains { $0.body == "{this is not json" })

        #expect(try harness.job("unknown-key")?.state == .rejected)
        #expect(try harness.job("web")?.state == .rejected)
        for id in ["escape-in", "escape-out"] {
            let record = try #require(try harness.job(id))
            #expect(record.state == .failed && record.attempts == 1, "\(id) is \(record.state)")
            #expect(record.error?.contains("outside the allowed root") == true)
        }
        let malformed = try harness.store.jobs(state: .rejected).filter { $0.id.hasPrefix("rejected-") }
        #expect(malformed.count == 1 && malformed.first?.error?.contains("not valid JSON") == true)
        #expect(!FileManager.default.fileExists(atPath: harness.outputRoot + "/../../escaped.flv"))
        #expect(try await harness.queued() == 0)
        #expect(await eventually { harness.events.of("web").contains { $0.kind == "job.rejected" } })
        #expect(harness.events.of("escape-out").contains { $0.kind == "job.failed" })
    }

    @Test("an unreachable RTMP input is retried with backoff until max_attempts, then dead; the key never leaks")
    func transientRetry() async throws {
        let harness = try await QueueHarness("wk-retry")
        let worker = try harness.startWorker(id: "w-retry")
        // Port 9 (discard) has no listener on loopback: the connection is refused at once.
        let input = #"{"url": "rtmp://127.0.0.1:9/live/sk-0123secret", "timeout_s": 2}"#
        try await harness.enqueue(Self.job("unreachable", input: input, outputs: ["u.flv"], extra: #", "max_attempts": 3"#))
        // Three attempts of at least 2 s each, with their starts and settles: on a loaded machine (ThreadSanitizer beside
        // CPU hogs) more than the usual 20 s. How long is not what this judges.
        let failed = try await eventually(timeout: .seconds(90)) { try harness.job("unreachable")?.state == .failed }
        try #require(failed, "worker log: \(worker.log.suffix(3000))")
        let record = try #require(try harness.job("unreachable"))
        #expect(record.attempts == 3)
        #expect(record.error?.contains("attempt 3 of 3: no attempts left") == true, "\(record.error ?? "")")
        let states = try harness.store.events(jobID: "unreachable").compactMap(\.state)
        #expect(states == [.received, .running, .retrying, .running, .retrying, .running, .failed])
        let dead = try await harness.deadLetters(count: 1)
        #expect(dead.first?.reason?.contains("no attempts left") == true)
        #expect(try await harness.counts()["sluice.jobs.retry"] == 0)

        // An admin re-runs it from the stored spec: one more attempt, failing the same way.
        let retry = try await harness.sluice(["jobs", "retry", "unreachable", "--db", harness.database, "--amqp-url", harness.url])
        #expect(retry.status == 0, "\(retry.output)")
        #expect(try await eventually { try harness.job("unreachable")?.attempts == 4 && harness.job("unreachable")?.state == .failed })

        let leaks = [worker.log, harness.events.all.map(\.json).joined(), record.error ?? "", dead.first?.reason ?? "",
                     try await harness.sluice(["jobs", "show", "unreachable", "--db", harness.database]).output]
        #expect(leaks.allSatisfy { !$0.contains("sk-0123secret") })
        // Nor any byte of the database's files; the retry above opened the spec the worker sealed.
        #expect(try !harness.databaseFilesContain("sk-0123secret"))
        #expect(try harness.job("unreachable")?.specSealed?.hasPrefix("sealed1:k1:") == true)
    }

    @Test("kill -9 mid-job: the restarted worker reconciles, gets the redelivery, attempt 2 succeeds completely")
    func killMidJob() async throws {
        let harness = try await QueueHarness("wk-kill")
        let clip = try await Media.clip(seconds: 8)
        let first = try harness.startWorker(id: "w-kill")
        try await harness.enqueue(Self.job("killed", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["k.flv"]))
        try #require(try await eventually { try harness.job("killed")?.state == .running }, "\(first.log)")
        try await Task.sleep(for: .seconds(1.5))
        first.kill(SIGKILL)
        #expect(await first.exitStatus(within: .seconds(5)) != nil)
        #expect(try harness.job("killed")?.state == .running)
        // The killed attempt's temporary file is left behind, named for its job.
        let orphans = harness.partFiles()
        #expect(orphans.count == 1 && orphans.first?.hasPrefix(".k.flv.") == true, "\(orphans)")

        let second = try harness.startWorker(id: "w-kill")
        let done = try await eventually(timeout: .seconds(30)) { try harness.job("killed")?.state == .succeeded }
        try #require(done, "second worker: \(second.log.suffix(3000))")
        #expect(try harness.job("killed")?.attempts == 2)
        let events = try harness.store.events(jobID: "killed")
        #expect(events.contains { $0.state == .retrying && $0.message?.contains("reconciled at worker start") == true })
        #expect(events.contains { $0.kind.rawValue == "job.redelivered" })
        // The second attempt, holding the lease, removed the first one's part; only the finished file is left.
        #expect(events.contains { $0.kind == .partsRemoved && $0.message?.contains(orphans.first ?? "?") == true })
        #expect(harness.partFiles() == [], "\(harness.partFiles())")
        let reference = try await Media.videoHashes((Media.inputRoot as NSString).appendingPathComponent(clip))
        #expect(try await Media.videoHashes(harness.output("k.flv")) == reference)
        #expect(try await eventually { try await harness.queued() == 0 })
    }

    @Test("a job during which workers die: taken over after each death, dead-lettered after max_attempts deaths, workers live")
    func poisonJob() async throws {
        let harness = try await QueueHarness("wk-poison")
        let clip = try await Media.clip(seconds: 30)
        try await harness.enqueue(Self.job("poison", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["p.flv"],
                                           extra: #", "max_attempts": 2"#))
        // Two workers die while running it (kill -9, as a crash or an OOM kill would end them).
        for id in ["w-poison-1", "w-poison-2"] {
            let worker = try harness.startWorker(id: id)
            let running = try await eventually(timeout: .seconds(30)) {
                let record = try harness.job("poison")
                return record?.state == .running && record?.workerID == id
            }
            try #require(running, "\(id) never ran the job: \(worker.log.suffix(2000))")
            try await Task.sleep(for: .seconds(2))
            worker.kill(SIGKILL)
            #expect(await worker.exitStatus(within: .seconds(5)) != nil)
        }
        // The third worker takes the expired claim, sees two deaths, and dead-letters instead of running it.
        let survivor = try harness.startWorker(id: "w-poison-3")
        let dead = try await harness.deadLetters(count: 1, timeout: .seconds(30))
        let reason = try #require(dead.first?.reason, "no dead letter: \(survivor.log.suffix(3000))")
        #expect(reason.contains("2 workers died while running it (the last on worker w-poison-2)"), "\(reason)")
        let record = try #require(try harness.job("poison"))
        #expect(record.state == .failed && record.error?.contains("2 workers died") == true, "\(record)")
        #expect(record.attempts == 2)
        #expect(await eventually { harness.events.of("poison").contains { $0.kind == "job.failed" } })
        // The worker is alive and takes the next job.
        try await harness.enqueue(Self.job("after-poison", input: try await Media.clip(seconds: 1), outputs: ["ap.flv"]))
        #expect(try await eventually { try harness.job("after-poison")?.state == .succeeded }, "\(survivor.log.suffix(2000))")
        #expect(survivor.isRunning)
        #expect(try await eventually { try await harness.queued() == 0 })
    }

    @Test("the broker closes every connection mid-job: the worker reconnects, the job succeeds once, nothing is lost")
    func connectionsClosedMidJob() async throws {
        let harness = try await QueueHarness("wk-bounce")
        // Long enough that the close lands mid-job even when rabbitmqctl takes seconds to boot on a busy machine.
        let clip = try await Media.clip(seconds: 20)
        let worker = try harness.startWorker(id: "w-bounce")
        try await harness.enqueue(Self.job("bounce", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["b.flv"]))
        try #require(try await eventually { try harness.job("bounce")?.state == .running }, "\(worker.log)")
        try await Task.sleep(for: .seconds(1))
        try await PrivateBroker.ctl(["close_all_connections", "-p", harness.vhost, "test: broker hiccup"])
        #expect(await eventually(timeout: .seconds(10)) { worker.log.contains("(generation 2)") }, "\(worker.log)")

        let done = try await eventually(timeout: .seconds(45)) { try harness.job("bounce")?.state == .succeeded }
        try #require(done, "\(worker.log.suffix(3000))")
        #expect(try harness.job("bounce")?.attempts == 1)
        #expect(try await eventually { try await harness.queued() == 0 })
        // The job's message was acked when its lease was taken: the lease, not a redelivery, carries it across.
        #expect(!worker.log.contains("delivered again while running here"))
        #expect(!worker.log.contains("lease of job bounce lost"), "\(worker.log)")
        // A second ack of one message would make the broker close the channel: a third connection.
        try await Task.sleep(for: .milliseconds(500))
        #expect(!worker.log.contains("(generation 3)"), "\(worker.log)")
        #expect(try harness.store.events(jobID: "bounce").filter { $0.state == .succeeded }.count == 1)
        #expect(try await harness.counts()["sluice.jobs.dead"] == 0)
    }

    @Test("a 60 s job with a 5 s heartbeat keeps its one connection and needs one attempt")
    func heartbeatLongJob() async throws {
        let harness = try await QueueHarness("wk-heartbeat")
        let clip = try await Media.clip(seconds: 60)
        let worker = try harness.startWorker(id: "w-heartbeat", ["--heartbeat-s", "5"])
        try await harness.enqueue(Self.job("long", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["l.flv"]))
        try #require(try await eventually { try harness.job("long")?.state == .running }, "\(worker.log)")
        let rows = try await PrivateBroker.ctl(["list_connections", "--quiet", "--no-table-headers", "vhost", "timeout", "client_properties"])
        #expect(rows.split(separator: "\n").contains { $0.hasPrefix(harness.vhost + "\t5\t") && $0.contains("sluice-worker w-heartbeat") })
        let done = try await eventually(timeout: .seconds(100)) { try harness.job("long")?.state == .succeeded }
        try #require(done, "\(worker.log.suffix(3000))")
        #expect(try harness.job("long")?.attempts == 1)
        #expect(worker.log.components(separatedBy: "connected to").count == 2, "reconnected: \(worker.log)")
        #expect(harness.events.of("long").filter { $0.kind == "job.progress" }.count >= 10)
    }

    @Test("sluice enqueue validates first; a duplicate of a succeeded id is acked without running")
    func duplicateNotRun() async throws {
        let harness = try await QueueHarness("wk-dup")
        let clip = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-dup")
        let file = harness.folder + "/dup.json"
        try Self.job("dup", input: clip, outputs: ["d.flv"]).write(toFile: file, atomically: true, encoding: .utf8)
        let invalid = harness.folder + "/invalid.json"
        try #"{"id": "x", "input": "a.mp4", "outputs": ["a.flv"], "extra": 1}"#.write(toFile: invalid, atomically: true, encoding: .utf8)

        let refused = try await harness.sluice(["enqueue", "--amqp-url", harness.url, invalid])
        #expect(refused.status == 2 && refused.output.contains("extra: unknown key"))
        let first = try await harness.sluice(["enqueue", "--amqp-url", harness.url, "--priority", "7", file])
        #expect(first.status == 0, "\(first.output)")
        try #require(try await eventually { try harness.job("dup")?.state == .succeeded }, "\(worker.log)")
        let written = try FileManager.default.attributesOfItem(atPath: harness.output("d.flv"))[.modificationDate] as? Date

        #expect(try await harness.sluice(["enqueue", "--amqp-url", harness.url, file]).status == 0)
        #expect(await eventually { harness.events.of("dup").contains { $0.kind == "job.duplicate" } }, "\(worker.log)")
        #expect(try harness.job("dup")?.attempts == 1)
        #expect(try harness.store.events(jobID: "dup").contains { $0.kind == .duplicate })
        let after = try FileManager.default.attributesOfItem(atPath: harness.output("d.flv"))[.modificationDate] as? Date
        #expect(written != nil && after == written)
        #expect(try await eventually { try await harness.queued() == 0 })
        #expect(try harness.job("x") == nil)
    }

    @Test("cancel stops a running job within 2 s with its output finished, and skips a job still queued")
    func cancelRunningAndQueued() async throws {
        let harness = try await QueueHarness("wk-cancel")
        let long = try await Media.clip(seconds: 8)
        let short = try await Media.clip(seconds: 1)
        let worker = try harness.startWorker(id: "w-cancel")
        try #require(await eventually { worker.log.contains("connected to") }, "\(worker.log)")
        let early = try await harness.sluice(["jobs", "cancel", "queued-later", "--amqp-url", harness.url])
        #expect(early.status == 0, "\(early.output)")
        try #require(await eventually { worker.log.contains("cancel requested for a job not running here") })
        try await harness.enqueue(Self.job("to-cancel", input: #"{"url": "\#(long)", "realtime": true}"#, outputs: ["c.flv"]))
        try await harness.enqueue(Self.job("queued-later", input: short, outputs: ["q.flv"]))
        try #require(try await eventually { try harness.job("to-cancel")?.state == .running }, "\(worker.log)")
        try await Task.sleep(for: .seconds(1.5))

        let cancel = try await harness.sluice(["jobs", "cancel", "to-cancel", "--amqp-url", harness.url])
        #expect(cancel.status == 0, "\(cancel.output)")
        let sent = ContinuousClock.now
        #expect(try await eventually(timeout: .seconds(2)) { try harness.job("to-cancel")?.state == .cancelled },
                "not cancelled within 2 s: \(worker.log.suffix(2000))")
        let took = ContinuousClock.now - sent
        #expect(took < .seconds(2), "took \(took)")
        // The trailer is written: ffprobe reads the finished file, shorter than the 8 s input. (How much shorter is the
        // machine's: the job reads in real time from `running` until the cancel, whose CLI process took a
        // ThreadSanitizer run past 4 s to start; the cancel's own latency is bounded above.)
        let duration = try await Media.duration(harness.output("c.flv"))
        #expect(duration > 0.5 && duration < 7.5, "duration \(duration)")

        #expect(try await eventually { try harness.job("queued-later")?.state == .cancelled }, "\(worker.log.suffix(2000))")
        #expect(try harness.job("queued-later")?.attempts == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.output("q.flv")))
        #expect(try await eventually { try await harness.queued() == 0 })
    }

    @Test("SIGTERM within the grace: the running job finishes, queued jobs stay queued, exit 0")
    func sigtermWithinGrace() async throws {
        let harness = try await QueueHarness("wk-term")
        let clip = try await Media.clip(seconds: 3)
        let worker = try harness.startWorker(id: "w-term", ["--grace-s", "20"])
        try await harness.enqueue(Self.job("graceful", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["g.flv"]))
        try await harness.enqueue(Self.job("waits", input: clip, outputs: ["w.flv"]))
        try #require(try await eventually { try harness.job("graceful")?.state == .running }, "\(worker.log)")
        worker.kill(SIGTERM)
        #expect(await worker.exitStatus(within: .seconds(20)) == 0, "\(worker.log)")
        #expect(try harness.job("graceful")?.state == .succeeded)
        #expect(try harness.job("waits") == nil)
        #expect(try await harness.queued() == 1)
        #expect(worker.log.contains("shutdown requested"))
    }

    @Test("SIGTERM past the grace: the job is interrupted, recorded as retrying with why, requeued, nothing published, exit 0")
    func sigtermPastGrace() async throws {
        let harness = try await QueueHarness("wk-term-late")
        let clip = try await Media.clip(seconds: 8)
        let worker = try harness.startWorker(id: "w-term-late", ["--grace-s", "1"])
        try await harness.enqueue(Self.job("too-long", input: #"{"url": "\#(clip)", "realtime": true}"#, outputs: ["t.flv"]))
        try #require(try await eventually { try harness.job("too-long")?.state == .running }, "\(worker.log)")
        try await Task.sleep(for: .seconds(1))
        let signalled = ContinuousClock.now
        worker.kill(SIGTERM)
        #expect(await worker.exitStatus(within: .seconds(15)) == 0, "\(worker.log)")
        #expect(ContinuousClock.now - signalled < .seconds(5))
        let record = try #require(try harness.job("too-long"))
        #expect(record.state == .retrying)
        #expect(record.error?.contains("grace period of 1 s passed; requeued") == true, "\(record.error ?? "")")
        #expect(try await harness.queued() == 1)
        // Nothing of the interrupted attempt is published: no truncated t.flv, no temporary file left over.
        let left = try FileManager.default.contentsOfDirectory(atPath: harness.outputRoot)
        #expect(left.isEmpty, "left in the output root: \(left)")
    }
}
