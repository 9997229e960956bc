import Foundation
import JobStore
@testable import MediaEngine
@testable import Sluice
import SluiceHTTP
import Testing
import MediaJob
import JobDocument

/// `WorkerMetrics` fed from a real store's records and pipeline snapshots, read back through the Prometheus registry.
@Suite struct WorkerMetricsTests {
    func snapshot(_ outputs: [(bytes: Int64, frames: Int)], elapsed: Double, videoFrames: Int) -> MediaJobProgress {
        var progress = MediaJobProgress()
        progress.elapsed = elapsed
        progress.videoFrames = videoFrames
        progress.outputs = outputs.map { output in
            var counters = OutputProgress()
            counters.bytes = output.bytes
            counters.videoFrames = output.frames
            return counters
        }
        return progress
    }

    @Test("totals from snapshots and rows are counted once; a second attempt counts in full; terminal states, retries, duration, broker")
    func countsOnceAcrossSourcesAndAttempts() throws {
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        var values: [String: Double] { samples(String(decoding: registry.exposition(), as: UTF8.self)) }
        // Present before any job, so dashboards see zeros.
        #expect(values["sluice_jobs_total{state=\"succeeded\"}"] == 0)
        #expect(values["sluice_jobs_total{state=\"rejected\"}"] == 0)
        #expect(values["sluice_jobs_running"] == 0)
        #expect(values["sluice_broker_up"] == 0)

        let seeded = try SeededStore()
        let store = seeded.store
        let spec = try JobSpec.parse(Data(#"{"id": "m1", "input": "a.mp4", "outputs": [{"url": "rtmp://x.example/live/KEY"}, {"url": "a.flv"}]}"#.utf8))
        _ = try JobRunner(store: store, workerID: "w", paths: .trusted).receive(spec)
        metrics.transitioned(try #require(try store.job(id: "m1")), outputs: try store.outputs(jobID: "m1"))
        try store.startAttempt(id: "m1", workerID: "w")
        metrics.transitioned(try #require(try store.job(id: "m1")), outputs: try store.outputs(jobID: "m1"))
        #expect(values["sluice_jobs_running"] == 1)

        metrics.progressed(spec, snapshot([(100, 3), (200, 3)], elapsed: 1, videoFrames: 30))
        metrics.progressed(spec, snapshot([(150, 6), (260, 6)], elapsed: 2, videoFrames: 60))
        #expect(values["sluice_output_bytes_total{kind=\"rtmp\"}"] == 150)
        #expect(values["sluice_output_bytes_total{kind=\"flv\"}"] == 260)
        #expect(values["sluice_output_frames_total{kind=\"flv\"}"] == 6)
        #expect(values["sluice_encode_fps"] == 30)
        #expect(values["sluice_encoder_jobs{encoder=\"copy\"}"] == 1)

        // The store lags the snapshots on bytes but alone knows drops and reconnects.
        try store.updateOutput(jobID: "m1", index: 0, update: OutputUpdate(bytes: 140, drops: 2, reconnects: 1))
        metrics.observed(try #require(try store.job(id: "m1")), outputs: try store.outputs(jobID: "m1"))
        #expect(values["sluice_output_bytes_total{kind=\"rtmp\"}"] == 150)
        #expect(values["sluice_output_drops_total{kind=\"rtmp\"}"] == 2)
        #expect(values["sluice_output_reconnects_total{kind=\"rtmp\"}"] == 1)

        try store.updateOutput(jobID: "m1", index: 0, update: OutputUpdate(bytes: 170, drops: 3))
        metrics.transitioned(try store.transition(id: "m1", to: .retrying, error: "refused").job, outputs: try store.outputs(jobID: "m1"))
        #expect(values["sluice_output_bytes_total{kind=\"rtmp\"}"] == 170)
        #expect(values["sluice_output_drops_total{kind=\"rtmp\"}"] == 3)
        #expect(values["sluice_job_retries_total"] == 1)
        #expect(values["sluice_jobs_running"] == 0)
        #expect(values["sluice_encode_fps"] == 0)
        #expect(values["sluice_encoder_jobs{encoder=\"copy\"}"] == 0)

        // Attempt 2 writes from zero: all of it is new.
        try store.startAttempt(id: "m1", workerID: "w")
        metrics.transitioned(try #require(try store.job(id: "m1")), outputs: try store.outputs(jobID: "m1"))
        metrics.progressed(spec, snapshot([(50, 2), (80, 2)], elapsed: 0.5, videoFrames: 2))
        seeded.clock.advance(10)
        try store.updateOutput(jobID: "m1", index: 0, update: OutputUpdate(state: .succeeded, bytes: 60, frames: 2))
        try store.updateOutput(jobID: "m1", index: 1, update: OutputUpdate(state: .succeeded, bytes: 90, frames: 2))
        metrics.transitioned(try store.transition(id: "m1", to: .succeeded).job, outputs: try store.outputs(jobID: "m1"))
        #expect(values["sluice_output_bytes_total{kind=\"rtmp\"}"] == 230)
        #expect(values["sluice_output_bytes_total{kind=\"flv\"}"] == 350, "260 in attempt 1, 90 in attempt 2")
        #expect(values["sluice_jobs_total{state=\"succeeded\"}"] == 1)
        #expect(values["sluice_job_duration_seconds_count{state=\"succeeded\"}"] == 1)
        #expect(values["sluice_job_duration_seconds_sum{state=\"succeeded\"}"] == 10)
        #expect(values["sluice_job_duration_seconds_bucket{state=\"succeeded\",le=\"5.0\"}"] == 0)
        #expect(values["sluice_job_duration_seconds_bucket{state=\"succeeded\",le=\"15.0\"}"] == 1)

        metrics.broker(connected: true, generation: 3)
        #expect(values["sluice_broker_up"] == 1 && values["sluice_broker_connections_total"] == 3)
        metrics.broker(connected: false, generation: 3)
        #expect(values["sluice_broker_up"] == 0 && values["sluice_broker_connections_total"] == 3)
    }

    @Test("an SRT output's link: round trip and rate as gauges labelled by job and output while it runs, gone with the job; packet counters counted once")
    func srtLinks() throws {
        let registry = MetricsRegistry()
        let metrics = WorkerMetrics(factory: registry.factory)
        var exposition: String { String(decoding: registry.exposition(), as: UTF8.self) }
        var values: [String: Double] { samples(exposition) }
        let seeded = try SeededStore()
        let store = seeded.store
        let spec = try JobSpec.parse(Data(#"{"id": "s1", "input": "a.mp4", "outputs": ["a.flv", "srt://x.example:9000?streamid=read:k"]}"#.utf8))
        _ = try JobRunner(store: store, workerID: "w", paths: .trusted).receive(spec)
        try store.startAttempt(id: "s1", workerID: "w")
        metrics.transitioned(try #require(try store.job(id: "s1")), outputs: try store.outputs(jobID: "s1"))

        func link(rtt: Double, sent: Int64, lost: Int64, retransmitted: Int64) -> MediaJobProgress {
            var progress = snapshot([(100, 3), (1316 * sent, 3)], elapsed: 1, videoFrames: 3)
            progress.outputs[1].srt = SRTLinkStatistics(roundTripMilliseconds: rtt, sendMegabitsPerSecond: 2.5, packetsSent: sent,
                                                        packetsLost: lost, packetsRetransmitted: retransmitted)
            return progress
        }
        metrics.progressed(spec, link(rtt: 41.5, sent: 500, lost: 10, retransmitted: 12))
        #expect(values["sluice_srt_rtt_milliseconds{job=\"s1\",output=\"1\"}"] == 41.5)
        #expect(values["sluice_srt_send_mbps{job=\"s1\",output=\"1\"}"] == 2.5)
        #expect(values["sluice_srt_packets_sent_total"] == 500 && values["sluice_srt_packets_lost_total"] == 10)
        // A later report adds what grew; a lagging one adds nothing.
        metrics.progressed(spec, link(rtt: 38, sent: 900, lost: 15, retransmitted: 20))
        metrics.progressed(spec, link(rtt: 38, sent: 800, lost: 12, retransmitted: 20))
        #expect(values["sluice_srt_packets_sent_total"] == 900 && values["sluice_srt_packets_lost_total"] == 15)
        #expect(values["sluice_srt_packets_retransmitted_total"] == 20 && values["sluice_srt_packets_dropped_total"] == 0)
        #expect(values["sluice_srt_rtt_milliseconds{job=\"s1\",output=\"1\"}"] == 38)
        #expect(!exposition.contains("output=\"0\""), "the FLV file has no link")

        metrics.transitioned(try store.transition(id: "s1", to: .succeeded).job, outputs: try store.outputs(jobID: "s1"))
        #expect(!exposition.contains("sluice_srt_rtt_milliseconds{"), "the gauges outlived the job: \(exposition)")
        #expect(values["sluice_srt_packets_sent_total"] == 900)
    }
}
