import Testing
import MediaEngine
@testable import LiveRelay

@Suite struct LiveEngineSupportTests {
    @Test func fileJobsStayOnTheCopyPipeline() {
        var options = PipelineOptions(inputURL: "file:in.mp4", inputName: "in.mp4")
        options.outputs = [OutputDescription(target: .file(path: "out.flv"), kind: .flv, name: "out.flv")]
        #expect(!LiveEngine.supports(options))
    }
}
