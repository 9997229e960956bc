import Testing
@testable import MediaFormats

@Suite("VPCodecConfigurationRecord (vpcC v1) and OpusIDHeader (RFC 7845 §5.1)")
struct CodecConfigurationTests {
    /// Expected values are ffprobe's for the same libvpx-vp9 streams (profile, pixel format, range, colour space).
    struct VPCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let record: VPCodecConfigurationRecord
        var testDescription: String { name }
    }

    static let vp: [VPCase] = [
        .init(name: "profile 0, yuv420p", bytes: CodecConfigurationFixtures.vp9Profile0,
              record: .init(profile: 0, level: 10, bitDepth: 8, chromaSubsampling: 1, videoFullRange: false,
                            colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 2)),
        .init(name: "profile 1, gbrp (full range, identity matrix)", bytes: CodecConfigurationFixtures.vp9Profile1RGB,
              record: .init(profile: 1, level: 10, bitDepth: 8, chromaSubsampling: 3, videoFullRange: true,
                            colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 0)),
        .init(name: "profile 1, yuv444p", bytes: CodecConfigurationFixtures.vp9Profile1YUV444,
              record: .init(profile: 1, level: 10, bitDepth: 8, chromaSubsampling: 3, videoFullRange: false,
                            colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 2)),
        .init(name: "10-bit with initialization data", bytes: AACFixtures.bytes("01000000 02 1f a2 09 10 09 0002 abcd"),
              record: .init(profile: 2, level: 31, bitDepth: 10, chromaSubsampling: 1, videoFullRange: false,
                            colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9,
                            codecInitializationData: [0xAB, 0xCD])),
    ]

    @Test(arguments: vp)
    func vpcCParsesAndWrites(_ c: VPCase) throws {
        #expect(try VPCodecConfigurationRecord(parsing: c.bytes) == c.record)
        #expect(try c.record.serialized() == c.bytes)
        for prefix in truncatedPrefixes(of: c.bytes) {
            #expect(throws: MediaFormatError.self) { try VPCodecConfigurationRecord(parsing: prefix) }
        }
    }

    @Test func vpcCRejectsVersion0AndAbsurdSizes() {
        #expect(throws: MediaFormatError.unsupported(structure: "VPCodecConfigurationRecord", reason: "version 0")) {
            try VPCodecConfigurationRecord(parsing: AACFixtures.bytes("00000000 00 0a 82 02 02 02 0000"))
        }
        #expect(throws: MediaFormatError.truncated(needed: 0xFFFF, available: 0)) {
            try VPCodecConfigurationRecord(parsing: AACFixtures.bytes("01000000 00 0a 82 02 02 02 ffff"))
        }
    }

    struct OpusCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let header: OpusIDHeader
        var testDescription: String { name }
    }

    static let opus: [OpusCase] = [
        .init(name: "libopus stereo (family 0)", bytes: CodecConfigurationFixtures.opusStereo,
              header: .init(channelCount: 2, preSkip: 312, inputSampleRate: 48000)),
        .init(name: "libopus 5.1 (family 1, Vorbis order)", bytes: CodecConfigurationFixtures.opus51,
              header: .init(channelCount: 6, preSkip: 312, inputSampleRate: 48000, channelMappingFamily: 1,
                            mapping: .init(streamCount: 4, coupledStreamCount: 2, channelMapping: [0, 4, 1, 2, 3, 5]))),
        .init(name: "mono, negative gain, 44.1 kHz input", bytes: AACFixtures.bytes("4f707573486561640101 6801 44ac0000 00ff 00"),
              header: .init(channelCount: 1, preSkip: 360, inputSampleRate: 44100, outputGain: -256)),
    ]

    @Test(arguments: opus)
    func opusHeadParsesAndWrites(_ c: OpusCase) throws {
        #expect(try OpusIDHeader(parsing: c.bytes) == c.header)
        #expect(try c.header.serialized() == c.bytes)
        for prefix in truncatedPrefixes(of: c.bytes) {
            #expect(throws: MediaFormatError.self) { try OpusIDHeader(parsing: prefix) }
        }
    }

    @Test func opusHeadRejectsMalformedHeaders() {
        let base = CodecConfigurationFixtures.opusStereo
        #expect(throws: MediaFormatError.invalid(structure: "OpusHead", reason: "magic signature is not OpusHead")) {
            try OpusIDHeader(parsing: Array("OpusTags".utf8) + base.dropFirst(8))
        }
        var v = base; v[8] = 0x10
        #expect(throws: MediaFormatError.unsupported(structure: "OpusHead", reason: "version 16")) { try OpusIDHeader(parsing: v) }
        var zero = base; zero[9] = 0
        #expect(throws: MediaFormatError.invalid(structure: "OpusHead", reason: "channel count 0")) { try OpusIDHeader(parsing: zero) }
        var many = base; many[9] = 3
        #expect(throws: MediaFormatError.invalid(structure: "OpusHead", reason: "3 channels in mapping family 0")) {
            try OpusIDHeader(parsing: many)
        }
        var mapping = CodecConfigurationFixtures.opus51; mapping[mapping.count - 1] = 6
        #expect(throws: MediaFormatError.invalid(structure: "OpusHead", reason: "channel mapping past 6 channels")) {
            try OpusIDHeader(parsing: mapping)
        }
        var coupled = CodecConfigurationFixtures.opus51; coupled[20] = 5
        #expect(throws: MediaFormatError.invalid(structure: "OpusHead", reason: "4 streams, 5 coupled")) { try OpusIDHeader(parsing: coupled) }
        var header = OpusIDHeader(channelCount: 2, preSkip: 0, inputSampleRate: 0, channelMappingFamily: 1)
        #expect(throws: MediaFormatError.self) { try header.serialized() }
        header.mapping = .init(streamCount: 1, coupledStreamCount: 1, channelMapping: [0])
        #expect(throws: MediaFormatError.self) { try header.serialized() }
    }
}
