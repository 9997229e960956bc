import Foundation
import Testing
@testable import MediaJob

/// A root with an `outside` folder next to it, so a test can tell whether a write escaped.
struct RootFixture {
    let base: String
    var root: String { base + "/root" }
    var outside: String { base + "/outside" }

    init(_ name: String) throws {
        base = NSTemporaryDirectory() + "sluice-outputfile-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: base + "/root", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
    }

    func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` into the created file, closes it, and publishes it.
    static func write(_ text: String, path: String, root: String?) throws {
        let file = try OutputFile.create(path: path, root: root)
        try Array(text.utf8).withUnsafeBytes { try file.write($0) }
        try file.closeForWriting()
        try file.publish()
    }
}

@Suite("OutputFile: created exclusively under its root, published by rename")
struct OutputFileTests {
    @Test("the temporary name is hidden, random and says what it becomes; only the final name remains")
    func temporaryNameAndPublish() throws {
        let fixture = try RootFixture("publish")
        let file = try OutputFile.create(path: fixture.root + "/out/a.flv", root: fixture.root)
        #expect(file.temporaryName.hasPrefix(".a.flv.") && file.temporaryName.hasSuffix(".part"))
        #expect(file.temporaryName.count == ".a.flv.".count + OutputFile.randomDigits + ".part".count)
        #expect(OutputFile.temporaryName(for: "a.flv") != OutputFile.temporaryName(for: "a.flv"))
        #expect(fixture.names(in: fixture.root + "/out") == [file.temporaryName], "the folder was created by the walk")
        try Array("hello".utf8).withUnsafeBytes { try file.write($0) }
        try Array("J".utf8).withUnsafeBytes { try file.write($0, at: 0) }
        try file.closeForWriting()
        #expect(throws: FileAccessError.self, "a write after the close is refused, naming the file") {
            try Array("late".utf8).withUnsafeBytes { try file.write($0) }
        }
        try file.publish()
        #expect(fixture.names(in: fixture.root + "/out") == ["a.flv"])
        #expect(fixture.contents(fixture.root + "/out/a.flv") == "Jello")
    }

    @Test("a symbolic link planted as the old NAME.part (or any name) is never written through")
    func symlinkAsPart() throws {
        let fixture = try RootFixture("partlink")
        let victim = fixture.outside + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/a.flv.part", withDestinationPath: victim)
        try RootFixture.write("output", path: fixture.root + "/a.flv", root: fixture.root)
        #expect(fixture.contents(victim) == "precious")
        #expect(fixture.contents(fixture.root + "/a.flv") == "output")
        #expect(fixture.names(in: fixture.root) == ["a.flv", "a.flv.part"], "the planted link is left alone, nothing else remains")
    }

    @Test("a symlinked folder under the root is refused, and nothing is written where it points")
    func symlinkedFolder() throws {
        let fixture = try RootFixture("dirlink")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/out", withDestinationPath: fixture.outside)
        let error = try #require(throws: FileAccessError.self) {
            try RootFixture.write("output", path: fixture.root + "/out/a.flv", root: fixture.root)
        }
        #expect(error.path == fixture.root + "/out")
        #expect(error.reason.contains("symbolic link"), "\(error)")
        #expect(fixture.names(in: fixture.outside).isEmpty)
        // A deeper link is refused the same way, and missing folders before it are still created.
        try FileManager.default.createDirectory(atPath: fixture.root + "/deep", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/deep/link", withDestinationPath: fixture.outside)
        #expect(throws: FileAccessError.self) { try RootFixture.write("x", path: fixture.root + "/deep/link/more/a.flv", root: fixture.root) }
        #expect(fixture.names(in: fixture.outside).isEmpty)
    }

    @Test(".. in a path under a root is refused, and so is a path outside the root")
    func dotDot() throws {
        let fixture = try RootFixture("dotdot")
        try FileManager.default.createDirectory(atPath: fixture.root + "/sub", withIntermediateDirectories: true)
        let error = try #require(throws: FileAccessError.self) {
            try RootFixture.write("x", path: fixture.root + "/sub/../../outside/a.flv", root: fixture.root)
        }
        #expect(error.reason.contains(".."), "\(error)")
        let outside = try #require(throws: FileAccessError.self) {
            try RootFixture.write("x", path: fixture.outside + "/a.flv", root: fixture.root)
        }
        #expect(outside.reason.contains("outside the allowed root"), "\(outside)")
        #expect(fixture.names(in: fixture.outside).isEmpty)
    }

    @Test("an existing final file is replaced on success and left untouched when the output is discarded")
    func existingFinalName() throws {
        let fixture = try RootFixture("existing")
        let path = fixture.root + "/a.flv"
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try OutputFile.create(path: path, root: fixture.root)
        try Array("half".utf8).withUnsafeBytes { try file.write($0) }
        file.discard()
        #expect(fixture.contents(path) == "old")
        #expect(fixture.names(in: fixture.root) == ["a.flv"], "the temporary file is gone")
        try RootFixture.write("new", path: path, root: fixture.root)
        #expect(fixture.contents(path) == "new")
    }

    @Test("a replaced file is held across the rename and let go after it: no descriptor on it stays open")
    func replacedFileLetGo() throws {
        let fixture = try RootFixture("letgo")
        let path = fixture.root + "/a.flv"
        // Past `heldReplacedBytes`: a smaller file (a playlist) is freed in the rename itself, never held.
        try String(repeating: "old", count: OutputFile.heldReplacedBytes / 3 + 1).write(toFile: path, atomically: false, encoding: .utf8)
        // What this process holds on a file that was deleted (the replaced one, once renamed over).
        func heldDeleted() -> [String] {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
                .filter { $0.hasPrefix(fixture.root) && $0.hasSuffix("(deleted)") }
        }
        try RootFixture.write("new", path: path, root: fixture.root)
        #expect(fixture.contents(path) == "new")
        var waited = 0
        while !heldDeleted().isEmpty && waited < 200 {
            usleep(10_000)
            waited += 1
        }
        #expect(heldDeleted().isEmpty, "still open: \(heldDeleted())")
        #expect(fixture.names(in: fixture.root) == ["a.flv"])
    }

    @Test("a symbolic link at the final name is replaced by the file, not written through")
    func symlinkAtFinalName() throws {
        let fixture = try RootFixture("finallink")
        let victim = fixture.outside + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/a.flv", withDestinationPath: victim)
        try RootFixture.write("output", path: fixture.root + "/a.flv", root: fixture.root)
        #expect(fixture.contents(victim) == "precious")
        let type = try FileManager.default.attributesOfItem(atPath: fixture.root + "/a.flv")[.type] as? FileAttributeType
        #expect(type == .typeRegular)
        #expect(fixture.contents(fixture.root + "/a.flv") == "output")
    }

    @Test("without a root (sluice run) paths are used as given, still through a temporary file")
    func trusted() throws {
        let fixture = try RootFixture("trusted")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/linked", withDestinationPath: fixture.outside)
        let file = try OutputFile.create(path: fixture.root + "/linked/new/a.flv", root: nil)
        try file.closeForWriting()
        #expect(fixture.names(in: fixture.outside + "/new") == [file.temporaryName], "the operator's link is followed")
        try file.publish()
        #expect(fixture.names(in: fixture.outside + "/new") == ["a.flv"])
    }
}
