import Foundation
import Testing
@testable import MediaJob

@Suite("OutputCommit: a job's outputs published in order, durable, all or what was already in place")
struct OutputCommitTests {
    /// A finished output `name` in `folder`, written and closed, not yet under its name.
    private func finished(_ name: String, in folder: String, root: String, index: Int) throws -> (file: OutputFile, output: OutputCommit.Output) {
        let file = try OutputFile.create(path: folder + "/" + name, root: root)
        try Array(name.utf8).withUnsafeBytes { try file.write($0) }
        try file.closeForWriting()
        let output = OutputCommit.Output(rename: { try file.rename(); return file }, discard: file.discard) { error in
            .output(index: index, name: name, error)
        }
        return (file, output)
    }

    @Test("every output moves onto its name; an output with nothing to rename (a network one) is passed over")
    func everyOutputPublished() throws {
        let fixture = try RootFixture("commit-all")
        let folder = fixture.root + "/out"
        let a = try finished("a.flv", in: folder, root: fixture.root, index: 0)
        let b = try finished("b.ts", in: folder, root: fixture.root, index: 2)
        let network = OutputCommit.Output(rename: { nil }, discard: {}) { .output(index: 1, name: "rtmp", $0) }
        #expect(OutputCommit.publish([a.output, network, b.output]) == nil)
        #expect(fixture.names(in: folder) == ["a.flv", "b.ts"], "no part is left")
        #expect(fixture.contents(folder + "/b.ts") == "b.ts")
    }

    @Test("a rename that fails is named; what was in place stays, that output and the ones after it are removed")
    func failedRenameRemovesTheRest() throws {
        let fixture = try RootFixture("commit-fail")
        let folder = fixture.root + "/out"
        let a = try finished("a.flv", in: folder, root: fixture.root, index: 0)
        let b = try finished("b.mp4", in: folder, root: fixture.root, index: 1)
        let c = try finished("c.ts", in: folder, root: fixture.root, index: 2)
        // A folder (not empty) where b's file should go: a file cannot be renamed over it.
        try FileManager.default.createDirectory(atPath: folder + "/b.mp4/inside", withIntermediateDirectories: true)
        let failure = OutputCommit.publish([a.output, b.output, c.output])
        guard case let .output(index, name, error)? = failure else {
            Issue.record("expected output 1's failure, got \(String(describing: failure))")
            return
        }
        #expect(index == 1 && name == "b.mp4")
        #expect("\(error)".contains("b.mp4"), "the error names the file: \(error)")
        #expect(fixture.names(in: folder) == ["a.flv", "b.mp4"], "a stays, b's and c's parts are gone")
        #expect(fixture.names(in: folder + "/b.mp4") == ["inside"])
        #expect(fixture.contents(folder + "/a.flv") == "a.flv")
    }
}
