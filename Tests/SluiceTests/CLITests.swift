import Foundation
import Testing

/// The `sluice` binary as a user runs it: exit codes, messages on stderr, and the database read back
/// with `sluice jobs` and the sqlite3 shell.
@Suite("sluice CLI")
struct CLITests {
    let folder = Fixtures.scratch("cli")
    var db: String { folder + "/cli.sqlite" }

    func sluice(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
        try Command.run(Command.sluiceBinary, arguments, input: input, check: false)
    }

    func writeJob(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("run succeeds with exit 0, then jobs list/show and sqlite3 see the job")
    func runAndList() throws {
        let input = try Fixtures.mp4BFrames()
        let job = try writeJob("ok.json", #"{"id": "cli-ok", "input": "\#(input)", "outputs": ["\#(folder)/a.flv", {"url": "\#(folder)/a.h264"}, "\#(folder)/a.aac"]}"#)
        let run = try sluice(["run", "--db", db, job])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("succeeded"))
        for name in ["a.flv", "a.h264", "a.aac"] { #expect(FileManager.default.fileExists(atPath: folder + "/" + name)) }

        let list = try sluice(["jobs", "list", "--db", db])
        #expect(list.status == 0)
        let lines = list.text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.contains { $0.hasPrefix("cli-ok") && $0.contains("succeeded") && $0.contains("3/3") })

        let json = try sluice(["jobs", "list", "--db", db, "--json", "--state", "succeeded"])
        let rows = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["id"] as? String == "cli-ok")
        #expect(rows.first?["attempts"] as? Int == 1)

        let show = try sluice(["jobs", "show", "--db", db, "cli-ok"])
        #expect(show.text.contains("job.succeeded"))
        #expect(show.text.contains("a.h264"))

        let shell = try Command.run("sqlite3", [db, "SELECT state, attempts, finished_at FROM jobs WHERE id = 'cli-ok'"])
        let fields = shell.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        #expect(fields.first == "succeeded")
        #expect(fields.count == 3 && fields[2].hasSuffix("Z"))
    }

    @Test("an invalid job exits 2 and lists every problem")
    func invalidJob() throws {
        let job = try writeJob("bad.json", #"{"id": "cli bad", "input": "http://example.com/x.mp4", "outputs": [], "extra": 1}"#)
        let run = try sluice(["run", "--db", db, job])
        #expect(run.status == 2)
        #expect(run.stderr.contains("id: must match"))
        #expect(run.stderr.contains(#"input: protocol "http://" is not allowed"#))
        #expect(run.stderr.contains("outputs: must hold 1 to 16 outputs, got 0"))
        #expect(run.stderr.contains("extra: unknown key"))
        let shell = try Command.run("sqlite3", [db, "SELECT count(*) FROM jobs WHERE state = 'rejected'"])
        #expect(shell.text.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test("timeout_s 1e20 (which crashed the worker converting it to a deadline) exits 2 naming the field and its range")
    func hugeTimeout() throws {
        let job = try writeJob("huge.json", #"{"id": "huge-timeout", "input": {"url": "\#(folder)/clip.mp4", "timeout_s": 1e20}, "outputs": ["\#(folder)/h.flv"]}"#)
        let run = try sluice(["run", "--db", db, job])
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("input.timeout_s: must be from 0.1 to 3600 (seconds), got 1e+20"), "stderr: \(run.stderr)")
        let shell = try Command.run("sqlite3", [db, "SELECT state FROM jobs WHERE id = 'huge-timeout'"])
        #expect(shell.text.trimmingCharacters(in: .whitespacesAndNewlines) == "rejected")
    }

    @Test("a document nested 100 000 deep exits 2 without parsing it")
    func deepDocument() throws {
        let job = try writeJob("deep.json", String(repeating: "[", count: 100_000))
        let run = try sluice(["run", "--db", db, job])
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("arrays and objects nest deeper than 16 levels"), "stderr: \(run.stderr)")
    }

    @Test("a 20 MB job file exits 2 after reading no more than the limit")
    func hugeFile() throws {
        let path = folder + "/huge.json"
        try Data(repeating: UInt8(ascii: " "), count: 20_000_000).write(to: URL(fileURLWithPath: path))
        let run = try sluice(["run", "--db", db, path])
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("is larger than 1048576 bytes"), "stderr: \(run.stderr)")
    }

    @Test("sluice schema prints the committed jobs/schema.json")
    func schema() throws {
        let run = try sluice(["schema"])
        #expect(run.status == 0)
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../jobs/schema.json").standardizedFileURL
        #expect(run.text == (try String(contentsOf: committed, encoding: .utf8)))
    }

