import Foundation
import Testing
@testable import Sluice

@Suite("Job plan")
struct JobPlanTests {
    /// Regression (fuzzing the job document): Foundation's NSString.deletingLastPathComponent traps on Linux
    /// for a one-letter name, so a valid job with the output "o" (format named) killed the worker.
    @Test("regression: output directories of one-letter and slash-run paths are found without a trap",
          arguments: ["o", "a//", "///a.flv//"])
    func oneLetterOutput(_ url: String) throws {
        let spec = try JobSpec.parse(Data(#"{"id":"a","input":"a.mp4","outputs":[{"url":"\#(url)","format":"flv"}]}"#.utf8))
        let plan = try JobPlan(spec: spec, paths: .trusted)
        try plan.createOutputDirectories()
        #expect(plan.options.outputs.count == 1)
    }
}
