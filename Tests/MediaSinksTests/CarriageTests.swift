import MediaFormats
import MediaJob
import Testing
@testable import MediaSinks

/// Where a copied VP9 or VP8 goes: FLV as an Enhanced RTMP vp09 or vp08 SequenceStart carrying its vpcC; MPEG-TS and
/// Annex B files refuse it by name before a file is made (as they refuse AV1). Where a copied Opus goes: FLV as an Enhanced RTMP
/// Opus SequenceStart carrying its OpusHead, MPEG-TS with its Opus descriptor; ADTS refuses it by name.
@Suite("VP9, VP8 and Opus carriage")
struct CarriageTests {
    /// FFmpeg 8's vpcC for libvpx-vp9 profile 0 (version 1, flags 0, level 10, 8 bits, 4:2:0 colocated, BT.709).
    static let vpcC: [UInt8] = [1, 0, 0, 0, 0, 10, 0x82, 1, 1, 1, 0, 0]
    static let video = VideoConfiguration(bitstream: .vp9(try! VPCodecConfigurationRecord(parsing: vpcC)), width: 640, height: 360, frameRate: 30)

    /// The stream for FourCC `vp09` or `vp08` (VP8 has a vpcC alike, made from its key frame's tag).
    static func video(_ fourCC: String) -> VideoConfiguration {
        let record = try! VPCodecConfigurationRecord(parsing: vpcC)
        return VideoConfiguration(bitstream: fourCC == "vp09" ? .vp9(record) : .vp8(record), width: 640, height: 360, frameRate: 30)
    }

    @Test("an FLV gets the vpcC in a vp09 or vp08 SequenceStart, then each frame as CodedFramesX, untouched", arguments: ["vp09", "vp08"])
    func flvSequenceStart(fourCC: String) throws {
        let video = Self.video(fourCC)
        var muxer = FLVMuxer(video: video, audio: nil)
        var bytes: [UInt8] = []
        _ = try muxer.writeStart(into: &bytes)
        // IsExHeader | key frame | SequenceStart, the FourCC, the record.
        let start: [UInt8] = [0x90] + Array(fourCC.utf8) + Self.vpcC
        #expect(bytes.indices.contains { bytes[$0...].starts(with: start) }, "no \(fourCC) SequenceStart with the vpcC")
        let frame: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00]
        var tags: [UInt8] = []
        try muxer.write(MediaPacket(kind: .video, data: frame, pts: 33_000, dts: 33_000, isKeyframe: true), into: &tags)
        // CodedFramesX (3) on a key frame, then the frame's bytes.
        #expect(tags.indices.contains { tags[$0...].starts(with: [0x93] + Array(fourCC.utf8) + frame) }, "\(tags)")
        #expect(FLVMuxer.videoCodecID(video.bitstream) == Double(fourCC == "vp09" ? FLVVideoFourCC.vp09.rawValue : FLVVideoFourCC.vp08.rawValue))
    }

    @Test("MPEG-TS and Annex B refuse VP9 and VP8 naming them, before any file is made", arguments: ["vp09", "vp08"])
    func refusals(fourCC: String) throws {
        let video = Self.video(fourCC)
        let name = fourCC == "vp09" ? "VP9" : "VP8"
        #expect { _ = try TSSink.videoStream(video, output: "out.ts") } throws: { error in
            "\(error)" == "output out.ts: the video is \(name), which MPEG-TS does not carry here (write it to .mp4 or .flv)"
        }
        #expect { try AnnexBSink.checkCodec(video.bitstream, path: "out.h264", output: "out.h264") } throws: { error in
            "\(error)".contains("the video is \(name), which has no Annex B byte stream")
        }
        #expect(throws: MediaFormatError.self) { _ = try AnnexBConversion(video.bitstream) }
    }

    static let opusHead: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
    static let opus = AudioConfiguration(opus: try! OpusIDHeader(parsing: opusHead))

    @Test("an FLV gets the OpusHead in an Opus SequenceStart, then each packet as CodedFrames; onMetaData names the FourCC")
    func flvOpus() throws {
        var muxer = FLVMuxer(video: nil, audio: Self.opus)
        var bytes: [UInt8] = []
        _ = try muxer.writeStart(into: &bytes)
        // SoundFormat 9 (ex-header) | SequenceStart (0), the FourCC, the OpusHead.
        #expect(bytes.indices.contains { bytes[$0...].starts(with: [0x90] + Array("Opus".utf8) + Self.opusHead) }, "no Opus SequenceStart")
        let packet: [UInt8] = [0xFC, 0xFF, 0xFE]
        var tags: [UInt8] = []
        try muxer.write(MediaPacket(kind: .audio, data: packet, pts: 20_000, dts: 20_000, isKeyframe: true), into: &tags)
        #expect(tags.indices.contains { tags[$0...].starts(with: [0x91] + Array("Opus".utf8) + packet) }, "\(tags)")
        #expect(FLVMuxer.audioCodecID(Self.opus.bitstream) == Double(FLVAudioFourCC.opus.rawValue))
    }

    @Test("MPEG-TS carries Opus with its descriptor; ADTS refuses it naming it")
    func opusInTSAndADTS() throws {
        let stream = try TSSink.audioStream(Self.opus, output: "out.ts")
        #expect(stream.codec == .opus(try OpusAudioDescriptor(idHeader: OpusIDHeader(parsing: Self.opusHead))))
        #expect { _ = try ADTSSink.carried(Self.opus, output: "out.aac") } throws: { error in
            "\(error)" == "output out.aac: the audio is Opus, which ADTS does not carry (write it to .mp4, HLS or .flv)"
        }
    }
}
