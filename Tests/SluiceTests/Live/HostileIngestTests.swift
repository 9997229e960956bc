import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// scripts/lib/rtmp-hostile.py: hostile RTMP peers (random bytes, chunk size 0 and 2^31, a 16 MB message header,
/// a wrong key, slowloris, idle connections), each printing one `hostile MODE: …` line with what the server did.
enum HostilePeers {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scripts/lib/rtmp-hostile.py").standardizedFileURL.path
    static let modes = ["random", "chunk-size-zero", "chunk-size-huge", "big-message", "wrong-key", "slowloris", "idle"]

    /// Runs `modes` against `port` in turn and returns the harness's report, one line per mode.
    static func attack(_ modes: [String], port: Int, app: String, holdSeconds: Double, connections: Int) throws -> [String] {
        let result = try Command.run("python3", [script, "--app", app, "--key", "guessed-key", "--wait", "0.5",
                                                 "--connections", String(connections), "--duration", String(holdSeconds),
                                                 "--interval", "0.5", "127.0.0.1", String(port)] + modes)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.count == modes.count && zip(lines, modes).allSatisfy { $0.hasPrefix("hostile \($1): ") },
                "the harness did not report every mode: \(result.text) \(result.stderr)")
        return lines
    }
}

/// Anyone can reach an ingest port. A listen job (`sluice run`, `listen: true`) is attacked in
/// every mode before its publisher comes, while the publisher flows and after it left, and must carry every
/// published frame and never die. The relay engine's shared ingest listener takes the attacks beside the flowing
/// publisher, and refuses the wrong key at `publish` with NetStream.Publish.BadName. (libavformat's listener took
/// one connection at a time, so the attacks waited for the port to listen again, and it did not listen at all
/// while its publisher was connected.) Either way the publisher's stream must be untouched.
@Suite("Hostile peers on a listen job's port", .serialized)
struct HostileIngestTests {
    let folder = Fixtures.scratch("hostile")

    @Test("random bytes, chunk sizes 0 and 2^31, a 16 MB message, a wrong key, slowloris and idle peers: every frame arrives")
    func listenJobSurvivesHostilePeers() throws {
        let source = try Fixtures.live(seconds: 10)
        let port = try TestRTMP.freePort()
        let key = "hostile-k3y"
        let job = folder + "/hostile.json"
        let output = folder + "/hostile.flv"
        let db = folder + "/hostile.sqlite"
        // timeout_s bounds the wait for the publisher through the attacks before it; short backoff between the
        // peers a one-connection listener drops; the job ends at max_duration_s while the publisher still flows.
        try """
            {"id": "hostile", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/\(key)", "listen": true, "timeout_s": 30},
             "outputs": ["\(output)"], "max_duration_s": 6, "reconnect": {"initial_delay_s": 0.1, "max_delay_s": 0.2}}
            """.write(toFile: job, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--db", db, job])

        var before: [String] = []
        for mode in HostilePeers.modes {
            #expect(ListeningPort.wait(port), "nothing listened on \(port) before \(mode): \(sluice.stderr)\n\(before)")
            before += try HostilePeers.attack([mode], port: port, app: "ingest", holdSeconds: 1, connections: 5)
            #expect(sluice.process.isRunning, "sluice died under \(mode) before the publisher: \(sluice.stderr)\n\(before)")
        }
        // The publisher must find the port open: a one-connection listener reopens it after each peer it dropped.
        #expect(ListeningPort.wait(port, seconds: 10), "the port stayed closed after the attacks: \(before)")
        let publisher = try TestRTMP.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/\(key)")

        usleep(800_000)
        let during = try HostilePeers.attack(HostilePeers.modes, port: port, app: "ingest", holdSeconds: 1.5, connections: 10)
        #expect(during.joined(separator: "\n").contains("NetStream.Publish.BadName"),
                "the wrong key was not refused at publish beside the flowing publisher: \(during)")
        let status = sluice.wait(seconds: 40)
        // Exited by itself with success (not killed by a signal, nor hung): the process never died.
        #expect(status == 0 && sluice.process.terminationReason == .exit, "sluice: \(String(describing: status)) \(sluice.stderr)\n\(before)\n\(during)")
        publisher.wait(seconds: 15)

        // The publisher came after the listener was up: its frames from the first one on, up to the cut at
        // max_duration_s (which may leave the last B-frames without their packets).
        let published = try FrameHashes.of(source, .video)
        let received = try FrameHashes.of(output, .video)
        #expect(received.count >= 175 && received.count <= 181, "received \(received.count) frames")
        let isPrefix = Array(received.dropLast(2)) == Array(published.prefix(received.count - 2))
        #expect(isPrefix, "the received frames are not the published ones from the first on")
        let publishedAudio = try FrameHashes.of(source, .audio)
        let receivedAudio = try FrameHashes.of(output, .audio)
        #expect(receivedAudio.count > 250 && Array(receivedAudio.dropLast(2)) == Array(publishedAudio.prefix(receivedAudio.count - 2)),
                "the received audio is not the published audio from the first frame on")
        for text in [sluice.stderr] + before + during {
            #expect(!text.contains(key), "the job's stream key leaked: \(text)")
        }
        let record = try #require(try JobStore(path: db).job(id: "hostile"))
        #expect(record.state == .succeeded, "job \(record.state): \(record.error ?? "")")
    }

    /// Attacks after the publisher left, while the job waits `timeout_s` for it to come back: the job ends with
    /// every frame. (libavformat's listener failed it: a publisher that left was a lost input, "sent no data for
    /// 5 s", or `publisherRefused` after an earlier refusal, and the output was deleted.)
    @Test("a wrong-key peer before the publisher and attacks after it left: the job ends with every frame")
    func publisherLeavesAfterHostilePeers() throws {
        let source = try Fixtures.live(seconds: 3)
        let port = try TestRTMP.freePort()
        let key = "hostile-k3y"
        let job = folder + "/leaves.json"
        let output = folder + "/leaves.flv"
        let db = folder + "/leaves.sqlite"
        try """
            {"id": "leaves", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/\(key)", "listen": true, "timeout_s": 5},
             "outputs": ["\(output)"], "reconnect": {"initial_delay_s": 0.1, "max_delay_s": 0.2}}
            """.write(toFile: job, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--db", db, job])
        #expect(ListeningPort.wait(port), "sluice never listened on \(port): \(sluice.stderr)")
        let before = try HostilePeers.attack(["wrong-key"], port: port, app: "ingest", holdSeconds: 1, connections: 1)
        #expect(ListeningPort.wait(port, seconds: 10), "the port stayed closed after \(before)")
        let publisher = try TestRTMP.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/\(key)")
        #expect(publisher.wait(seconds: 20) == 0, "the publisher was disturbed: \(publisher.stderr)")
        let after = try HostilePeers.attack(HostilePeers.modes, port: port, app: "ingest", holdSeconds: 1, connections: 5)
        let status = sluice.wait(seconds: 40)
        #expect(status != nil && sluice.process.terminationReason == .exit, "sluice died or hung: \(sluice.stderr)\n\(after)")
        for text in [sluice.stderr] + before + after {
            #expect(!text.contains(key), "the job's stream key leaked: \(text)")
        }
        let record = try #require(try JobStore(path: db).job(id: "leaves"))
        #expect(status == 0 && record.state == .succeeded, "job \(record.state): \(record.error ?? "")")
        let received = try FrameHashes.of(output, .video)
        #expect(received == (try FrameHashes.of(source, .video)), "received \(received.count) frames, not the published ones")
    }
}
