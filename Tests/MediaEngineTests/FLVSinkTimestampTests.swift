import Foundation
import MediaFormats
import Testing
@testable import MediaEngine
@testable import MediaSinks

/// FLV tag timestamps on a timeline that outlives 32 bits of milliseconds. The bytes are the same whether
/// they go to a file or to libavformat's rtmp protocol, which takes each tag's 32 timestamp bits as the
/// RTMP message timestamp (and sends deltas modulo 2^32): what is checked here is what RTMP carries.
@Suite("FLVSink timestamps across 2^31 and 2^32 ms")
struct FLVSinkTimestampTests {
    static func audio() throws -> AudioConfiguration {
        AudioConfiguration(audioSpecificConfig: try AudioSpecificConfig(objectType: 2, samplingFrequency: 48_000, channelConfiguration: 2),
                           sampleRate: 48_000, channels: 2)
    }

    /// Writes AAC packets at `milliseconds` through a real FLVSink into a file and reads the tags back.
    static func written(_ milliseconds: [Int64]) throws -> [FLVTag] {
        let path = NSTemporaryDirectory() + "flv-wrap-\(UUID().uuidString).flv"
        defer { unlink(path) }
        let file = try FileWriter(path: path)
        let sink = FLVSink(file: file, name: "wrap.flv", video: nil, audio: try audio())
        try sink.open()
        for time in milliseconds {
            try sink.write(MediaPacket(kind: .audio, data: [0x21, 0x10], pts: time * 1000, dts: time * 1000, isKeyframe: true))
        }
        try sink.finish()
        try file.rename().syncFolder()
        var reader = FLVReader()
        reader.append(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var tags: [FLVTag] = []
        while let tag = try reader.nextTag() { tags.append(tag) }
        return tags
    }

    @Test("a restream past 24.8 and 49.7 days keeps going: tag times wrap modulo 2^32, steps stay 21 ms")
    func wrapsLikeRTMP() throws {
        let start: [Int64] = [(1 << 31) - 42, (1 << 32) - 42, (3 << 32) - 42]
        for base in start {
            let times = (0..<5).map { base + Int64($0) * 21 }
            let tags = try Self.written(times).filter { $0.header.tagType == .audio }
            let media = Array(tags.dropFirst())  // after the AAC sequence header
            #expect(media.map(\.header.timestamp) == times.map { FLVTimestamp(milliseconds: $0).rawValue })
            let steps = zip(media, media.dropFirst()).map { FLVTimestamp(rawValue: $0.0.header.timestamp).distance(to: FLVTimestamp(rawValue: $0.1.header.timestamp)) }
            #expect(steps == [21, 21, 21, 21], "from \(base) ms")
            // A reader that saw the stream from before the wrap rebuilds the unbounded times (whole laps of 2^32 ms apart).
            var unwrapper = FLVTimestampUnwrapper()
            let before = FLVTimestamp(milliseconds: base - 21).rawValue
            let laps = base - 21 - Int64(before)
            _ = unwrapper.unwrap(before)
            #expect(media.map { unwrapper.unwrap($0.header.timestamp) + laps } == times)
        }
    }

    @Test("microseconds to milliseconds rounds half away from zero and never overflows")
    func millisecondRounding() {
        #expect(milliseconds(1_499) == 1)
        #expect(milliseconds(1_500) == 2)
        #expect(milliseconds(-1_500) == -2)
        #expect(milliseconds(-1_499) == -1)
        #expect(milliseconds(.max) == 9_223_372_036_854_776)
        #expect(milliseconds(.min) == -9_223_372_036_854_776)
    }
}
