import Foundation
import MediaEngine
import Testing
@testable import Sluice
import MediaJob
import JobDocument

/// `hls_multivariant` in the plan: the playlist's path and its variants' URIs under the roots, and which encoded rungs
/// put their keyframes on the input's.
@Suite("Job plan: HLS ladders")
struct JobPlanMultivariantTests {
    static let rung720 = #"{"mode": "encode", "height": 720}"#
    static let rung360 = #"{"mode": "encode", "height": 360}"#

    static func plan(input: String, outputs: String, paths: PathPolicy = .trusted) throws -> JobPlan {
        let spec = try JobSpec.parse(Data(#"{"id": "l", "input": "\#(input)", "hls_multivariant": "tv/master.m3u8", "outputs": \#(outputs)}"#.utf8))
        return try JobPlan(spec: spec, paths: paths)
    }

    static func followsInput(_ handling: StreamHandling<VideoEncodeSettings>?) -> Bool? {
        if case let .encode(settings)? = handling { return settings.keyframesFollowInput }
        return nil
    }

    @Test("under a worker's roots: the resolved path, every HLS output a variant by its relative URI, in the job's order")
    func rooted() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("plan-mvp-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let plan = try Self.plan(input: "in.mp4", outputs: """
            [{"url": "tv/src/i.m3u8", "video": {"mode": "copy"}}, "tv/a.flv", {"url": "tv/360/i.m3u8", "video": \(Self.rung360)}]
            """, paths: .rooted(inputRoot: root, outputRoot: root))
        let resolved = PathPolicy.resolvedRoot(root)
        #expect(plan.options.multivariant == HLSMultivariantSettings(
            path: resolved + "/tv/master.m3u8", name: "tv/master.m3u8",
            variants: [.init(output: 0, uri: "src/i.m3u8"), .init(output: 2, uri: "360/i.m3u8")]))
    }

    @Test("a ladder with a copied rung, or a live one, follows the input's keyframes; a file ladder of encodes keeps gop_s")
    func keyframes() throws {
        let withCopy = try Self.plan(input: "in.mp4", outputs: """
            [{"url": "tv/src/i.m3u8", "video": {"mode": "copy"}}, {"url": "tv/720/i.m3u8", "video": \(Self.rung720)},
             {"url": "tv/720.flv", "video": \(Self.rung720)}, {"url": "tv/240.flv", "video": {"mode": "encode", "height": 240}}]
            """)
        // The 720p encoder is the HLS rung's, shared with the .flv of the same settings; the 240p one is no rung.
        #expect(withCopy.options.outputs.map { Self.followsInput($0.video) } == [nil, true, true, false])
        let live = try Self.plan(input: "rtmp://127.0.0.1/live/k", outputs: """
            [{"url": "tv/720/i.m3u8", "video": \(Self.rung720)}, {"url": "tv/360/i.m3u8", "video": \(Self.rung360)}]
            """)
        #expect(live.options.outputs.map { Self.followsInput($0.video) } == [true, true])
        let encodesOnly = try Self.plan(input: "in.mp4", outputs: """
            [{"url": "tv/720/i.m3u8", "video": \(Self.rung720)}, {"url": "tv/360/i.m3u8", "video": \(Self.rung360)}]
            """)
        #expect(encodesOnly.options.outputs.map { Self.followsInput($0.video) } == [false, false])
    }
}
