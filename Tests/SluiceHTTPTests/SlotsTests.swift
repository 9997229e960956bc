import Foundation
import JobQueue
import JobStore
import Logging
@testable import Sluice
@testable import SluiceHTTP
import Testing

/// Each class's slots, in /metrics and on the admin page.
@Suite(.timeLimit(.minutes(1)))
struct SlotsTests {
    @Test("sluice_worker_slots and sluice_worker_slots_busy by class follow what the worker reports; sluice_jobs_running keeps no label")
    func slotGauges() throws {
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        var values: [String: Double] { samples(String(decoding: registry.exposition(), as: UTF8.self)) }
        #expect(metrics.slotUsage.isEmpty)
        metrics.slots(.live, capacity: 100, busy: 0)
        metrics.slots(.batch, capacity: 1, busy: 0)
        #expect(values["sluice_worker_slots{class=\"live\"}"] == 100)
        #expect(values["sluice_worker_slots{class=\"batch\"}"] == 1)
        #expect(values["sluice_worker_slots_busy{class=\"live\"}"] == 0)
        metrics.slots(.live, capacity: 100, busy: 37)
        metrics.slots(.batch, capacity: 1, busy: 1)
        #expect(values["sluice_worker_slots_busy{class=\"live\"}"] == 37)
        #expect(values["sluice_worker_slots_busy{class=\"batch\"}"] == 1)
        #expect(values["sluice_jobs_running"] == 0, "the unlabeled total is fed by transitions, not by slot reports")
        #expect(metrics.slotUsage == [SlotUsage(jobClass: .live, capacity: 100, busy: 37),
                                      SlotUsage(jobClass: .batch, capacity: 1, busy: 1)])
    }

    @Test("the encode budget is the encode class's slots, in units; deliveries that did not fit are counted from zero")
    func encodeBudgetGauges() throws {
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        var values: [String: Double] { samples(String(decoding: registry.exposition(), as: UTF8.self)) }
        #expect(values["sluice_worker_encode_deferred_total"] == 0, "shown from the start, so dashboards see a zero")
        metrics.slots(.encode, capacity: 4, busy: 0)
        metrics.slots(.encode, capacity: 4, busy: 3)
        #expect(values["sluice_worker_slots{class=\"encode\"}"] == 4)
        #expect(values["sluice_worker_slots_busy{class=\"encode\"}"] == 3)
        metrics.encodeDeferred()
        metrics.encodeDeferred()
        #expect(values["sluice_worker_encode_deferred_total"] == 2)
        #expect(metrics.slotUsage == [SlotUsage(jobClass: .encode, capacity: 4, busy: 3)])
    }

    @Test("/ shows each class's running, slots and free slots above the job list; without worker metrics, no slot table")
    func adminPageShowsSlots() async throws {
        let seeded = try SeededStore()
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        metrics.slots(.live, capacity: 100, busy: 3)
        metrics.slots(.batch, capacity: 2, busy: 2)
        metrics.slots(.encode, capacity: 4, busy: 3)
        var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        let server = AdminServer(address: ListenAddress(host: "127.0.0.1", port: 0), store: seeded.store, registry: registry,
                                 metrics: metrics, brokerStatus: { BrokerStatus(connected: true, generation: 1) }, logger: logger,
                                 healthDeadline: .seconds(1), now: { seeded.clock.now })
        let base = "http://\(try await server.start())"
        let page = try await httpGet(base + "/")
        await server.stop()
        #expect(page.status == 200)
        let rows = page.body.components(separatedBy: "<tr class=\"slot\"").dropFirst()
        #expect(rows.count == 3)
        let live = try #require(rows.first { $0.hasPrefix(" data-class=\"live\"") })
        #expect(live.contains("<td class=\"num\">3</td><td class=\"num\">100</td><td class=\"num\">97</td>"), "\(live)")
        let batch = try #require(rows.first { $0.hasPrefix(" data-class=\"batch\"") })
        #expect(batch.contains("<td class=\"num\">2</td><td class=\"num\">2</td><td class=\"num\">0</td>"), "\(batch)")
        let encode = try #require(rows.first { $0.hasPrefix(" data-class=\"encode\"") })
        #expect(encode.contains("<td>encode (720p30 units)</td><td class=\"num\">3</td><td class=\"num\">4</td><td class=\"num\">1</td>"), "\(encode)")
        let slotsAt = try #require(page.body.range(of: "<h1>Slots</h1>"))
        let jobsAt = try #require(page.body.range(of: "<h1>Recent jobs</h1>"))
        #expect(slotsAt.lowerBound < jobsAt.lowerBound)

        let list = JobListPage(jobs: [], tallies: [:], counts: [:], filter: nil, limit: 10, now: Date()).html()
        #expect(!list.contains("<h1>Slots</h1>") && list.contains("<h1>Recent jobs</h1>"))
    }
}
