import Foundation
@testable import LiveRelay
import MediaEngine
import MediaFormats
import RTMP
import SluiceTestSupport
import Testing
import MediaJob

/// A destination that announces the codecs it takes and not the input's gets H.264 when the job gives that
/// output its own encode rendition; the codec stage decodes the Enhanced RTMP input once, and the other outputs keep it.
@Suite("Enhanced RTMP: transcoding for a destination that refuses the codec", .serialized,
       .enabled(if: EnhancedPeer.isAvailable, EnhancedPeer.unavailableReason))
struct EnhancedTranscodeTests {
    @Test("HEVC published to a listen job: the destination announcing only avc1/mp4a gets legacy H.264 from its rendition, the archive the HEVC frame for frame")
    func renditionForLegacyDestination() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let reference = try EnhancedPeer.decode(source)
        let legacyOnly = EnhancedCapabilities(fourCCList: ["avc1", "mp4a"],
                                              videoInfo: [("avc1", EnhancedCapabilities.InfoMask.canForward)],
                                              audioInfo: [("mp4a", EnhancedCapabilities.InfoMask.canForward)])
        let destination = try StuckDestination(capabilities: legacyOnly, stopsReading: false)
        defer { destination.close() }
        let root = Live.scratch("enhanced-rendition")
        let port = try Live.freePort()
        var options = EnhancedRTMPTests.options(port: port, key: "renditionkey", outputs: [destination.url],
                                                archive: root + "/archive.flv", root: root)
        var rung = VideoEncodeSettings()
        rung.encoder = .software
        rung.width = 320
        rung.height = 180
        rung.gopSeconds = 1
        rung.live = true
        options.outputs[0].video = .encode(rung)
        options.outputs[1].video = .copy
        options.transport = EnhancedRTMPTests.engine
        let pipeline = CodecJob(options: options)
        let outcome = LockedBox<Result<MediaJobResult, any Error>?>(nil)
        // CodecJob.run blocks its thread, which becomes the input thread (never Swift's cooperative pool).
        let thread = Thread { outcome.set(Result { try pipeline.run() }) }
        thread.start()
        #expect(Live.wait(seconds: 5) { EnhancedRTMPTests.engine.listeningPorts > 0 })
        let publisher = try EnhancedPeer.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/renditionkey")
        #expect(publisher.wait(seconds: 30) == 0, "publisher: \(publisher.stderr)")
        #expect(Live.wait(seconds: 40) { outcome.get() != nil }, "the job did not end")
        let result = try #require(outcome.get()).get()

        // The destination got legacy AVC tags only (CodecID 7, no ex-header), a sequence header first and ~4 s of frames.
        let video = destination.media.filter { $0.typeID == MessageType.video.rawValue }
        #expect(!video.isEmpty && video.allSatisfy { $0.payload.first.map { $0 & 0x80 == 0 && $0 & 0x0F == 7 } == true },
                "a video tag the destination cannot read was sent")
        #expect(video.first?.payload.dropFirst().first == 0, "the first video tag is not the AVC sequence header")
        #expect(video.count >= 100, "\(video.count) video tags")
        let first = try #require(result.progress.outputs.first)
        #expect(first.lastError == nil, "\(first.lastError ?? "")")
        // The archive (a copy rung) is the published HEVC, every frame.
        let archived = try EnhancedPeer.decode(root + "/archive.flv")
        #expect(archived.errors.isEmpty, "\(archived.errors)")
        #expect(archived.video?.codec == "hevc")
        #expect(archived.video?.hashes == reference.video?.hashes)
    }
}

/// A value one thread sets and another reads; `@unchecked Sendable`: every access holds `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
