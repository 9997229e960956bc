import Foundation
import MediaEngine
import Testing
@testable import Sluice
import MediaJob
import JobDocument

/// The worker's roots hold at run time, not only when the job is validated: a link planted
/// after `JobPlan` checked the paths cannot redirect the input or an output outside its root.
@Suite("Paths stay under their roots")
struct PathContainmentTests {
    struct Roots {
        let base = Fixtures.scratch("roots")
        var input: String { base + "/in" }
        var output: String { base + "/out" }
        var outside: String { base + "/outside" }
        var policy: PathPolicy { .rooted(inputRoot: input, outputRoot: output) }

        init() throws {
            for folder in [input, output, outside] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try FileManager.default.copyItem(atPath: try Fixtures.mp4BFrames(), toPath: input + "/clip.mp4")
        }

        func plan(output: String) throws -> JobPlan {
            let spec = try JobSpec.parse(.object(["id": .string("contained"), "input": .string("clip.mp4"), "outputs": .array([.string(output)])]))
            return try JobPlan(spec: spec, paths: policy)
        }

        func listing(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }
    }

    @Test("a job under the roots runs, and its output is the only file in the output root")
    func contained() throws {
        let roots = try Roots()
        let plan = try roots.plan(output: "sub/a.flv")
        #expect(plan.options.fileRoots == FileRoots(input: PathPolicy.resolvedRoot(roots.input), output: PathPolicy.resolvedRoot(roots.output)))
        #expect(plan.options.inputFile == PathPolicy.resolvedRoot(roots.input) + "/clip.mp4")
        _ = try CodecJob(options: plan.options).run()
        #expect(roots.listing(roots.output + "/sub") == ["a.flv"])
        #expect(try FrameHashes.of(roots.output + "/sub/a.flv", .video) == (try FrameHashes.of(roots.input + "/clip.mp4", .video)))
    }

    @Test("an output folder replaced by a link to outside after validation: refused, nothing written outside")
    func outputFolderSwapped() throws {
        let roots = try Roots()
        let plan = try roots.plan(output: "sub/a.flv")
        try FileManager.default.createSymbolicLink(atPath: roots.output + "/sub", withDestinationPath: roots.outside)
        let error = try #require(throws: MediaJobError.self) { try CodecJob(options: plan.options).run() }
        #expect("\(error)".contains("sub: is a symbolic link"), "\(error)")
        #expect(roots.listing(roots.outside).isEmpty)
    }

    @Test("the input replaced by a link to a file outside after validation: refused, not read")
    func inputSwapped() throws {
        let roots = try Roots()
        let plan = try roots.plan(output: "a.flv")
        try FileManager.default.moveItem(atPath: roots.input + "/clip.mp4", toPath: roots.outside + "/clip.mp4")
        try FileManager.default.createSymbolicLink(atPath: roots.input + "/clip.mp4", withDestinationPath: roots.outside + "/clip.mp4")
        let error = try #require(throws: MediaJobError.self) { try CodecJob(options: plan.options).run() }
        #expect("\(error)" == "cannot open input clip.mp4: is a symbolic link, which is not followed under an allowed root", "\(error)")
        #expect(roots.listing(roots.output).isEmpty)
    }
}
