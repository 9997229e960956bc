import Foundation
import JobDocument
import JobStore
import MediaFormats
import MediaJob
@testable import Sluice
import SluiceTestSupport
import Testing

/// A live pull recorded in segments of 2 s of wall-clock time, to MP4 and MPEG-TS side by side: segments cut on
/// epoch multiples, each a file that plays on its own, each recorded in `segments` and announced as an event.
@Suite("Segmented recordings of live jobs", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct SegmentedRecordingTests {
    @Test("RTMP pull → .mp4 and .ts with segment_s 2 for 7 s: epoch-aligned segments that each play, rows in SQLite, events")
    func liveSegments() throws {
        let source = try Fixtures.live(seconds: 12)
        let input = try TestRTMP.stream("segments-src")
        let harness = try JobHarness("segments-live")
        let publisher = try TestRTMP.publish(source, to: input)
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let mp4Pattern = harness.path("rec/cam-%Y%m%dT%H%M%S.mp4")
        let tsPattern = harness.path("rec/cam-%s.ts")
        let outcome = try harness.run(json: """
            {"id": "segments-live", "input": {"url": "\(input)", "timeout_s": 5},
             "outputs": [{"url": "\(mp4Pattern)", "segment_s": 2}, {"url": "\(tsPattern)", "segment_s": 2, "retain": 50}],
             "max_duration_s": 7}
            """)
        publisher.wait(seconds: 15)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        // The rows, as an operator reads them with the sqlite3 shell.
        let shell = try Command.run("sqlite3", ["-separator", "|", harness.store.path,
            "SELECT idx, path, CAST(strftime('%s', start_at) AS INTEGER), duration_s, bytes, closed_at IS NOT NULL FROM segments WHERE job_id = 'segments-live' ORDER BY idx, start_at"])
        let rows = shell.text.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.allSatisfy { $0.count == 6 && $0[5] == "1" }, "a segment was left open: \(shell.text)")
        for output in ["0", "1"] {
            let segments = rows.filter { $0.first == output }
            // 7 s of media in 2 s slots: the first partial, then whole ones; at least three pieces.
            #expect(segments.count >= 3 && segments.count <= 6, "output \(output): \(segments.count) segments: \(shell.text)")
            for (number, row) in segments.enumerated() {
                let path = row[1]
                #expect(FileManager.default.fileExists(atPath: path), "\(path) is not in place")
                #expect(Int64(row[4]) == Int64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1),
                        "\(path): bytes recorded \(row[4])")
                // Every segment plays on its own: it decodes to frames, from a keyframe.
                let frames = try FrameHashes.of(path, .video)
                #expect(!frames.isEmpty, "\(path) decodes to no frame")
                let duration = Double(row[3]) ?? 0
                if number > 0 {
                    // Cut on the wall clock's even seconds (the name), at most one GOP (1 s) after them.
                    let start = Int64(row[2]) ?? -1
                    #expect(row[2].isEmpty == false && (Self.nameSeconds(path) ?? 1) % 2 == 0, "\(path) does not start on an even second")
                    #expect(start >= 0)
                    if number < segments.count - 1 { #expect(duration > 1 && duration < 3.5, "\(path): \(duration) s") }
                }
            }
        }
        // MP4 and TS were cut at the same wall-clock instants (their names after the first agree).
        let mp4Starts = rows.filter { $0.first == "0" }.dropFirst().compactMap { Self.nameSeconds($0[1]) }
        let tsStarts = rows.filter { $0.first == "1" }.dropFirst().compactMap { Self.nameSeconds($0[1]) }
        #expect(!mp4Starts.isEmpty && mp4Starts == tsStarts, "mp4 \(mp4Starts), ts \(tsStarts)")

        let events = try harness.store.events(jobID: "segments-live").filter { $0.kind == .segmentClosed }
        #expect(events.count == rows.count, "\(events.count) events for \(rows.count) segments")
        #expect(events.allSatisfy { ($0.data ?? "").contains("\"duration_s\"") && ($0.message ?? "").contains("closed") })
        let shown = JobsFormatting.detail(try #require(try harness.store.job(id: "segments-live")), outputs: [], events: [],
                                          segments: try harness.store.segments(jobID: "segments-live"))
        #expect(shown.contains("segments:") && rows.allSatisfy { shown.contains($0[1]) })
        // Nothing left behind but the segments.
        let left = try FileManager.default.contentsOfDirectory(atPath: harness.path("rec")).filter { $0.hasSuffix(".part") }
        #expect(left.isEmpty, "\(left)")
    }

    /// A segment's start as the seconds of the minute its name says (`…T%H%M%S.mp4` or `-%s.ts`).
    static func nameSeconds(_ path: String) -> Int64? {
        let name = PathText.lastComponent(path)
        if name.hasSuffix(".ts"), let dash = name.lastIndex(of: "-") {
            return Int64(name[name.index(after: dash)...].dropLast(3)).map { $0 % 60 }
        }
        guard name.hasSuffix(".mp4") else { return nil }
        return Int64(name.dropLast(4).suffix(2))
    }
}

