import MediaFormats
import MediaJob
import Testing
@testable import MediaSinks

/// Where a copied VP9 goes: FLV as an Enhanced RTMP vp09 SequenceStart carrying its vpcC; MPEG-TS and Annex B files
/// refuse it by name before a file is made (as they refuse AV1).
@Suite("VP9 carriage")
struct VideoCarriageTests {
    /// FFmpeg 8's vpcC for libvpx-vp9 profile 0 (version 1, flags 0, level 10, 8 bits, 4:2:0 colocated, BT.709).
    static let vpcC: [UInt8] = [1, 0, 0, 0, 0, 10, 0x82, 1, 1, 1, 0, 0]
    static let video = VideoConfiguration(bitstream: .vp9(try! VPCodecConfigurationRecord(parsing: vpcC)), width: 640, height: 360, frameRate: 30)

    @Test("an FLV gets the vpcC in a vp09 SequenceStart, then each frame as CodedFramesX, untouched")
    func flvSequenceStart() throws {
        var muxer = FLVMuxer(video: Self.video, audio: nil)
        var bytes: [UInt8] = []
        _ = try muxer.writeStart(into: &bytes)
        // IsExHeader | key frame | SequenceStart, the FourCC, the record.
        let start: [UInt8] = [0x90] + Array("vp09".utf8) + Self.vpcC
        #expect(bytes.indices.contains { bytes[$0...].starts(with: start) }, "no vp09 SequenceStart with the vpcC")
        let frame: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00]
        var tags: [UInt8] = []
        try muxer.write(MediaPacket(kind: .video, data: frame, pts: 33_000, dts: 33_000, isKeyframe: true), into: &tags)
        // CodedFramesX (3) on a key frame, then the frame's bytes.
        #expect(tags.indices.contains { tags[$0...].starts(with: [0x93] + Array("vp09".utf8) + frame) }, "\(tags)")
        #expect(FLVMuxer.videoCodecID(Self.video.bitstream) == Double(FLVVideoFourCC.vp09.rawValue))
    }

    @Test("MPEG-TS and Annex B refuse VP9 naming it, before any file is made")
    func refusals() throws {
        #expect { _ = try TSSink.videoStream(Self.video, output: "out.ts") } throws: { error in
            "\(error)" == "output out.ts: the video is VP9, which MPEG-TS does not carry here (write it to .mp4 or .flv)"
        }
        #expect { try AnnexBSink.checkCodec(Self.video.bitstream, path: "out.h264", output: "out.h264") } throws: { error in
            "\(error)".contains("the video is VP9, which has no Annex B byte stream")
        }
        #expect(throws: MediaFormatError.self) { _ = try AnnexBConversion(Self.video.bitstream) }
    }
}
