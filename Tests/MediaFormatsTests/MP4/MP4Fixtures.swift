@testable import MediaFormats

/// Tracks built from the real codec configurations other suites already use (FLV, HEVC, AV1, Opus fixtures).
enum MP4Fixtures {
    /// x264 High 320x240 from the FLV fixture.
    static var avc: MP4Track {
        try! MP4Track(id: 1, codec: .avc(try! AVCDecoderConfigurationRecord(parsing: FLVFixtures.ffmpegAVCDecoderConfiguration)))
    }
    /// libx265 Main 10, 100x60 inside a 104x64 coded picture.
    static var hevc: MP4Track {
        try! MP4Track(id: 1, codec: .hevc(try! HEVCDecoderConfigurationRecord(parsing: HEVCFixtures.main10.hvcC)))
    }
    /// SVT-AV1 10-bit 160x90.
    static var av1: MP4Track {
        try! MP4Track(id: 1, codec: .av1(try! AV1CodecConfigurationRecord(parsing: AV1Fixtures.svt10.av1C)))
    }
    /// libvpx-vp9 profile 0 (FFmpeg 8's vpcC), 640x360 as its key frames say.
    static var vp9: MP4Track {
        try! MP4Track(id: 1, codec: .vp9(try! VPCodecConfigurationRecord(parsing: CodecConfigurationFixtures.vp9Profile0), width: 640, height: 360))
    }
    /// VP8 with the vpcC a key frame gives (profile 0, 8 bits), 320x240 as its key frames say.
    static var vp8: MP4Track {
        try! MP4Track(id: 1, codec: .vp8(VPCodecConfigurationRecord(profile: 0, level: 0, bitDepth: 8, chromaSubsampling: 0,
                                                                    videoFullRange: false), width: 320, height: 240))
    }
    /// AAC-LC 44.1 kHz mono (FFmpeg's ASC with the "no SBR" extension).
    static func aac(id: UInt32 = 2) -> MP4Track {
        try! MP4Track(id: id, codec: .aac(try! AudioSpecificConfig(parsing: FLVFixtures.ffmpegAudioSpecificConfig)))
    }
    /// Opus stereo from FFmpeg's OpusHead.
    static func opus(id: UInt32 = 2) -> MP4Track {
        try! MP4Track(id: id, codec: .opus(try! OpusIDHeader(parsing: CodecConfigurationFixtures.opusStereo)))
    }

    /// A sample of `size` bytes, each its index in the run plus `tag`, so payloads can be told apart in an mdat.
    static func sample(at decodeTime: Int64, duration: UInt32, offset: Int32 = 0, sync: Bool = true, size: Int = 4,
                       tag: UInt8 = 0) -> MP4Sample {
        MP4Sample(decodeTime: decodeTime, duration: duration, compositionOffset: offset, isSync: sync,
                  payload: (0..<size).map { UInt8(truncatingIfNeeded: $0) &+ tag })
    }
}