/// A file input recorded in segments (cut on its media clock from the wall clock at the start), and the salvage of a
/// segment cut short: every truncation keeps a file that decodes to a run of the segment's own first frames.
@Suite("Segmented recordings of files, and the salvage of a cut-short segment", .serialized)
struct SegmentSalvageTests {
    @Test("a 7 s file to .mp4 and .ts in 2 s segments; a copy of each cut short at several points is salvaged playable")
    func salvageTruncated() throws {
        let source = try Fixtures.live(seconds: 7)
        let harness = try JobHarness("segments-file")
        let outcome = try harness.run(json: """
            {"id": "segments-file", "input": "\(source)",
             "outputs": [{"url": "\(harness.path("rec/f.mp4"))", "segment_s": 2}, {"url": "\(harness.path("rec/f.ts"))", "segment_s": 2, "retain": 2}]}
            """)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let segments = try harness.store.segments(jobID: "segments-file")
        let mp4 = segments.filter { $0.index == 0 }
        let ts = segments.filter { $0.index == 1 }
        #expect(mp4.count >= 3 && mp4.allSatisfy { $0.closedAt != nil && $0.removedAt == nil }, "\(mp4)")
        #expect(mp4.allSatisfy { PathText.lastComponent($0.path).hasPrefix("f-") && $0.path.hasSuffix(".mp4") }, "\(mp4.map(\.path))")
        // retain 2: the older .ts segments were removed, from disk and in their rows.
        #expect(ts.filter { $0.removedAt == nil }.count == 2 && ts.count == mp4.count, "\(ts)")
        #expect(ts.filter { $0.removedAt != nil }.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        let owner = PartOwner(jobID: "salvage-test")
        for (segment, container) in [(mp4[1], PartSalvage.Container.mp4), (ts.last ?? ts[0], .mpegts)] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: segment.path))
            let frames = try FrameHashes.of(segment.path, .video)
            for fraction in [0.5, 0.77, 0.99] {
                let name = "cut-\(Int(fraction * 100))-" + PathText.lastComponent(segment.path)
                let target = harness.path("salvage/" + name)
                try FileManager.default.createDirectory(atPath: harness.path("salvage"), withIntermediateDirectories: true)
                let part = harness.path("salvage/.\(name).\(owner.tag).00000000000000ab.part")
                try whole.prefix(Int(Double(whole.count) * fraction)).write(to: URL(fileURLWithPath: part))
                let salvaged = try #require(try PartSalvage.salvage(path: target, root: nil, owner: owner, container: container),
                                            "\(name): nothing salvaged")
                #expect(!FileManager.default.fileExists(atPath: part))
                #expect(salvaged.bytes < Int64(whole.count) && salvaged.bytes + salvaged.cutBytes == Int64(Int(Double(whole.count) * fraction)))
                let played = try FrameHashes.of(target, .video)
                // The last frame of a cut MPEG-TS may be one whose tail was cut off: the ones before it are the segment's.
                #expect(!played.isEmpty && played.count <= frames.count && Array(frames.prefix(played.count - 1)) == Array(played.dropLast()),
                        "\(name): \(played.count) of \(frames.count) frames, not the segment's first ones")
            }
        }
    }
}

