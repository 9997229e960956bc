import Testing
import MediaFormats

/// Codec configurations from real encodes, each with the CODECS string a reference muxer wrote for it. The records
/// were cut from the init.mp4 that the command in each row made (hvcC with numOfArrays set to 0: the string needs
/// only the 22 fixed bytes).
@Suite("CODECS strings (RFC 6381) from avcC, hvcC, av1C, vpcC and AudioSpecificConfig")
struct CodecStringTests {
    typealias Case = HLSCaseRow<@Sendable () throws -> String, String>

    static func hex(_ text: String) -> [UInt8] { AACFixtures.bytes(text) }

    static let cases: [Case] = [
        // ffmpeg -f lavfi -i testsrc2 -t 2 -c:v libx264 -profile:v high -level 4.0 -b:v 300k -hls_segment_type fmp4
        //   -master_pl_name master.m3u8 -f hls i.m3u8  → CODECS="avc1.640028" (FFmpeg 5.1 and 8 alike)
        .init("H.264 High 4.0 (libx264)", {
            CodecString.avc(try AVCDecoderConfigurationRecord(parsing: hex(
                "01640028ffe1001967640028acd94141fb011000000300100000030320f183196001000568ebecb22cfdf8f800")))
        }, "avc1.640028"),
        // … -f lavfi -i testsrc2=size=320x240:rate=25 -c:v libx264 -profile:v baseline -level 3.0 → "avc1.42c01e"
        .init("H.264 Constrained Baseline 3.0 (constraint_set0 and 1)", {
            CodecString.avc(try AVCDecoderConfigurationRecord(parsing: hex(
                "0142c01effe100186742c01ed90141fb011000000300100000030320f162e48001000468cb8cb2")))
        }, "avc1.42c01e"),
        // … -f lavfi -i testsrc2=size=1280x720:rate=50 -c:v libx264 -profile:v main -level 3.1 → "avc1.4d401f"
        .init("H.264 Main 3.1", {
            CodecString.avc(try AVCDecoderConfigurationRecord(parsing: hex(
                "014d401fffe10019674d401feca02802dd80880000030008000003032078c18cb001000468ebecb2")))
        }, "avc1.4d401f"),
        .init("H.264 as avc3 (parameter sets in band)", {
            CodecString.avc(.init(profileIndication: 100, profileCompatibility: 0, levelIndication: 31,
                                  sequenceParameterSets: [], pictureParameterSets: []), sampleEntry: "avc3")
        }, "avc3.64001f"),
        // ffmpeg -f lavfi -i testsrc2=size=640x360:rate=30 -t 2 -c:v libx265 -tag:v hvc1 … -f hls: FFmpeg 5.1 prints
        // the fixed approximation "hvc1.1.4.L63.B01"; Annex E.3 from the same hvcC gives compatibility flags 1 and 2
        // (0x60000000 reversed = 6) and progressive_source + frame_only (0x90), as gohlslib derives it.
        .init("HEVC Main, level 2.1 (libx265)", {
            CodecString.hevc(try HEVCDecoderConfigurationRecord(parsing: hex(
                "0101600000009000000000003ff000fcfdf8f800000f00")))
        }, "hvc1.1.6.L63.90"),
        // … -pix_fmt yuv420p10le: FFmpeg 5.1 prints "hvc1.2.4.L63.B01".
        .init("HEVC Main 10 (libx265)", {
            CodecString.hevc(try HEVCDecoderConfigurationRecord(parsing: hex(
                "0102200000009000000000003ff000fcfdfafa00000f00")))
        }, "hvc1.2.4.L63.90"),
        // ISO/IEC 14496-15 Annex E.3's own examples.
        .init("Annex E: Main, level 3.1, progressive non-packed frame-only (B0)", {
            CodecString.hevc(HEVCProfileTierLevel(profileSpace: 0, tierFlag: false, profileIdc: 1,
                                                  profileCompatibilityFlags: 0x6000_0000,
                                                  constraintIndicatorFlags: 0xB000_0000_0000, levelIdc: 93),
                             sampleEntry: "hev1")
        }, "hev1.1.6.L93.B0"),
        .init("Annex E: profile space C, High tier, constraint bytes kept up to the last non-zero", {
            CodecString.hevc(HEVCProfileTierLevel(profileSpace: 3, tierFlag: true, profileIdc: 4,
                                                  profileCompatibilityFlags: 0x0800_0000,
                                                  constraintIndicatorFlags: 0x0000_0023_0000, levelIdc: 153))
        }, "hvc1.C4.10.H153.0.0.0.23"),
        .init("HEVC without constraint flags ends at the level", {
            CodecString.hevc(HEVCProfileTierLevel(profileSpace: 0, tierFlag: false, profileIdc: 1,
                                                  profileCompatibilityFlags: 0x4000_0000,
                                                  constraintIndicatorFlags: 0, levelIdc: 120))
        }, "hvc1.1.2.L120"),
        // ffmpeg -f lavfi -i testsrc2=size=320x240:rate=30 -t 2 -c:v libaom-av1 -cpu-used 8 av1.mp4 (av1C); FFmpeg 5.1's
        // hlsenc leaves CODECS out for AV1, so the expected string is the binding's: profile 0, level 0 (2.0), Main, 8 bit.
        .init("AV1 Main 8-bit (libaom)", {
            CodecString.av1(try AV1CodecConfigurationRecord(parsing: hex("81000c000a0b000000043cffbcdaf90040")))
        }, "av01.0.00M.08"),
        // … -pix_fmt yuv420p10le.
        .init("AV1 Main 10-bit (libaom)", {
            CodecString.av1(try AV1CodecConfigurationRecord(parsing: hex("81004c000a0b000000043cffbcdaf94040")))
        }, "av01.0.00M.10"),
        .init("AV1 Professional 12-bit, level 5.1 High tier", {
            CodecString.av1(.init(seqProfile: 2, seqLevelIdx0: 13, seqTier0: true, highBitdepth: true, twelveBit: true,
                                  monochrome: false, chromaSubsamplingX: true, chromaSubsamplingY: false,
                                  chromaSamplePosition: 0, configOBUs: []))
        }, "av01.2.13H.12"),
        .init("VP9 profile 0, level 1, 8 bit (libvpx-vp9 vpcC)", {
            CodecString.vp9(try VPCodecConfigurationRecord(parsing: CodecConfigurationFixtures.vp9Profile0))
        }, "vp09.00.10.08"),
        .init("VP8 profile 0, 8 bit (the vpcC a key frame gives)", {
            CodecString.vp8(.init(profile: 0, level: 0, bitDepth: 8, chromaSubsampling: 0, videoFullRange: false))
        }, "vp08.00.00.08"),
        // ffmpeg -f lavfi -i sine=sample_rate=48000 -t 2 -c:a aac … -f hls → CODECS="mp4a.40.2"; the esds carries
        // the backward-compatible "no SBR" extension FFmpeg's encoder writes.
        .init("AAC-LC (FFmpeg aac, esds)", {
            CodecString.aac(try AudioSpecificConfig(parsing: hex("118856e500")))
        }, "mp4a.40.2"),
        .init("HE-AAC, hierarchical SBR", { CodecString.aac(try AudioSpecificConfig(parsing: hex("2b920800"))) },
              "mp4a.40.5"),
        .init("HE-AAC v2, hierarchical PS", { CodecString.aac(try AudioSpecificConfig(parsing: hex("eb8a0800"))) },
              "mp4a.40.29"),
        .init("HE-AAC behind AAC-LC (backward-compatible SBR present)", {
            CodecString.aac(try AudioSpecificConfig(parsing: hex("1310 56e598")))
        }, "mp4a.40.5"),
        .init("AAC Main", { CodecString.aac(try AudioSpecificConfig(parsing: hex("0810"))) },
              "mp4a.40.1"),
        // ffmpeg -f lavfi -i sine=sample_rate=48000 -t 2 -c:a libopus … -f hls → CODECS="opus".
        .init("Opus", { CodecString.opus }, "opus"),
    ]

    @Test(arguments: cases)
    func codecString(_ c: Case) throws {
        #expect(try c.input() == c.expected)
    }
}

@Suite("CODECS strings of MP4 tracks")
struct TrackCodecStringTests {
    @Test("an init segment's tracks name their codecs as their configurations do")
    func tracks() throws {
        let avc = try AVCDecoderConfigurationRecord(parsing: CodecStringTests.hex(
            "014d401fffe10019674d401feca02802dd80880000030008000003032078c18cb001000468ebecb2"))
        #expect(CodecString.track(try MP4Track(id: 1, codec: .avc(avc))) == "avc1.4d401f")
        let aac = try AudioSpecificConfig(parsing: CodecStringTests.hex("1190"))
        #expect(CodecString.track(try MP4Track(id: 2, codec: .aac(aac))) == "mp4a.40.2")
    }
}
