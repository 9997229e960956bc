import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import MediaFormats
import MediaJob
@testable import SluiceHTTP
import Testing

/// `/hls/JOB/OUTPUT/FILE` in-process: a registry the test publishes to, files in a folder of its own, the real server.
@Suite(.timeLimit(.minutes(1)))
struct LiveHLSRoutesTests {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    final class Running: @unchecked Sendable {
        // Reason: every property is set in init and never changed.
        let seeded: SeededStore
        let server: AdminServer
        let base: String
        let registry = LivePlaylistRegistry()
        let folder: String

        init() async throws {
            seeded = try SeededStore()
            folder = NSTemporaryDirectory() + "llhls-routes-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            logger.logLevel = .critical
            server = AdminServer(address: ListenAddress(host: "127.0.0.1", port: 0), store: seeded.store, registry: MetricsRegistry(),
                                 metrics: nil, brokerStatus: { BrokerStatus(connected: true, generation: 1) }, logger: logger,
                                 livePlaylists: registry)
            base = "http://\(try await server.start())"
        }

        func get(_ path: String) async throws -> Reply {
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(from: try #require(URL(string: base + path)))
            let http = try #require(response as? HTTPURLResponse)
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            return Reply(status: http.statusCode, headers: headers, body: data)
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static let key = LivePlaylistKey(jobID: "cam-1", output: 0)

    /// Publishes parts of 1/3 s into a live window, writing each part's file first, as the sink does. A blocking
    /// request waits three target durations (`targetDuration` s each) for the part it names.
    struct Publisher {
        var window: HLSSlidingWindow
        var count = 0
        let running: Running

        init(_ running: Running, targetDuration: Int = 1) throws {
            self.running = running
            window = try HLSSlidingWindow(configuration: .init(mode: .live(window: 10), targetDuration: targetDuration, partTarget: 1.0 / 3,
                                                               mapURI: "index-init.mp4", offersDeltaUpdates: true))
            try Data("init".utf8).write(to: URL(fileURLWithPath: running.folder + "/index-init.mp4"))
        }

        static func partURI(_ count: Int) -> String { "index-\(count / 3).\(count % 3).m4s" }

        mutating func step() throws {
            let (segment, index) = (count / 3, count % 3)
            let uri = Self.partURI(count)
            try Data("part \(uri)".utf8).write(to: URL(fileURLWithPath: running.folder + "/" + uri))
            count += 1
            let part = HLSPartialSegment(duration: 1.0 / 3, uri: uri, independent: index == 0)
            let update: HLSSlidingWindow.Update
            if index == 2 {
                let segmentURI = "index-\(segment).m4s"
                try Data("segment \(segment)".utf8).write(to: URL(fileURLWithPath: running.folder + "/" + segmentURI))
                let parts = window.playlist.openSegment.parts + [part]
                update = try window.appendSegment(HLSMediaSegment(duration: 1, uri: segmentURI, parts: parts), nextPartURI: Self.partURI(count))
            } else {
                update = try window.appendPart(part, nextPartURI: Self.partURI(count))
            }
            running.registry.publish(LivePlaylistState(playlist: update.playlist, folder: running.folder, playlistName: "index.m3u8"),
                                     for: LiveHLSRoutesTests.key)
        }
    }

    @Test("the playlist: 200 with the HLS type, no-cache; a blocking request for the next part returns once it is published, cacheable")
    func blockingReload() async throws {
        let running = try await Running()
        // A 10 s target gives the parked request 30 s: a starved test thread (CI beside a busy suite took more than
        // the 3 s a 1 s target gives between parking and publishing) still publishes before it gives up.
        var publisher = try Publisher(running, targetDuration: 10)
        for _ in 0..<4 { try publisher.step() }
        let plain = try await running.get("/hls/cam-1/0/index.m3u8")
        #expect(plain.status == 200)
        #expect(plain.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(plain.headers["cache-control"] == "no-cache")
        let parsed = try HLSMediaPlaylist(parsing: plain.text)
        #expect(parsed.serverControl?.canBlockReload == true && parsed.partTarget != nil)
        #expect(parsed.preloadHint?.uri == "index-1.1.m4s")

        // Part 1 of segment 1 is next: the request waits for it.
        let blocked = Task { try await running.get("/hls/cam-1/0/index.m3u8?_HLS_msn=1&_HLS_part=1") }
        let parked = await eventuallyTrue { running.registry.waitingCount == 1 }
        #expect(parked, "the request never parked")
        try publisher.step()
        let reply = try await blocked.value
        #expect(reply.status == 200)
        #expect(reply.headers["cache-control"] == "public, max-age=60", "six target durations")
        let playlist = try HLSMediaPlaylist(parsing: reply.text)
        #expect(playlist.openSegment.parts.map(\.uri) == ["index-1.0.m4s", "index-1.1.m4s"])
        await running.stop()
    }

    @Test("400 for bad directives and for a segment too far ahead; 503 when the part does not come in three target durations")
    func refusals() async throws {
        let running = try await Running()
        var publisher = try Publisher(running)
        for _ in 0..<4 { try publisher.step() }
        #expect(try await running.get("/hls/cam-1/0/index.m3u8?_HLS_part=1").status == 400)
        #expect(try await running.get("/hls/cam-1/0/index.m3u8?_HLS_msn=x").status == 400)
        // Segment 0 is the last complete one: 3 is more than two past it.
        #expect(try await running.get("/hls/cam-1/0/index.m3u8?_HLS_msn=3").status == 400)
        // Segment 2 is allowed; nothing is published, so the wait ends in 503 after ~3 s.
        let timedOut = try await running.get("/hls/cam-1/0/index.m3u8?_HLS_msn=2")
        #expect(timedOut.status == 503, "\(timedOut.text)")
        #expect(running.registry.waitingCount == 0)
        await running.stop()
    }

    @Test("delta updates: _HLS_skip=YES once the playlist is longer than the skip boundary carries EXT-X-SKIP")
    func deltaUpdate() async throws {
        let running = try await Running()
        var publisher = try Publisher(running)
        for _ in 0..<30 { try publisher.step() }
        let delta = try await running.get("/hls/cam-1/0/index.m3u8?_HLS_skip=YES")
        #expect(delta.status == 200)
        let playlist = try HLSMediaPlaylist(parsing: delta.text)
        #expect(playlist.skippedSegments > 0, "\(delta.text)")
        let full = try HLSMediaPlaylist(parsing: try await running.get("/hls/cam-1/0/index.m3u8").text)
        #expect(full.skippedSegments == 0 && full.segments.count == playlist.segments.count + Int(playlist.skippedSegments))
        await running.stop()
    }

    @Test("files: types and caching; the hinted part waits for its bytes; unknown jobs, outputs, names and escapes are 404")
    func files() async throws {
        let running = try await Running()
        var publisher = try Publisher(running)
        for _ in 0..<4 { try publisher.step() }
        let initSegment = try await running.get("/hls/cam-1/0/index-init.mp4")
        #expect(initSegment.status == 200 && initSegment.text == "init")
        #expect(initSegment.headers["content-type"] == "video/mp4")
        #expect(initSegment.headers["cache-control"] == "public, max-age=60")
        let part = try await running.get("/hls/cam-1/0/index-1.0.m4s")
        #expect(part.status == 200 && part.text == "part index-1.0.m4s")
        #expect(part.headers["content-type"] == "video/iso.segment")
        #expect(try await running.get("/hls/cam-1/0/index-0.m4s").text == "segment 0")

        // The preload hint (part 1 of segment 1) does not exist yet: the request waits for it.
        let hinted = Task { try await running.get("/hls/cam-1/0/index-1.1.m4s") }
        #expect(await eventuallyTrue { running.registry.waitingCount == 1 })
        try publisher.step()
        let reply = try await hinted.value
        #expect(reply.status == 200 && reply.text == "part index-1.1.m4s")

        // Outside the folder, hidden, linked or unknown: 404.
        try Data("secret".utf8).write(to: URL(fileURLWithPath: running.folder + "/../llhls-secret.m4s"))
        try FileManager.default.createSymbolicLink(atPath: running.folder + "/link.m4s", withDestinationPath: "/etc/hostname")
        try Data("tmp".utf8).write(to: URL(fileURLWithPath: running.folder + "/.index-2.0.m4s.part"))
        for path in ["/hls/cam-1/0/..%2Fllhls-secret.m4s", "/hls/cam-1/0/%2E%2E%2Fllhls-secret.m4s", "/hls/cam-1/0/link.m4s",
                     "/hls/cam-1/0/.index-2.0.m4s.part", "/hls/cam-1/0/index.txt", "/hls/cam-1/1/index.m3u8",
                     "/hls/cam-2/0/index.m3u8", "/hls/cam-1/0/other.m3u8", "/hls/cam-1/-1/index.m3u8", "/hls/cam-1/0/missing.m4s"] {
            let reply = try await running.get(path)
            #expect(reply.status == 404, "\(path): \(reply.status) \(reply.text)")
        }
        try? FileManager.default.removeItem(atPath: running.folder + "/../llhls-secret.m4s")
        // A retired output is gone.
        running.registry.retire(LiveHLSRoutesTests.key)
        #expect(try await running.get("/hls/cam-1/0/index.m3u8").status == 404)
        #expect(try await running.get("/hls/cam-1/0/index-init.mp4").status == 404)
        await running.stop()
    }

    @Test("a job's multivariant playlist: /hls/JOB/NAME while the job runs, its variants at OUTPUT/PLAYLIST beside it; 404 otherwise")
    func multivariant() async throws {
        let running = try await Running()
        var publisher = try Publisher(running)
        try publisher.step()
        #expect(try await running.get("/hls/cam-1/master.m3u8").status == 404, "nothing published yet")
        let text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS=\"avc1.64001f\"\n0/index.m3u8\n"
        running.registry.publishMultivariant(text, name: "master.m3u8", jobID: "cam-1")
        let reply = try await running.get("/hls/cam-1/master.m3u8")
        #expect(reply.status == 200 && reply.text == text)
        #expect(reply.headers["content-type"] == "application/vnd.apple.mpegurl" && reply.headers["cache-control"] == "no-cache")
        // The variant's URI, resolved against the multivariant playlist's URL, is the output's live media playlist.
        let variant = try #require(URL(string: "0/index.m3u8", relativeTo: URL(string: running.base + "/hls/cam-1/master.m3u8"))).absoluteURL
        #expect(variant.path == "/hls/cam-1/0/index.m3u8")
        #expect(try await running.get(variant.path).status == 200)
        for path in ["/hls/cam-1/other.m3u8", "/hls/cam-2/master.m3u8", "/hls/cam-1/master.m4s", "/hls/cam-1/..%2Fmaster.m3u8"] {
            let refused = try await running.get(path)
            #expect(refused.status == 404, "\(path): \(refused.status)")
        }
        running.registry.retireMultivariant(jobID: "cam-1")
        #expect(try await running.get("/hls/cam-1/master.m3u8").status == 404)
        await running.stop()
    }

    @Test("file names: one plain component of a served kind, or nothing")
    func names() {
        #expect(LiveHLSResource(name: "index.m3u8")?.kind == .playlist)
        #expect(LiveHLSResource(name: "index-00012.3.m4s")?.kind == .media)
        #expect(LiveHLSResource(name: "index-init.mp4")?.kind == .initSegment)
        for name in ["", "..", "../a.m4s", "a/b.m4s", ".a.m4s", "a.m4s\0", "a b.m4s", "a.ts", "a.m3u8?x", String(repeating: "a", count: 300) + ".m4s"] {
            #expect(LiveHLSResource(name: name) == nil, "\(name)")
        }
    }
}

/// Waits up to 20 s for `condition`, checking every 5 ms (a test's wait, not the product's).
func eventuallyTrue(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