    @Test("a failing job exits 1 naming the job and the input")
    func failingJob() throws {
        let job = try writeJob("fail.json", #"{"id": "cli-fail", "input": "\#(folder)/missing.mp4", "outputs": ["\#(folder)/f.flv"]}"#)
        let run = try sluice(["run", "--db", db, job])
        #expect(run.status == 1)
        #expect(run.stderr.contains("job cli-fail: cannot open input \(folder)/missing.mp4: No such file or directory"), "stderr: \(run.stderr)")
        let error = try Command.run("sqlite3", [db, "SELECT error FROM jobs WHERE id = 'cli-fail'"])
        #expect(error.text.contains("No such file or directory"))
    }

    @Test("probe --json agrees with ffprobe on size, profile and sample rate", arguments: ["bframes", "ts", "raw", "high10", "aac"])
    func probe(_ which: String) throws {
        let path: String
        switch which {
        case "bframes": path = try Fixtures.mp4BFrames()
        case "ts": path = try Fixtures.mpegtsAUD()
        case "raw": path = try Fixtures.rawH264()
        case "high10": path = try Fixtures.high10()
        default: path = try Fixtures.adtsInput()
        }
        let run = try sluice(["probe", "--json", path])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let streams = try #require(report["streams"] as? [[String: Any]])
        let referee = try Command.run("ffprobe", ["-v", "error", "-show_streams", "-of", "json", path])
        let expected = try #require((try JSONSerialization.jsonObject(with: referee.stdout) as? [String: Any])?["streams"] as? [[String: Any]])
        #expect(streams.count == expected.count)
        for (ours, theirs) in zip(streams, expected) {
            #expect(ours["codec"] as? String == theirs["codec_name"] as? String)
            if ours["type"] as? String == "video" {
                #expect(ours["width"] as? Int == theirs["width"] as? Int)
                #expect(ours["height"] as? Int == theirs["height"] as? Int)
                let profiles = ["High": 100, "High 10": 110, "Main": 77, "Constrained Baseline": 66, "Baseline": 66]
                #expect(ours["profile_idc"] as? Int == profiles[theirs["profile"] as? String ?? ""])
                #expect(ours["level_idc"] as? Int == theirs["level"] as? Int)
            } else {
                #expect(ours["sample_rate"] as? Int == Int(theirs["sample_rate"] as? String ?? ""))
                #expect(ours["channels"] as? Int == theirs["channels"] as? Int)
                #expect(ours["object_type"] as? Int == 2)
            }
        }
    }

    @Test("probe of a missing file exits 1 with the reason")
    func probeMissing() throws {
        let run = try sluice(["probe", folder + "/none.mp4"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("No such file or directory"))
    }

    /// A folder holding an empty file named `soname`, for LD_LIBRARY_PATH: the loader searches it before the system's
    /// folders, and an empty file there is a library that cannot load.
    func brokenLibrary(_ soname: String) throws -> String {
        let libraries = folder + "/broken-" + soname
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try #require(FileManager.default.createFile(atPath: libraries + "/" + soname, contents: Data()))
        return libraries
    }

    @Test("a libavcodec that does not load: run exits 1 naming it, the job is recorded failed, no output is left; probe exits 1 naming it")
    func codecLibrariesMissing() throws {
        let libraries = try brokenLibrary("libavcodec.so.59")
        let environment = ["LD_LIBRARY_PATH": libraries]
        let input = try Fixtures.mp4BFrames()
        let output = folder + "/nolib.flv"
        let job = try writeJob("nolib.json", #"{"id": "cli-nolib", "input": "\#(input)", "outputs": ["\#(output)"]}"#)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", db, job], environment: environment, check: false)
        #expect(run.status == 1)
        #expect(run.stderr.contains("job cli-nolib: the codec libraries (libav) could not be loaded: \(libraries)/libavcodec.so.59"),
                "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: output + ".part"))
        let record = try Command.run("sqlite3", [db, "SELECT state, error FROM jobs WHERE id = 'cli-nolib'"])
        #expect(record.text.hasPrefix("failed|") && record.text.contains("the codec libraries (libav) could not be loaded: \(libraries)/libavcodec.so.59"),
                "\(record.text)")

        let probe = try Command.run(Command.sluiceBinary, ["probe", input], environment: environment, check: false)
        #expect(probe.status == 1)
        #expect(probe.stderr.contains("could not be loaded: \(libraries)/libavcodec.so.59"), "stderr: \(probe.stderr)")
    }

    @Test("a libsrt that does not load: an SRT pull fails at its input timeout naming it, and the job is recorded failed")
    func srtLibraryMissing() throws {
        let libraries = try brokenLibrary("libsrt-gnutls.so.1.5")
        // A relay job: SRT in, RTMP out; nothing listens on either port, and libsrt's start-up is what fails first.
        let job = try writeJob("nosrt.json", #"{"id": "cli-nosrt", "input": {"url": "srt://127.0.0.1:9?mode=caller", "timeout_s": 2}, "outputs": ["rtmp://127.0.0.1:9/live/x"]}"#)
        let run = try Command.run(Command.sluiceBinary, ["run", "--db", db, job], environment: ["LD_LIBRARY_PATH": libraries], check: false)
        #expect(run.status == 1)
        #expect(run.stderr.contains("srt_startup: \(libraries)/libsrt-gnutls.so.1.5: file too short"), "stderr: \(run.stderr)")
        let record = try Command.run("sqlite3", [db, "SELECT state FROM jobs WHERE id = 'cli-nosrt'"])
        #expect(record.text.trimmingCharacters(in: .whitespacesAndNewlines) == "failed")
    }

    /// Regression: NSString.deletingLastPathComponent trapped on a one-letter database name.
    @Test("regression: --db with a one-letter name opens the database there")
    func oneLetterDatabase() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.sluiceBinary)
        process.arguments = ["jobs", "list", "--db", "j"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/j"))
    }
}
