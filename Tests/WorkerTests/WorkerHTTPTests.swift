import Foundation
import SluiceTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JobStore
import Testing

/// `sluice worker --http` end to end: the real binary against the private broker, read over HTTP.
@Suite(.enabled(if: PrivateBroker.isAvailable, PrivateBroker.unavailableReason), .timeLimit(.minutes(2)))
struct WorkerHTTPTests {
    @Test("metrics after a job, JSON log lines per event, /healthz 503 while the broker refuses the worker and 200 once it is back")
    func metricsHealthAndLogs() async throws {
        let harness = try await QueueHarness("wk-http")
        let clip = try await Media.clip(seconds: 2)
        let worker = try harness.startWorker(id: "w-http", ["--http", "127.0.0.1:0", "--log-format", "json"])
        var base: String?
        _ = await eventually(timeout: .seconds(10)) {
            base = worker.log.firstMatch(of: /on (http:\/\/127\.0\.0\.1:[0-9]+)\//).map { String($0.1) }
            return base != nil
        }
        let http = try #require(base, "no listening line: \(worker.log)")
        #expect(try await eventually(timeout: .seconds(10)) { try await get(http + "/healthz").status == 200 }, "\(worker.log)")

        try await harness.enqueue(WorkerQueueTests.job("http-job", input: clip, outputs: ["h.flv", "h.aac", "h.h264"]))
        try #require(try await eventually { try harness.job("http-job")?.state == .succeeded }, "\(worker.log.suffix(3000))")

        // The store records the end before the worker counts it and logs it: wait for the counters to show it.
        var metrics: [String: Double] = [:]
        _ = try await eventually(timeout: .seconds(10)) {
            metrics = samples(try await get(http + "/metrics").body)
            return metrics["sluice_jobs_running"] == 0 && metrics["sluice_jobs_total{state=\"succeeded\"}"] == 1
                && metrics["sluice_job_duration_seconds_count{state=\"succeeded\"}"] != nil && worker.log.contains("\"succeeded\"")
        }
        // Counters agree with what the store recorded for the job's outputs.
        #expect(metrics["sluice_jobs_total{state=\"succeeded\"}"] == 1)
        #expect(metrics["sluice_jobs_total{state=\"failed\"}"] == 0)
        #expect(metrics["sluice_jobs_running"] == 0)
        #expect(metrics["sluice_job_duration_seconds_count{state=\"succeeded\"}"] == 1)
        #expect(metrics["sluice_broker_up"] == 1)
        #expect(metrics["sluice_broker_connections_total"] == 1)
        let outputs = try harness.store.outputs(jobID: "http-job")
        for (output, kind) in zip(outputs, ["flv", "adts", "annexb"]) {
            #expect(output.bytes > 0)
            #expect(metrics["sluice_output_bytes_total{kind=\"\(kind)\"}"] == Double(output.bytes), "\(kind)")
            #expect(metrics["sluice_output_frames_total{kind=\"\(kind)\"}"] == Double(output.frames), "\(kind)")
        }
        #expect(outputs[0].frames == 60)

        // One JSON object per line; each event line carries the job id, its state and the attempt number.
        let lines = worker.log.split(separator: "\n").filter { $0.hasPrefix("{") }
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.allSatisfy { $0["worker"] as? String == "w-http" && $0["at"] is String && $0["message"] is String })
        let events = objects.filter { $0["job"] as? String == "http-job" && $0["state"] != nil }
        #expect(events.map { $0["state"] as? String } == ["received", "running", "succeeded"])
        #expect(events.last?["attempt"] as? Int == 1)

        let page = try await get(http + "/jobs/http-job")
        #expect(page.status == 200 && page.body.contains("h.h264") && page.body.contains("<svg"))

        // The broker refuses this worker: its connection is closed and reconnecting fails until access returns.
        let user = harness.configuration.url.user
        try await PrivateBroker.ctl(["clear_permissions", "-p", harness.vhost, user])
        try await PrivateBroker.ctl(["close_all_connections", "-p", harness.vhost, "test: broker away"])
        var down: (status: Int, body: String)?
        _ = try await eventually(timeout: .seconds(15)) {
            let reply = try await get(http + "/healthz")
            if reply.status == 503 { down = reply }
            return down != nil
        }
        #expect(down?.body == "broker connection is down\n", "\(worker.log.suffix(2000))")
        #expect(samples(try await get(http + "/metrics").body)["sluice_broker_up"] == 0)

        try await PrivateBroker.ctl(["set_permissions", "-p", harness.vhost, user, ".*", ".*", ".*"])
        #expect(try await eventually(timeout: .seconds(20)) { try await get(http + "/healthz").status == 200 }, "\(worker.log.suffix(2000))")
        #expect(samples(try await get(http + "/metrics").body)["sluice_broker_connections_total"] ?? 0 >= 2)
    }

    private func get(_ url: String) async throws -> (status: Int, body: String) {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: try #require(URL(string: url)))
        return (try #require(response as? HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
    }

    /// `series → value` from a Prometheus text exposition.
    private func samples(_ exposition: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }
}
