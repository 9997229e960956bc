import Foundation
import JobStore
import Logging
@testable import SluiceHTTP
import Testing

/// The HTTP server in-process on a seeded database: pages, escaping, redaction, health.
@Suite(.timeLimit(.minutes(1)))
struct AdminServerTests {
    /// A started server on a free loopback port, with the broker flag the test controls.
    final class Running: @unchecked Sendable {
        // Reason: `brokerUp` is guarded by `lock`; the rest is immutable after init.
        let seeded: SeededStore
        let server: AdminServer
        let base: String
        private let lock = NSLock()
        private var brokerUp = true

        init(healthNotes: [String] = []) async throws {
            let seeded = try SeededStore()
            self.seeded = seeded
            let flag = BrokerFlag()
            var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            logger.logLevel = .critical
            server = AdminServer(address: ListenAddress(host: "127.0.0.1", port: 0), store: seeded.store, registry: MetricsRegistry(),
                                 metrics: nil, brokerStatus: { BrokerStatus(connected: flag.up, generation: 1) }, logger: logger,
                                 healthDeadline: .seconds(1), now: { seeded.clock.now }, healthNotes: healthNotes)
            broker = flag
            base = "http://\(try await server.start())"
        }

        let broker: BrokerFlag

        func get(_ path: String) async throws -> HTTPReply { try await httpGet(base + path) }
    }

