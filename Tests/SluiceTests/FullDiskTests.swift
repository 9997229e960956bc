import Foundation
import SluiceTestSupport
import Testing

/// A full disk under an output fails the job with a message naming the output, leaves no file behind,
/// and never takes the process down.
@Suite("Full disks", .enabled(if: TinyDisk.shouldRun, TinyDisk.skipReason))
struct FullDiskTests {
    /// About 3.5 MB of lossless H.264: more than a 2 MB tmpfs holds in any of the output formats.
    static func bigInput() throws -> String {
        try Fixtures.make("big-lossless.mp4", Fixtures.video(size: "640x360") + ["-t", "6"] + Fixtures.x264 + ["-preset", "ultrafast", "-qp", "0"])
    }

    /// Writes `document` to `file` and runs it with `sluice run`, recorded in `db`; a failing run is a result.
    static func sluiceRun(_ document: String, file: String, db: String) throws -> CommandResult {
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        return try Command.run(Command.sluiceBinary, ["run", "--db", db, file], check: false)
    }

    @Test("sluice run with an output on a 2 MB tmpfs: exit 1, the message names the output, no file is left")
    func runOnTinyDisk() throws {
        let folder = Fixtures.scratch("fulldisk")
        let disk = try TinyDisk(at: folder + "/disk", megabytes: 2)
        defer { disk.unmount() }
        let output = disk.path + "/a.flv"
        let beside = folder + "/beside.h264"
        let db = folder + "/jobs.sqlite"
        let run = try Self.sluiceRun(#"{"id": "full-1", "input": "\#(try Self.bigInput())", "outputs": ["\#(output)", "\#(beside)"]}"#,
                                     file: folder + "/job.json", db: db)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("output \(output): no space left on device"), "stderr: \(run.stderr)")
        #expect(disk.names.isEmpty, "left on the full disk: \(disk.names)")
        #expect(!FileManager.default.fileExists(atPath: beside), "the other output must not be published either")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { !$0.hasPrefix("jobs.sqlite") } == ["disk", "job.json"])
        let shell = try Command.run("sqlite3", [db, "SELECT state || '|' || error FROM jobs WHERE id = 'full-1'"])
        #expect(shell.text.hasPrefix("failed|job full-1: output \(output): no space left on device"), "\(shell.text)")

        // The same disk, emptied by the failure, takes a job that fits.
        let fits = try Self.sluiceRun(#"{"id": "full-2", "input": "\#(try Fixtures.mp4BFrames())", "outputs": ["\#(disk.path)/b.flv"]}"#,
                                      file: folder + "/small.json", db: db)
        #expect(fits.status == 0, "stderr: \(fits.stderr)")
        #expect(disk.names == ["b.flv"])
    }

    @Test("no inode left for the output's folder or file: the job fails as a full disk, naming the output")
    func noInodes() throws {
        let folder = Fixtures.scratch("noinodes")
        // One inode for the mount's own folder, one for `sub`: the temporary file gets none.
        let disk = try TinyDisk(at: folder + "/disk", megabytes: 2, inodes: 2)
        defer { disk.unmount() }
        let output = disk.path + "/sub/a.flv"
        let run = try Self.sluiceRun(#"{"id": "inodes-1", "input": "\#(try Fixtures.mp4BFrames())", "outputs": ["\#(output)"]}"#,
                                     file: folder + "/job.json", db: folder + "/jobs.sqlite")
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("output \(output): no space left on device (output 0, while opening)"), "stderr: \(run.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/sub")) ?? [] == [])
    }

    @Test("a recording in 1 s segments onto a 2 MB tmpfs: the job fails naming the output and the full disk; the segments closed before stay, whole and playable; nothing half-written is left")
    func segmentsOnTinyDisk() throws {
        let folder = Fixtures.scratch("fulldisk-segments")
        let disk = try TinyDisk(at: folder + "/disk", megabytes: 2)
        defer { disk.unmount() }
        let pattern = disk.path + "/rec-%Y%m%dT%H%M%S.mp4"
        let db = folder + "/jobs.sqlite"
        let run = try Self.sluiceRun(#"{"id": "full-seg", "input": "\#(try Self.bigInput())", "outputs": [{"url": "\#(pattern)", "segment_s": 1}]}"#,
                                     file: folder + "/job.json", db: db)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("no space left on device") && run.stderr.contains("output"), "stderr: \(run.stderr)")
        // What is on the disk is closed segments only: no part, no temporary file.
        let names = disk.names
        #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("rec-") && $0.hasSuffix(".mp4") }, "on the disk: \(names)")
        for name in names {
            let decode = try Command.run("ffmpeg", ["-v", "error", "-i", disk.path + "/" + name, "-enc_time_base:v", "-1", "-f", "null", "-"], check: false)
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(name): \(decode.stderr)")
        }
        // The record lists exactly those segments, closed, and the job failed by the full disk.
        let rows = try Command.run("sqlite3", [db, "SELECT path FROM segments WHERE job_id = 'full-seg' AND closed_at IS NOT NULL AND removed_at IS NULL"])
        let recorded = Set(rows.text.split(separator: "\n").map { ($0 as NSString).lastPathComponent })
        #expect(recorded == Set(names), "recorded \(recorded.sorted()), on the disk \(names)")
        let state = try Command.run("sqlite3", [db, "SELECT state || '|' || error FROM jobs WHERE id = 'full-seg'"])
        #expect(state.text.hasPrefix("failed|") && state.text.contains("no space left on device"), "\(state.text)")
    }
}
