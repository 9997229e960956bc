import Foundation
import SluiceTestSupport
import JobStore
import Testing

/// `listen: true`: `sluice run` is the RTMP server and ffmpeg publishes to it, as OBS would.
@Suite("Listen mode", .serialized)
struct ListenModeTests {
    let folder = Fixtures.scratch("listen")
    var db: String { folder + "/listen.sqlite" }

    /// Starts `sluice run` listening on a fresh port, then publishes `source` to `publishPath` on it.
    func listenAndPublish(id: String, key: String, publishPath: String, timeout: Double, maxDuration: Double) throws
        -> (sluice: BackgroundProcess, publisher: BackgroundProcess) {
        let port = try TestRTMP.freePort()
        let job = folder + "/\(id).json"
        try """
            {"id": "\(id)", "input": {"url": "rtmp://127.0.0.1:\(port)/ingest/\(key)", "listen": true, "timeout_s": \(timeout)},
             "outputs": ["\(folder)/\(id).flv"], "max_duration_s": \(maxDuration)}
            """.write(toFile: job, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--quiet", "--db", db, job])
        // A publisher that comes before the listener binds is refused by the OS.
        #expect(ListeningPort.wait(port), "sluice never listened on \(port): \(sluice.stderr)")
        let publisher = try TestRTMP.publish(try Fixtures.live(seconds: 4), to: "rtmp://127.0.0.1:\(port)\(publishPath)")
        return (sluice, publisher)
    }

    @Test("a publisher with the job's app and key is taken: its frames from the first one on")
    func acceptsMatchingPublisher() throws {
        let (sluice, publisher) = try listenAndPublish(id: "listen-ok", key: "s3cret", publishPath: "/ingest/s3cret", timeout: 5, maxDuration: 2)
        #expect(sluice.wait(seconds: 20) == 0, "sluice: \(sluice.stderr)")
        publisher.wait(seconds: 10)
        let received = try FrameHashes.of(folder + "/listen-ok.flv", .video)
        #expect(received.count >= 58 && received.count <= 61, "received \(received.count) frames")
        // The cut at max_duration_s may leave the last B-frames without their packets.
        let isPrefix = Array(received.dropLast(2)) == Array(try FrameHashes.of(try Fixtures.live(seconds: 4), .video).prefix(received.count - 2))
        #expect(isPrefix, "the received frames are not the published ones from the first on")
        #expect(!sluice.stderr.contains("s3cret"))
    }

    @Test("a publisher with another stream key is refused with a clear error that shows neither key")
    func refusesWrongKey() throws {
        let (sluice, publisher) = try listenAndPublish(id: "listen-key", key: "s3cret", publishPath: "/ingest/guess", timeout: 3, maxDuration: 2)
        #expect(sluice.wait(seconds: 20) == 1)
        #expect(publisher.wait(seconds: 10) != 0, "the publisher was not disconnected")
        #expect(sluice.stderr.contains("refused the publisher: the publisher's stream key does not match the job's URL"), "stderr: \(sluice.stderr)")
        let store = try JobStore(path: db)
        let job = try #require(try store.job(id: "listen-key"))
        #expect(job.state == .failed)
        let error = try #require(job.error)
        #expect(error.contains("rtmp://127.0.0.1:") && error.contains("/ingest/***"))
        for text in [error, sluice.stderr] {
            #expect(!text.contains("s3cret") && !text.contains("guess"), "a key leaked: \(text)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/listen-key.flv"))
    }

    @Test("a publisher to another application is refused, naming both applications")
    func refusesWrongApplication() throws {
        let (sluice, publisher) = try listenAndPublish(id: "listen-app", key: "s3cret", publishPath: "/other/s3cret", timeout: 3, maxDuration: 2)
        #expect(sluice.wait(seconds: 20) == 1)
        publisher.wait(seconds: 10)
        #expect(sluice.stderr.contains("the publisher connected to application 'other', but the job listens on 'ingest'"), "stderr: \(sluice.stderr)")
    }
}
