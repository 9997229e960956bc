import Foundation
import Testing

/// A finished file output is on disk before its name is, and its name before the job is recorded
/// `succeeded`: seen from outside with strace on a real `sluice run`.
@Suite("durable file outputs")
struct DurableOutputTests {
    /// One traced call: the process, the call's text, and its line number (the order strace saw calls in).
    struct Call {
        var line: Int
        var pid: String
        var text: String
    }

    /// The calls of a `strace -f -o` log, without signal and exit lines.
    /// A call that another thread interrupted is logged in two lines (`fsync(15 <unfinished ...>`, then
    /// `<... fsync resumed>) = 0`): joined into one, at the line where it finished.
    static func calls(_ log: String) -> [Call] {
        var unfinished: [String: String] = [:]
        return log.split(separator: "\n").enumerated().compactMap { index, line in
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, !fields[1].hasPrefix("---"), !fields[1].hasPrefix("+++") else { return nil }
            let pid = String(fields[0])
            var text = String(fields[1]).trimmingCharacters(in: .whitespaces)
            if text.hasSuffix("<unfinished ...>") {
                unfinished[pid] = String(text.dropLast("<unfinished ...>".count)).trimmingCharacters(in: .whitespaces)
                return nil
            }
            if text.hasPrefix("<..."), let resumed = text.range(of: "resumed>"), let start = unfinished.removeValue(forKey: pid) {
                text = start + text[resumed.upperBound...]
            }
            return Call(line: index, pid: pid, text: text)
        }
    }

    /// The first number after `(` in a call (`fsync(7)` → 7, `renameat(5, …)` → 5).
    static func firstArgument(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "(") else { return nil }
        return String(text[text.index(after: open)...].prefix { $0.isNumber })
    }

    /// The result after ` = ` (`openat(…) = 7` → 7).
    static func result(_ text: String) -> String? {
        guard let equals = text.range(of: " = ", options: .backwards) else { return nil }
        return String(text[equals.upperBound...].prefix { $0.isNumber || $0 == "-" })
    }

    @Test("strace of sluice run: every output's .part is fsynced before its rename, and each folder once after all the renames")
    func fsyncOrder() throws {
        let folder = Fixtures.scratch("durable")
        let input = try Fixtures.mp4BFrames()
        let job = folder + "/job.json"
        try #"{"id": "durable-1", "input": "\#(input)", "outputs": ["\#(folder)/out/a.flv", "\#(folder)/out/a.h264", "\#(folder)/out/a.aac", "\#(folder)/out2/b.flv"]}"#
            .write(toFile: job, atomically: true, encoding: .utf8)
        let trace = folder + "/trace.txt"
        let run = try Command.run("strace", ["-f", "-qq", "-e", "signal=none", "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2",
                                             "-o", trace, Command.sluiceBinary, "run", "--db", folder + "/db.sqlite", job], check: false)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let calls = Self.calls(try String(contentsOfFile: trace, encoding: .utf8))

        let folders = ["a.flv": "out", "a.h264": "out", "a.aac": "out", "b.flv": "out2"]
        var renames: [String: Call] = [:]
        for name in folders.keys.sorted() {
            // The rename of this output's part onto its name.
            let rename = try #require(calls.first { $0.text.hasPrefix("rename") && $0.text.contains("\"\(name)\"") && $0.text.contains(".part\"") },
                                      "no rename onto \(name)")
            renames[name] = rename
            #expect(Self.result(rename.text) == "0")
            let part = try #require(rename.text.split(separator: "\"").first { $0.hasSuffix(".part") }.map(String.init))
            #expect(part.hasPrefix(".\(name).") && part.hasSuffix(".part"))
            // The part opened to be synced, then fsync of that descriptor by the same thread, both before the rename
            // (the output's own thread syncs it, beside the other outputs; the input thread renames).
            let open = try #require(calls.last { $0.line < rename.line && $0.text.hasPrefix("openat(")
                                                 && $0.text.contains("\"\(part)\"") && $0.text.contains("O_RDONLY") },
                                    "the part \(part) is not opened before its rename")
            let descriptor = try #require(Self.result(open.text))
            #expect(calls.contains { $0.pid == open.pid && $0.line > open.line && $0.line < rename.line && $0.text.hasPrefix("fsync(\(descriptor))")
                                     && Self.result($0.text) == "0" },
                    "\(part) is not fsynced between its open and its rename")
        }
        // After the last rename, the renaming thread syncs each folder once, through the descriptor one of its outputs
        // was renamed with (the rename's first argument): two folders, two syncs, not one per output.
        let last = try #require(renames.values.max { $0.line < $1.line })
        var folderOf: [String: String] = [:]
        for (name, rename) in renames { if let descriptor = Self.firstArgument(rename.text) { folderOf[descriptor] = folders[name] } }
        let folderSyncs = calls.filter { $0.pid == last.pid && $0.line > last.line && $0.text.hasPrefix("fsync(")
                                         && Self.firstArgument($0.text).map { folderOf[$0] != nil } == true }
        #expect(folderSyncs.allSatisfy { Self.result($0.text) == "0" })
        #expect(folderSyncs.compactMap { Self.firstArgument($0.text).flatMap { folderOf[$0] } }.sorted() == ["out", "out2"],
                "folder syncs after the renames: \(folderSyncs.map(\.text))")
        let state = try Command.run("sqlite3", [folder + "/db.sqlite", "SELECT state FROM jobs WHERE id = 'durable-1'"])
        #expect(state.text.trimmingCharacters(in: .whitespacesAndNewlines) == "succeeded")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").sorted() == ["a.aac", "a.flv", "a.h264"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out2") == ["b.flv"])
    }
}
