import Foundation
import Logging
@testable import SluiceHTTP
import Testing

/// Debian's Chromium (scripts/bootstrap installs it).
let chromium = "/usr/bin/chromium"

/// The admin page as a browser renders it: Debian's Chromium, headless, against the in-process server.
/// Under CI it runs regardless, so a missing Chromium fails it instead of skipping it.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium) || ProcessInfo.processInfo.environment["CI"] == "true",
                "chromium is not installed (scripts/bootstrap installs it)"),
       .timeLimit(.minutes(1)))
struct AdminPageBrowserTests {
    @Test("headless Chromium renders / with every seeded job and /jobs/ID with both charts; screenshots are PNGs")
    func rendersSeededJobs() async throws {
        let seeded = try SeededStore()
        var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        let server = AdminServer(address: ListenAddress(host: "127.0.0.1", port: 0), store: seeded.store, registry: MetricsRegistry(),
                                 metrics: nil, brokerStatus: { BrokerStatus(connected: true, generation: 1) }, logger: logger,
                                 now: { seeded.clock.now })
        let base = "http://\(try await server.start())"
        defer { Task { await server.stop() } }
        let profile = (seeded.folder as NSString).appendingPathComponent("chromium-profile")
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--hide-scrollbars"]

        let list = try await runProgram(chromium, common + ["--dump-dom", base + "/"], keepStandardError: false)
        #expect(list.status == 0)
        // The DOM Chromium built, not our text: every seeded job is a row with its link and state.
        let rows = list.output.matches(of: /<tr class="job" data-job="([^"]+)">/).map { String($0.1) }
        #expect(rows == SeededStore.jobIDs)
        for id in SeededStore.jobIDs { #expect(list.output.contains("href=\"/jobs/\(id)\"")) }
        for secret in SeededStore.secrets { #expect(!list.output.contains(secret)) }

        let job = try await runProgram(chromium, common + ["--dump-dom", base + "/jobs/cam42-restream"], keepStandardError: false)
        #expect(job.output.components(separatedBy: "<polyline ").count - 1 == 2)

        // Screenshots for a person to look at (kept in SLUICE_SCREENSHOTS when set).
        let folder = ProcessInfo.processInfo.environment["SLUICE_SCREENSHOTS"] ?? seeded.folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, path) in [("admin-jobs.png", "/"), ("admin-job.png", "/jobs/cam42-restream")] {
            let file = (folder as NSString).appendingPathComponent(name)
            let shot = try await runProgram(chromium, common + ["--screenshot=\(file)", "--window-size=1400,1100", base + path],
                                            keepStandardError: false)
            #expect(shot.status == 0)
            let png = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(png.count > 20_000, "\(name) is \(png.count) bytes: a blank page?")
        }
    }
}
