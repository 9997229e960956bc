import Foundation
import Testing
import MediaFormats
@testable import MediaJob

/// `retain` counts the segments on disk, whoever wrote them: a worker that takes a recording over finds the segments
/// the killed worker closed (whose records went with its database) by their names.
@Suite("Segment retention: the closed segments on disk")
struct SegmentRetentionTests {
    /// Makes a file of `bytes` bytes at `path`, last modified at `modified` (Unix seconds).
    static func plant(_ path: String, bytes: Int, modified: Double) throws {
        try FileManager.default.createDirectory(atPath: PathText.parent(path), withIntermediateDirectories: true)
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: path)
    }

    @Test("every file the pattern names in its recent folders, oldest first by modification time; nothing else")
    func found() throws {
        let fixture = try RootFixture("retention")
        // Ten minutes past midnight: the slots looked back over (1,000 of 2 s) reach into the day before.
        let now = 1_764_288_600.0
        var settings = SegmentSettings(seconds: 2, pattern: try SegmentNamePattern(fixture.root + "/rec/%Y%m%d/cam-%H%M%S.ts"), retainCount: 3)
        // Three segments another worker closed (one a taken name), in two dated folders; this worker's own record of one.
        let theirs = [(now - 1_200, 300), (now - 40, 200), (now - 20, 100)].map { start, bytes in
            (settings.pattern.path(start: Int64(start), number: 0), bytes, start + 2)
        }
        let taken = settings.pattern.path(start: Int64(now - 20), number: 0, collision: 1)
        for (path, bytes, modified) in theirs { try Self.plant(path, bytes: bytes, modified: modified) }
        try Self.plant(taken, bytes: 50, modified: now - 10)
        // Not segments: another name, a part being written, a folder named like a segment.
        let folder = PathText.parent(theirs[2].0)
        try Self.plant(folder + "/notes.txt", bytes: 1, modified: now - 5)
        try Self.plant(folder + "/.cam-000000.ts.0123456789abcdef.0000000000000001.part", bytes: 1, modified: now - 5)
        try FileManager.default.createDirectory(atPath: folder + "/cam-010203.ts", withIntermediateDirectories: true)
        // A record of a segment no longer on disk counts for nothing.
        let gone = RecordedSegment(path: folder + "/cam-000002.ts", bytes: 999)
        settings.earlier = [gone]
        let segments = settings.closedSegmentsOnDisk(root: fixture.root, now: now, known: settings.earlier)
        #expect(segments.map(\.path) == [theirs[0].0, theirs[1].0, theirs[2].0, taken], "\(segments)")
        #expect(segments.map(\.bytes) == [300, 200, 100, 50])
        #expect(PathText.parent(theirs[0].0) != folder, "the oldest is in the day before's folder")
        // Older than the slots looked back over, in a folder of its own: not looked at (a known one would be).
        let ancient = settings.pattern.path(start: Int64(now - 90_000), number: 0)
        try Self.plant(ancient, bytes: 1, modified: now - 90_000)
        #expect(settings.closedSegmentsOnDisk(root: fixture.root, now: now, known: []).count == 4)
    }

    @Test("a known segment in a folder older than the slots looked back over still counts, as the oldest")
    func knownOutsideTheSlots() throws {
        let fixture = try RootFixture("retention-known")
        let now = 1_764_300_000.0
        let settings = SegmentSettings(seconds: 2, pattern: try SegmentNamePattern(fixture.root + "/rec/%Y%m%d/cam-%H%M%S.ts"), retainCount: 2)
        let old = settings.pattern.path(start: Int64(now - 30 * 86_400), number: 0)
        let recent = settings.pattern.path(start: Int64(now - 4), number: 0)
        try Self.plant(old, bytes: 10, modified: now)
        try Self.plant(recent, bytes: 20, modified: now - 2)
        let segments = settings.closedSegmentsOnDisk(root: fixture.root, now: now, known: [RecordedSegment(path: old, bytes: 10)])
        #expect(segments.map(\.path) == [old, recent])
    }

    @Test("outside the output root nothing is looked at")
    func outsideTheRoot() throws {
        let fixture = try RootFixture("retention-outside")
        let settings = SegmentSettings(seconds: 2, pattern: try SegmentNamePattern(fixture.outside + "/cam-%s.ts"), retainCount: 2)
        try Self.plant(fixture.outside + "/cam-100.ts", bytes: 1, modified: 100)
        #expect(settings.closedSegmentsOnDisk(root: fixture.root, now: 1000, known: []).isEmpty)
    }
}
