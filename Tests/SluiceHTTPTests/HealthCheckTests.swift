import Foundation
import JobStore
@testable import SluiceHTTP
import Testing

/// `/healthz`'s free-space floors: below the floor a volume makes the worker unhealthy, by name.
@Suite(.timeLimit(.minutes(1)))
struct HealthCheckTests {
    @Test("a volume under its floor is reported with its name, path, free space and the floor; at or above it, nothing")
    func floors() throws {
        let folder = NSTemporaryDirectory()
        #expect(FreeSpaceFloor(name: "output root", path: folder, minimumBytes: 0).problem() == nil)
        // No disk here has an exabyte free.
        let problem = try #require(FreeSpaceFloor(name: "output root", path: folder, minimumBytes: 1 << 60).problem())
        #expect(problem.hasPrefix("output root \(folder) has "), "\(problem)")
        #expect(problem.hasSuffix(" MB free, below the floor of \(1 << 40) MB"), "\(problem)")
        let missing = try #require(FreeSpaceFloor(name: "database folder", path: "/no/such/folder", minimumBytes: 1).problem())
        #expect(missing == "database folder /no/such/folder: cannot read its free space: No such file or directory")
        #expect(FreeSpaceFloor.megabytes(3 * 1_048_576 / 2) == "1.5" && FreeSpaceFloor.megabytes(512 * 1_048_576) == "512")
    }

    @Test("the report joins every problem: broker, database, floors")
    func report() async throws {
        let seeded = try SeededStore()
        let folder = NSTemporaryDirectory()
        let healthy = HealthCheck(store: seeded.store, brokerStatus: { BrokerStatus(connected: true, generation: 1) },
                                  floors: [FreeSpaceFloor(name: "output root", path: folder, minimumBytes: 1)])
        #expect(await healthy.check() == HealthReport(isHealthy: true, reason: "ok"))
        let full = HealthCheck(store: seeded.store, brokerStatus: { BrokerStatus(connected: false, generation: 1) },
                               floors: [FreeSpaceFloor(name: "output root", path: folder, minimumBytes: 1),
                                        FreeSpaceFloor(name: "database folder", path: folder, minimumBytes: 1 << 60)])
        let report = await full.check()
        #expect(!report.isHealthy)
        let parts = report.reason.components(separatedBy: "; ")
        #expect(parts.count == 2 && parts[0] == "broker connection is down", "\(report.reason)")
        #expect(parts.last?.hasPrefix("database folder \(folder) has ") == true, "\(report.reason)")
    }
}