    final class BrokerFlag: @unchecked Sendable {
        // Reason: `value` is guarded by `lock`.
        private let lock = NSLock()
        private var value = true
        var up: Bool {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    @Test("/ lists every job with state, attempts, age, duration, outputs ok/total and the escaped error; no secret")
    func jobList() async throws {
        let running = try await Running()
        defer { Task { await running.server.stop() } }
        let page = try await running.get("/")
        #expect(page.status == 200)
        #expect(page.contentType.hasPrefix("text/html"))
        let rows = page.body.components(separatedBy: "<tr class=\"job\"").dropFirst()
        #expect(rows.map { $0.firstMatch(of: /data-job="([^"]+)"/).map { String($0.1) } } == SeededStore.jobIDs)

        let archive = try #require(rows.first { $0.contains("archive-0001") })
        #expect(archive.contains("state-succeeded"))
        #expect(archive.contains("12.5 s"), "duration")
        #expect(archive.contains("2 / 2"), "outputs ok/total")
        #expect(archive.contains("3 min 38 s"), "age: created 217.5 s before now")
        let restream = try #require(rows.first { $0.contains("cam42-restream") })
        #expect(restream.contains("state-failed"))
        #expect(restream.contains("1 / 3"), "attempts of max_attempts")
        #expect(restream.contains("0 / 2"))
        #expect(restream.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;"))
        let live = try #require(rows.first { $0.contains("live-0099") })
        #expect(live.contains("state-running") && live.contains("1 min 30 s"), "a running job's duration counts up")
        #expect(rows.contains { $0.contains("bad-spec-7") && $0.contains("state-rejected") && $0.contains("colour") })

        #expect(!page.body.contains("<script>"))
        for secret in SeededStore.secrets { #expect(!page.body.contains(secret), "\(secret) leaked") }

        let failed = try await running.get("/?state=failed")
        #expect(failed.body.contains("data-job=\"cam42-restream\""))
        #expect(!failed.body.contains("data-job=\"archive-0001\""))
    }

    @Test("/jobs/ID shows outputs with drops and reconnects, events, the redacted spec and both charts; no secret")
    func jobPage() async throws {
        let running = try await Running()
        defer { Task { await running.server.stop() } }
        let page = try await running.get("/jobs/cam42-restream")
        #expect(page.status == 200)
        let body = page.body
        for secret in SeededStore.secrets { #expect(!body.contains(secret), "\(secret) leaked") }
        #expect(!body.contains("<script>"))
        #expect(body.contains("rtmp://a.example/live/***"))
        #expect(body.contains("<td class=\"num\">17</td><td class=\"num\">4</td>"), "drops and reconnects of output 0")
        #expect(body.contains("cannot connect to rtmp://a.example/live/***: Connection refused"))
        #expect(body.contains("4.5 MB"))
        for kind in ["job.received", "job.running", "job.failed"] { #expect(body.contains(kind)) }
        #expect(body.contains("Spec (redacted)") && body.contains("&quot;max_attempts&quot; : 3"))

        // Two charts; bitrate per 2 s interval: 750 kB → 3000 kbit/s, then 1500 after the step down.
        let charts = body.matches(of: /<svg[^>]*class="chart"/)
        #expect(charts.count == 2)
        let lines = body.matches(of: /<polyline points="([^"]+)"/).map { String($0.1) }
        try #require(lines.count == 2)
        let bitrate = lines[0].split(separator: " ").compactMap { Double($0.split(separator: ",")[1]) }
        #expect(bitrate.count == 9, "one point per interval between the 10 samples")
        // SVG y grows downward: the second half (half the bitrate) sits lower on the chart, at a larger y.
        #expect(Set(bitrate.prefix(4)).count == 1 && Set(bitrate.suffix(4)).count == 1)
        #expect(bitrate[0] < bitrate[8])
        #expect(body.contains(">3000</text>") || body.contains(">3000.0</text>") || body.contains(">5000</text>"), "y axis tops out at a round number")

        // An SRT output's link, once measured, is a column of its own.
        #expect(!body.contains("SRT link"), "no output has a link yet")
        try running.seeded.store.updateOutput(jobID: "cam42-restream", index: 0, update: OutputUpdate(srt: SRTLinkRecord(
            roundTripMilliseconds: 63.4, sendMegabitsPerSecond: 2.25, packetsSent: 1200, packetsLost: 12, packetsRetransmitted: 13, packetsDropped: 0)))
        let linked = try await running.get("/jobs/cam42-restream").body
        #expect(linked.contains("<th>SRT link</th>"))
        #expect(linked.contains("<td class=\"srt-link\">rtt 63.4 ms, 2.2 Mb/s, 1.00 % lost (12 of 1200), 13 retransmitted, 0 dropped</td>"), "\(linked)")
        #expect(linked.contains("<td class=\"srt-link\"></td>"), "the file output's cell is empty")

        let missing = try await running.get("/jobs/no-such-job")
        #expect(missing.status == 404)
        #expect(missing.body.contains("no-such-job"))
    }

    @Test("a running job's WHEP output is watched at /jobs/ID/watch/N: a link on the job's page, a page that posts to the output (its own host for 0.0.0.0) and never holds the token; any other output or job is 404")
    func watchPage() async throws {
        let running = try await Running()
        defer { Task { await running.server.stop() } }
        let job = try await running.get("/jobs/live-0099").body
        // Only the WHEP output (1) has the link; the FLV archive (0) has none.
        #expect(job.matches(of: /class="watch"/).count == 1)
        #expect(job.contains("whep://0.0.0.0:8088/watch/live-0099 <a class=\"watch\" href=\"/jobs/live-0099/watch/1\">watch</a>"), "\(job)")

        let page = try await running.get("/jobs/live-0099/watch/1")
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        // The endpoint as the script takes it: 0.0.0.0 binds every interface, so the page posts to its own host.
        #expect(page.body.contains(#"const config = {"host": "0.0.0.0", "port": "8088", "path": "/watch/live-0099", "anyHost": true};"#), "\(page.body)")
        #expect(page.body.contains("new RTCPeerConnection()") && page.body.contains(#"method: "POST""#) && page.body.contains(#"method: "DELETE""#))
        // A live player is not reloaded under the viewer, as the job's own page is every 5 s.
        #expect(!page.body.contains("http-equiv=\"refresh\"") && job.contains("http-equiv=\"refresh\""))
        for secret in SeededStore.secrets { #expect(!page.body.contains(secret) && !job.contains(secret), "\(secret) leaked") }

        for path in ["/jobs/live-0099/watch/0", "/jobs/live-0099/watch/2", "/jobs/live-0099/watch/x", "/jobs/cam42-restream/watch/0", "/jobs/nope/watch/1"] {
            let missing = try await running.get(path)
            #expect(missing.status == 404 && !missing.body.contains("RTCPeerConnection"), "\(path): \(missing.status)")
        }
        // A job that is not running offers no player.
        try running.seeded.store.transition(id: "live-0099", to: .succeeded, message: "done")
        #expect(!(try await running.get("/jobs/live-0099").body.contains("class=\"watch\"")))
    }

    @Test("the watch page's endpoint is a script literal nothing can break out of: quotes, backslashes, </script>, line separators")
    func watchScriptLiteral() {
        #expect(WatchPage.scriptString("/a\"b\\c</script><!--&\u{2028}\n") == #""/a\"b\\c\u003c/script\u003e\u003c!--\u0026\u2028\u000a""#)
        #expect(WatchPage.scriptString("/watch/cam-1") == #""/watch/cam-1""#)
    }

    @Test("the chart series are per-interval rates, and the y axis rounds up to 1, 2 or 5 × 10ⁿ")
    func chartSeries() throws {
        let seeded = try SeededStore()
        let samples = try seeded.store.progress(jobID: "cam42-restream")
        let (bitrate, fps) = ChartSeries.rates(from: samples)
        #expect(bitrate.points.map(\.value) == [3000, 3000, 3000, 3000, 1500, 1500, 1500, 1500, 1500])
        #expect(fps.points.map(\.value) == [30, 30, 30, 30, 15, 15, 15, 15, 15])
        #expect(fps.points.map(\.t) == [2, 4, 6, 8, 10, 12, 14, 16, 18])
        #expect([ProgressChart.niceCeiling(3000), ProgressChart.niceCeiling(30), ProgressChart.niceCeiling(0.7), ProgressChart.niceCeiling(0)]
            == [5000, 50, 1, 1])
        // Thinning keeps the newest sample and at most about maxPoints.
        let thinned = try seeded.store.progress(jobID: "cam42-restream", maxPoints: 4)
        #expect(thinned.count <= 5 && thinned.last == samples.last && thinned.first == samples.first)
    }

    @Test("/healthz: 200 ok; 503 with the reason while the database is locked by another process or the broker is down")
    func health() async throws {
        let running = try await Running()
        defer { Task { await running.server.stop() } }
        let healthy = try await running.get("/healthz")
        #expect(healthy.status == 200 && healthy.body == "ok\n")

        // Another process holds the write lock (as a stuck writer would) for 4 s.
        let path = running.seeded.store.path
        let locker = Task {
            try await runProgram("/usr/bin/python3", ["-c", """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(4); c.execute('ROLLBACK')
                """, path])
        }
        var locked: HTTPReply?
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline {
            let reply = try await running.get("/healthz")
            if reply.status == 503 { locked = reply; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let reply = try #require(locked, "never 503 while the database was locked")
        #expect(reply.body.hasPrefix("database is not writable: "), "\(reply.body)")
        #expect(reply.body.split(separator: "\n").count == 1)
        let lockerResult = try await locker.value
        #expect(lockerResult.status == 0, "\(lockerResult.output)")
        #expect(try await running.get("/healthz").status == 200, "healthy again once the lock is released")

        running.broker.up = false
        let down = try await running.get("/healthz")
        #expect(down.status == 503 && down.body == "broker connection is down\n")
    }

    @Test("/healthz: a library the worker cannot load is said on a line of its own, and the worker stays healthy")
    func healthNotes() async throws {
        let note = "libav cannot be loaded (file jobs, encodes, renditions and slates fail): libavcodec.so.59: cannot open shared object file"
        let running = try await Running(healthNotes: [note])
        defer { Task { await running.server.stop() } }
        let healthy = try await running.get("/healthz")
        #expect(healthy.status == 200 && healthy.body == "ok\n" + note + "\n", "\(healthy.body)")
        running.broker.up = false
        let down = try await running.get("/healthz")
        #expect(down.status == 503 && down.body == "broker connection is down\n" + note + "\n", "\(down.body)")
    }
}
