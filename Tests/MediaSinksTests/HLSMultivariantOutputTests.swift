import Foundation
import Testing
import MediaFormats
import MediaJob
@testable import MediaSinks

/// A live ladder's multivariant playlist is also served by the worker's HTTP server (`/hls/JOB/NAME`): there each
/// variant is listed at `OUTPUT/PLAYLIST`, the URL of its live media playlist, while the file on disk keeps the job's URIs.
@Suite struct HLSMultivariantOutputTests {
    static func ladder(live: Bool, registry: LivePlaylistRegistry) throws -> (HLSMultivariantOutput, String) {
        let folder = NSTemporaryDirectory() + "multivariant-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let settings = HLSMultivariantSettings(path: folder + "/master.m3u8", name: "master.m3u8", variants: [
            .init(output: 0, uri: "720p/index.m3u8"), .init(output: 2, uri: "360p/live.m3u8"),
        ])
        let output = try HLSMultivariantOutput(settings: settings, root: nil, owner: nil, targetDuration: 2, version: 6, live: live,
                                               served: (registry, "cam-9"))
        let config = try AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 2)
        for index in 0..<2 {
            try output.describe(index, tracks: [try MP4Track(id: 1, codec: .aac(config))], frameRate: nil)
            try output.record(index, bytes: 50_000 * (index + 1), duration: 2)
        }
        return (output, folder)
    }

    @Test func aLiveLaddersPlaylistIsServedWithItsVariantsAtTheirOutputs() throws {
        let registry = LivePlaylistRegistry()
        let (output, folder) = try Self.ladder(live: true, registry: registry)
        let served = try #require(registry.multivariant(jobID: "cam-9", name: "master.m3u8"), "nothing served once every variant has a segment")
        let lines = served.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["0/index.m3u8", "2/live.m3u8"], "\(served)")
        let onDisk = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
        #expect(onDisk.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["720p/index.m3u8", "360p/live.m3u8"])
        #expect(registry.multivariant(jobID: "cam-9", name: "other.m3u8") == nil && registry.multivariant(jobID: "cam-1", name: "master.m3u8") == nil)
        try output.finish()
        #expect(registry.multivariant(jobID: "cam-9", name: "master.m3u8") == nil, "still served after the job's end")
        output.discard()
    }

    @Test func aFileLaddersPlaylistIsNotServed() throws {
        let registry = LivePlaylistRegistry()
        let (output, _) = try Self.ladder(live: false, registry: registry)
        #expect(registry.multivariant(jobID: "cam-9", name: "master.m3u8") == nil)
        output.discard()
    }
}