/// The take-over path without a broker: an attempt that holds the lease (`removesEarlierParts`) finds the segment an
/// earlier attempt left open, salvages its `.part` before it writes anything, and records it.
@Suite("Segment salvage when an attempt takes a job over", .serialized)
struct SegmentTakeoverTests {
    /// A whole segment to cut short, made by a job of its own: the longest, as a 2 s segment holds two fragments, so
    /// two thirds of it keep the first whole.
    static func wholeSegment(_ harness: JobHarness, source: String) throws -> Data {
        _ = try #require(try harness.run(json: """
            {"id": "segments-maker", "input": "\(source)", "outputs": [{"url": "\(harness.path("made/m.mp4"))", "segment_s": 2}]}
            """).succeeded)
        let made = try #require(try harness.store.segments(jobID: "segments-maker").max { ($0.bytes ?? 0) < ($1.bytes ?? 0) })
        return try Data(contentsOf: URL(fileURLWithPath: made.path))
    }

    @Test("an open segment row and its cut-short part: the next attempt closes it playable, records it salvaged, then records its own")
    func takeoverSalvages() throws {
        let source = try Fixtures.live(seconds: 5)
        let harness = try JobHarness("segments-takeover")
        let whole = try Self.wholeSegment(harness, source: source)

        let id = "segments-takeover"
        let spec = try JobSpec.parse(Data("""
            {"id": "\(id)", "input": "\(source)", "outputs": [{"url": "\(harness.path("rec/t-%Y%m%dT%H%M%S.mp4"))", "segment_s": 2}]}
            """.utf8))
        _ = try harness.runner.receive(spec)
        // What a killed attempt leaves: an open row and its part, written up to somewhere inside a fragment.
        let killed = harness.path("rec/t-19990101T000000.mp4")
        try FileManager.default.createDirectory(atPath: harness.path("rec"), withIntermediateDirectories: true)
        try harness.store.openSegment(jobID: id, index: 0, path: killed, start: Date(timeIntervalSince1970: 915_148_800))
        let owner = PartOwner(jobID: id)
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: harness.path("rec/.t-19990101T000000.mp4.\(owner.tag).0123456789abcdef.part")))

        let outcome = try harness.runner.runAttempt(spec: spec, policy: AttemptPolicy(retriesTransientFailures: true, removesEarlierParts: true),
                                                    relay: JobHarness.liveEngine)
        _ = try #require(outcome.succeeded, "\(outcome)")
        let rows = try harness.store.segments(jobID: id)
        let messages = try harness.store.events(jobID: id).compactMap(\.message)
        let salvaged = try #require(rows.first { $0.path == killed }, "\(messages)")
        #expect(salvaged.closedAt != nil && (salvaged.bytes ?? 0) > 0 && (salvaged.bytes ?? 0) < Int64(whole.count))
        #expect(try !FrameHashes.of(killed, .video).isEmpty, "the salvaged segment does not play")
        #expect(rows.count >= 3 && rows.allSatisfy { $0.closedAt != nil }, "\(rows)")
        let events = try harness.store.events(jobID: id).filter { $0.kind == .segmentClosed }
        #expect(events.count == rows.count)
        // The salvage was recorded before the attempt's own segments.
        #expect(events.first?.message?.contains("salvaged") == true && events.dropFirst().allSatisfy { $0.message?.contains("salvaged") == false })
        let parts = try FileManager.default.contentsOfDirectory(atPath: harness.path("rec")).filter { $0.hasSuffix(".part") }
        #expect(parts.isEmpty, "\(parts)")
    }
}

extension SegmentTakeoverTests {
    @Test("a cut-short part with no row here (its attempt was killed on another worker, its record in that worker's database): found on disk, closed playable from the start its name gives")
    func takeoverFindsPartOnDisk() throws {
        let source = try Fixtures.live(seconds: 5)
        let harness = try JobHarness("segments-takeover-disk")
        let whole = try Self.wholeSegment(harness, source: source)

        let id = "segments-takeover-disk"
        let pattern = harness.path("rec/t-%Y%m%dT%H%M%S.mp4")
        let spec = try JobSpec.parse(Data("""
            {"id": "\(id)", "input": "\(source)", "outputs": [{"url": "\(pattern)", "segment_s": 2}]}
            """.utf8))
        _ = try harness.runner.receive(spec)
        // Named for a start a second ago, as the other worker named it; written up to now.
        let started = Int64(Date().timeIntervalSince1970) - 1
        let killed = try SegmentNamePattern(pattern).path(start: started, number: started / 2)
        try FileManager.default.createDirectory(atPath: harness.path("rec"), withIntermediateDirectories: true)
        let owner = PartOwner(jobID: id)
        let name = (killed as NSString).lastPathComponent
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: harness.path("rec/.\(name).\(owner.tag).0123456789abcdef.part")))
        // Another job's part beside it is not this job's to salvage.
        let other = harness.path("rec/.\(name).\(PartOwner(jobID: "another-job").tag).0123456789abcdef.part")
        try whole.write(to: URL(fileURLWithPath: other))

        let outcome = try harness.runner.runAttempt(spec: spec, policy: AttemptPolicy(retriesTransientFailures: true, removesEarlierParts: true),
                                                    relay: JobHarness.liveEngine)
        _ = try #require(outcome.succeeded, "\(outcome)")
        let rows = try harness.store.segments(jobID: id)
        let messages = try harness.store.events(jobID: id).compactMap(\.message)
        let salvaged = try #require(rows.first { $0.path == killed }, "\(messages)")
        #expect(salvaged.startAt.timeIntervalSince1970 == Double(started), "\(salvaged)")
        #expect(salvaged.closedAt != nil && (salvaged.bytes ?? 0) > 0 && (salvaged.bytes ?? 0) < Int64(whole.count))
        #expect(try !FrameHashes.of(killed, .video).isEmpty, "the salvaged segment does not play")
        #expect(messages.contains { $0.contains("segment \(killed) closed") && $0.contains("salvaged") }, "\(messages)")
        #expect(FileManager.default.fileExists(atPath: other), "another job's part was touched")
    }
}

@Suite("Which engine records in segments")
struct SegmentEngineTests {
    @Test("a live copy to .flv runs on the relay engine, and so does a recording in segments: its sink cuts them on the file pool")
    func segmentedLiveCopyRunsOnTheRelay() throws {
        let single = try JobPlan(spec: JobSpec.parse(Data(#"{"id": "e", "input": "rtmp://127.0.0.1/live/k", "outputs": ["/tmp/e.flv"]}"#.utf8)),
                                 paths: .trusted)
        let segmented = try JobPlan(spec: JobSpec.parse(Data(#"{"id": "e", "input": "rtmp://127.0.0.1/live/k", "outputs": [{"url": "/tmp/e-%s.flv", "segment_s": 60}]}"#.utf8)),
                                    paths: .trusted)
        #expect(JobRunner.runsOnRelay(single.options, relay: JobHarness.liveEngine))
        #expect(JobRunner.runsOnRelay(segmented.options, relay: JobHarness.liveEngine))
        #expect(segmented.options.outputs[0].segments?.seconds == 60)
    }
}
