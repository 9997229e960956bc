import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceTestSupport
import Testing

/// The admin page's player end to end, as an admin uses it: `sluice worker --http` relays a live stream from the
/// private nginx-rtmp to an FLV archive and a WHEP output; the job's page links its watch page, and headless Chromium
/// opens that page (the viewer token in its fragment), whose own script is the WHEP viewer; what the page shows is read
/// from it while it plays (scripts/lib/chromium-page.py).
@Suite(.enabled(if: PrivateBroker.isAvailable && LowLatencyRTMP.url != nil
                && (FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") || ProcessInfo.processInfo.environment["CI"] == "true"),
                "needs the private broker, nginx-rtmp and /usr/bin/chromium (scripts/bootstrap)"),
       .timeLimit(.minutes(3)))
struct WatchPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A UDP port free on loopback now (the worker's WebRTC media port).
    static func freeUDPPort() async throws -> Int {
        let found = try await Subprocess.run("/usr/bin/python3", ["-c", """
            import socket
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            print(s.getsockname()[1])
            """])
        return try #require(Int(found.output.trimmingCharacters(in: .whitespacesAndNewlines)), "no port: \(found.output)")
    }

    @Test("a running job's WHEP output plays on its watch page in Chromium: linked from the job's page, the token from the fragment, 60 frames at the clip's size and its sound; the worker logs the viewer; no page holds the token")
    func watchPagePlays() async throws {
        let harness = try await QueueHarness("wk-watch")
        let clip = (Media.inputRoot as NSString).appendingPathComponent(try await Media.clip(seconds: 60))
        let input = "\(try #require(LowLatencyRTMP.url))/watch-\(UUID().uuidString.prefix(8).lowercased())"
        let publisher = try BackgroundProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", clip,
                                                                  "-c", "copy", "-f", "flv", input])
        defer { publisher.end() }

        let mediaPort = try await Self.freeUDPPort()
        let worker = try harness.startWorker(id: "w-watch", ["--http", "127.0.0.1:0"], environment: [
            "SLUICE_WEBRTC_UDP_PORT": String(mediaPort), "SLUICE_WEBRTC_ADDRESSES": "127.0.0.1"])
        var base: String?
        _ = await eventually(timeout: .seconds(15)) {
            base = worker.log.firstMatch(of: /on (http:\/\/127\.0\.0\.1:[0-9]+)\//).map { String($0.1) }
            return base != nil
        }
        let http = try #require(base, "no listening line: \(worker.log)")
        let whepPort = try await Subprocess.run(Self.repository.appendingPathComponent("scripts/lib/free-port").path, [])
        let port = try #require(Int(whepPort.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let id = "watch-job"
        let token = "v1ewer-T0ken.watch"
        try await harness.enqueue(#"""
            {"id": "\#(id)", "input": {"url": "\#(input)", "timeout_s": 15},
             "outputs": [{"url": "watch.flv"}, {"url": "whep://127.0.0.1:\#(port)/watch/cam", "token": "\#(token)"}],
             "max_duration_s": 50}
            """#)

        // The job's page links the player once the job runs.
        var jobPage = ""
        _ = try await eventually(timeout: .seconds(30)) {
            jobPage = try await LowLatencyHLSWorkerTests.get("\(http)/jobs/\(id)").text
            return jobPage.contains("class=\"watch\"")
        }
        let link = try #require(jobPage.firstMatch(of: /<a class="watch" href="([^"]+)">watch<\/a>/).map { String($0.1) },
                                "no watch link: \(jobPage.suffix(3000)) \(worker.log.suffix(2000))")
        #expect(link == "/jobs/\(id)/watch/1")
        let watchPage = try await LowLatencyHLSWorkerTests.get(http + link).text
        #expect(!watchPage.contains(token) && !jobPage.contains(token), "a page holds the viewer token")

        // Chromium plays it: what the page itself shows (its <output> elements, from the browser's getStats).
        let shown = "JSON.stringify(Object.fromEntries(['status','frames','dropped','size','audio'].map(id => [id, document.getElementById(id).textContent])))"
        let page = try await Subprocess.run("/usr/bin/python3", [
            Self.repository.appendingPathComponent("scripts/lib/chromium-page.py").path, "\(http)\(link)#token=\(token)",
            "--value", shown, "--until", "+document.getElementById('frames').dataset.frames >= 60 && +document.getElementById('audio').dataset.packets > 0",
            "--seconds", "60"])
        let line = try #require(page.output.split(separator: "\n").last.map(String.init), "chromium-page said nothing")
        let result = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(page.output)")
        let value = (result["value"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] } ?? [:]
        #expect(result["met"] as? Bool == true, "the page did not play 60 frames with sound: \(result); the worker: \(worker.log.suffix(3000))")
        #expect(value["status"] == "connected" && value["size"] == "320x240", "\(value)")
        // The worker names the viewer, and its leaving (the page, left, DELETEs its session); the token reaches no line.
        _ = await eventually(timeout: .seconds(10)) { worker.log.contains("a WHEP viewer left after") }
        #expect(worker.log.contains("a WHEP viewer is connected") && worker.log.contains("a WHEP viewer left after"), "\(worker.log.suffix(3000))")
        #expect(!worker.log.contains(token))
    }
}
