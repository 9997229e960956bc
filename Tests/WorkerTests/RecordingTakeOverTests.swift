import Foundation
import JobStore
import SluiceTestSupport
import Testing

/// A live recording in segments whose worker is killed: two real workers, each with its own database, and the real
/// broker. The worker that takes the job over finds the cut-short segment on disk (the killed worker's record of it
/// went with that worker), closes it playable, and records on (docs/ARCHITECTURE.md §7).
@Suite("Recording take-over", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct RecordingTakeOverTests {
    static let segment = 4.0

    @Test("kill -9 mid-segment: every closed segment plays, the cut-short one is closed playable to within a fragment of the kill by the worker that takes over, and its segments follow on")
    func killedRecording() async throws {
        let fixture = try await LongRestream("rec-kill", seconds: 16)
        let pair = [try fixture.startWorker("w-a"), try fixture.startWorker("w-b")]
        try await fixture.enqueue(outputs: #"[{"url": "rec/cam-%Y%m%dT%H%M%S.mp4", "segment_s": 4}]"#)
        var found: LongRestream.Worker?
        try #require(await eventually(timeout: .seconds(30)) {
            found = try pair.first { try fixture.store($0.id).job(id: fixture.id)?.state == .running }
            return found != nil
        }, "no worker runs the job: \(pair.map { fixture.diagnosis($0) })")
        let holder = try #require(found)
        let other = try #require(pair.first { $0.id != holder.id })
        // Two segments closed, then halfway into the next one (segments are cut on multiples of 4 s of Unix time).
        try #require(await eventually(timeout: .seconds(30)) {
            try fixture.store(holder.id).segments(jobID: fixture.id).filter { $0.closedAt != nil }.count >= 2
        }, "\(fixture.diagnosis(holder))")
        let into = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: Self.segment)
        try await Task.sleep(for: .milliseconds(Int((((Self.segment / 2 - into) + Self.segment).truncatingRemainder(dividingBy: Self.segment)) * 1000)))
        let killedAt = Date().timeIntervalSince1970
        holder.process.kill(SIGKILL)

        // The other worker takes the job over and records until max_duration_s.
        try #require(await eventually(timeout: .seconds(60)) {
            try fixture.store(other.id).job(id: fixture.id)?.state == .succeeded
        }, "\(fixture.diagnosis(other))")
        let folder = fixture.folder + "/out/rec"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.filter { $0.hasSuffix(".part") }.isEmpty, "left behind: \(files.sorted())")
        let segments = files.filter { $0.hasSuffix(".mp4") }.sorted()
        for name in segments {
            let decode = try await Subprocess.run("ffmpeg", ["-v", "error", "-i", folder + "/" + name, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.output.isEmpty, "\(name) does not play cleanly: \(decode.output)")
        }

        // The cut-short segment: closed by the other worker, marked salvaged, holding media up to within a fragment
        // (1 s) of the kill, and a second of slack for the writes in flight.
        let store = try fixture.store(other.id)
        let messages = try store.events(jobID: fixture.id).filter { $0.kind == .segmentClosed }.compactMap(\.message)
        let rows = try store.segments(jobID: fixture.id)
        let salvaged = try #require(rows.first { row in messages.contains { $0.contains("segment \(row.path) closed") && $0.contains("salvaged") } },
                                    "no salvaged segment in \(messages)")
        let start = salvaged.startAt.timeIntervalSince1970
        #expect(start < killedAt && killedAt - start < Self.segment + 2, "started at \(start), killed at \(killedAt)")
        let duration = try await Self.duration(salvaged.path)
        #expect(duration >= killedAt - start - 2 && duration <= killedAt - start + 1,
                "the salvaged segment holds \(duration) s; it started \(killedAt - start) s before the kill")
        // The take-over's own segments follow: they start after the kill, and all of them were listed and closed.
        let after = rows.filter { $0.startAt.timeIntervalSince1970 > killedAt }
        #expect(after.count >= 2 && after.allSatisfy { $0.closedAt != nil && segments.contains(($0.path as NSString).lastPathComponent) },
                "\(rows.map { "\($0.path) \($0.startAt.timeIntervalSince1970)" })")
        // Segments the killed worker closed before it went are on disk too.
        #expect(segments.count >= after.count + 3, "\(segments)")
    }

    static func duration(_ path: String) async throws -> Double {
        let probe = try await Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
