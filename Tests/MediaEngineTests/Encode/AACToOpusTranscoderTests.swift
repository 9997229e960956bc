import Foundation
import MediaFormats
import MediaJob
import Testing
@testable import MediaEngine

/// A job's AAC made Opus for WebRTC viewers (`AACToOpusTranscoder`): ffmpeg makes the AAC, libavcodec's Opus decoder
/// (through `OpusToAACTranscoder`, the WHIP edge's) is the referee that the Opus decodes.
@Suite("AAC to Opus for WebRTC viewers")
struct AACToOpusTranscoderTests {
    /// `seconds` of a 440 Hz tone as ADTS at `rate` with `channels`: the AudioSpecificConfig and the raw frames.
    static func aac(seconds: Int, rate: Int, channels: Int) throws -> (config: [UInt8], frames: [[UInt8]]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aac-opus-\(UUID().uuidString).aac").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate)",
                            "-t", String(seconds), "-ac", String(channels), "-c:a", "aac", "-f", "adts", path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var frames: [[UInt8]] = []
        var config: [UInt8] = []
        var at = 0
        while at < bytes.count {
            let header = try ADTSHeader(parsing: bytes[at...])
            if config.isEmpty {
                var written: [UInt8] = []
                try AudioSpecificConfig(objectType: header.objectType, samplingFrequency: header.samplingFrequency,
                                        channelConfiguration: header.channelConfiguration).write(into: &written)
                config = written
            }
            frames.append(Array(bytes[(at + header.headerLength)..<(at + header.frameLength)]))
            at += header.frameLength
        }
        return (config, frames)
    }

    @Test("2 s of 44.1 kHz stereo AAC: 20 ms Opus frames, 20 ms apart from the first AAC frame's time, every one decodable", arguments: [1, 2])
    func transcodes(channels: Int) throws {
        let (config, frames) = try Self.aac(seconds: 2, rate: 44_100, channels: channels)
        let transcoder = try AACToOpusTranscoder(audioSpecificConfig: config)
        #expect(transcoder.channels == channels)
        var opus: [(milliseconds: Int64, frame: [UInt8])] = []
        for (index, frame) in frames.enumerated() {
            // The job's timeline: the stream starts at 5 s.
            opus += try transcoder.transcode(frame, milliseconds: 5_000 + Int64(index) * 1024 * 1000 / 44_100)
        }
        // What the AAC frames decode to (1,024 samples each at 44.1 kHz, the encoder's priming included) in 20 ms frames,
        // less what the resampler and the FIFO still hold.
        let expected = frames.count * 1024 * 50 / 44_100
        #expect((expected - 2...expected).contains(opus.count), "\(opus.count) Opus frames from \(frames.count) AAC frames, not about \(expected)")
        let steps = zip(opus, opus.dropFirst()).map { $1.milliseconds - $0.milliseconds }
        #expect(steps.allSatisfy { $0 == 20 }, "steps: \(Set(steps))")
        #expect(abs((opus.first?.milliseconds ?? 0) - 5_000) <= 10, "the first Opus frame is at \(opus.first?.milliseconds ?? -1) ms")
        // The referee: libavcodec's Opus decoder reads every frame (and the audio comes out as long as it went in).
        let decoder = try OpusToAACTranscoder(channels: channels)
        var decoded = 0
        for frame in opus { decoded += try decoder.transcode(frame.frame, milliseconds: frame.milliseconds).count }
        #expect(decoder.corruptPackets == 0)
        #expect(decoded >= 85, "\(decoded) AAC frames (1,024 samples at 48 kHz) from 2 s of Opus")
    }

    @Test("an edge run that starts at the job's 0 ms: its AAC frames are 1,024 samples apart from the first, none squeezed before it (G.711 and Opus in)")
    func edgeRunAtZero() throws {
        // A camera's G.711 decoded: 8 kHz mono, 20 ms blocks, the run at 0 ms.
        let pcm = try PCMToAACEncoder(sampleRate: 8_000, channels: 1)
        var fromPCM: [Int64] = []
        for block in 0..<50 {
            let samples = (0..<160).map { Int16(8_000 * sin(Double(block * 160 + $0) * 2 * .pi * 440 / 8_000)) }
            fromPCM += try pcm.encode(samples, milliseconds: Int64(block * 20)).map(\.milliseconds)
        }
        // A WHIP publisher's Opus (here: AAC made Opus), its first packet at 0 ms.
        let (config, frames) = try Self.aac(seconds: 1, rate: 48_000, channels: 2)
        let opus = try AACToOpusTranscoder(audioSpecificConfig: config)
        var packets: [(milliseconds: Int64, frame: [UInt8])] = []
        for (index, frame) in frames.enumerated() { packets += try opus.transcode(frame, milliseconds: Int64(index) * 1024 * 1000 / 48_000) }
        let first = packets.first?.milliseconds ?? 0
        let back = try OpusToAACTranscoder(channels: 2)
        var fromOpus: [Int64] = []
        for packet in packets { fromOpus += try back.transcode(packet.frame, milliseconds: packet.milliseconds - first).map(\.milliseconds) }
        for (name, times) in [("G.711", fromPCM), ("Opus", fromOpus)] {
            #expect(times.count > 20 && (times.first ?? -1) >= 0, "\(name): \(times.prefix(4))")
            let steps = Set(zip(times, times.dropFirst()).map { $1 - $0 })
            #expect(steps.isSubset(of: [21, 22]), "\(name): AAC frames \(steps.sorted()) ms apart: \(times.prefix(4))")
        }
    }

    @Test("an AudioSpecificConfig that does not read is refused, naming it")
    func refusesBadConfig() {
        #expect {
            _ = try AACToOpusTranscoder(audioSpecificConfig: [0xFF])
        } throws: { error in
            String(describing: error).contains("AudioSpecificConfig")
        }
    }
}
