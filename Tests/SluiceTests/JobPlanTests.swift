import Foundation
import MediaEngine
import Testing
@testable import Sluice
import MediaJob
import JobDocument

@Suite("Job plan")
struct JobPlanTests {
    static func parse(_ extra: String, input: String = #""in.mp4""#) throws(JobSpecError) -> JobSpec {
        try JobSpec.parse(Data(#"{"id": "r", "input": \#(input), "outputs": ["rtmp://h/live/k"]\#(extra)}"#.utf8))
    }

    @Test("the reconnect object becomes the pipeline's policy")
    func reconnectPolicy() throws {
        #expect(try Self.parse("").reconnect.policy == ReconnectPolicy(attempts: 10, initialDelay: 0.5, maxDelay: 10))
        let given = try Self.parse(#", "reconnect": {"attempts": 3, "initial_delay_s": 0.1, "max_delay_s": 2}"#)
        #expect(given.reconnect.policy == ReconnectPolicy(attempts: 3, initialDelay: 0.1, maxDelay: 2))
    }

    @Test("a listening job plans a listen on the engine; libavformat gets no network option or protocol")
    func plan() throws {
        let spec = try Self.parse("", input: #"{"url": "rtmp://127.0.0.1:1935/live/key", "listen": true, "timeout_s": 4}"#)
        let plan = try JobPlan(spec: spec, paths: .trusted)
        #expect(plan.options.listens)
        #expect(plan.options.inputTimeout == 4)
        #expect(plan.options.inputOptions["timeout"] == nil)
        #expect(plan.options.inputOptions["rw_timeout"] == nil)
        #expect(plan.options.inputOptions["protocol_whitelist"] == nil)
        #expect(plan.options.liveInput)
    }

    @Test("a file input may open files only: libavformat's protocol whitelist names nothing else")
    func fileInputWhitelist() throws {
        let spec = try Self.parse("", input: #""in.mp4""#)
        let plan = try JobPlan(spec: spec, paths: .trusted)
        #expect(plan.options.inputOptions["protocol_whitelist"] == "file")
        #expect(!plan.options.liveInput)
    }

    @Test("a WHEP output's rendition, its own or the job's, is Constrained Baseline unless it names a profile; a copy stays a copy")
    func whepRenditionProfile() throws {
        func plan(_ document: String) throws -> MediaJobOptions {
            try JobPlan(spec: JobSpec.parse(Data(document.utf8)), paths: .trusted).options
        }
        func profile(_ handling: StreamHandling<VideoEncodeSettings>?) -> String? {
            if case let .encode(settings)? = handling { return settings.profile ?? "none" }
            return nil
        }
        let input = #""input": {"url": "rtmp://127.0.0.1:1935/live/k", "listen": true}"#
        let own = try plan(#"{"id": "w", \#(input), "outputs": [{"url": "whep://127.0.0.1:8080/w", "video": {"mode": "encode", "width": 640, "height": 360}}, "a.flv"]}"#)
        #expect(profile(own.outputs[0].video) == "constrained_baseline")
        #expect(own.outputs[1].video == nil && own.video == .copy)
        let named = try plan(#"{"id": "w", \#(input), "outputs": [{"url": "whep://127.0.0.1:8080/w", "video": {"mode": "encode", "profile": "high"}}]}"#)
        #expect(profile(named.outputs[0].video) == "high")
        // An encode job: the WHEP output gets the job's rendition at Constrained Baseline (an encode of its own), the
        // other outputs the job's as it is.
        let job = try plan(#"{"id": "w", \#(input), "video": {"mode": "encode", "width": 640, "height": 360}, "outputs": ["whep://127.0.0.1:8080/w", "rtmp://h/live/o"]}"#)
        #expect(profile(job.outputs[0].video) == "constrained_baseline")
        #expect(job.outputs[1].video == nil && profile(job.video) == "none")
        let copied = try plan(#"{"id": "w", \#(input), "outputs": ["whep://127.0.0.1:8080/w"]}"#)
        #expect(copied.outputs[0].video == nil && copied.video == .copy)
    }
}
