import Testing
import MediaFormats

@Suite("FLVAudioData (FLV AUDIODATA, Enhanced RTMP v2 ExAudioTagHeader/ExAudioTagBody)")
struct FLVAudioDataTests {
    /// One row drives parsing, writing back, header truncation and the fuzz seeds (Fuzz/corpus/EnhancedFLVTag).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let packetType: FLVAudioPacketType
        var nanoseconds: UInt32? = nil
        var multitrackType: FLVMultitrackType? = nil
        /// (id, codec, payload) of each track.
        let tracks: [(UInt8, FLVAudioCodec, [UInt8])]
        /// Bytes before the first payload: every shorter prefix must throw.
        let headerSize: Int
        var testDescription: String { name }
    }

    static func hex(_ text: String) -> [UInt8] { AACFixtures.bytes(text) }
    static func tag(_ index: Int) -> [UInt8] { FLVVideoDataTests.tag(EnhancedFLVFixtures.multitrack, index) }

    static let cases: [Case] = [
        Case(name: "ffmpeg 8: Opus SequenceStart (OpusHead)", bytes: tag(2), packetType: .sequenceStart,
             tracks: [(0, .fourCC(.opus), CodecConfigurationFixtures.opusStereo)], headerSize: 5),
        Case(name: "ffmpeg 8: Opus MultichannelConfig, native stereo", bytes: tag(3), packetType: .multichannelConfig,
             tracks: [(0, .fourCC(.opus), hex("01 02 00000003"))], headerSize: 5),
        Case(name: "ffmpeg 8: mp4a SequenceStart on track 1 (Multitrack OneTrack)", bytes: tag(4), packetType: .sequenceStart,
             multitrackType: .oneTrack, tracks: [(1, .fourCC(.mp4a), hex("118856e500"))], headerSize: 7),
        Case(name: "ffmpeg 8: mp4a MultichannelConfig on track 1, front centre", bytes: tag(5), packetType: .multichannelConfig,
             multitrackType: .oneTrack, tracks: [(1, .fourCC(.mp4a), hex("01 01 00000004"))], headerSize: 7),
        Case(name: "ffmpeg 8: Opus CodedFrames", bytes: tag(9), packetType: .codedFrames,
             tracks: [(0, .fourCC(.opus), Array(tag(9).dropFirst(5)))], headerSize: 5),
        Case(name: "legacy AAC sequence header", bytes: hex("af00 1210"), packetType: .sequenceStart,
             tracks: [(0, .legacy(.aac), [0x12, 0x10])], headerSize: 2),
        Case(name: "legacy AAC raw", bytes: hex("af01 2100"), packetType: .codedFrames,
             tracks: [(0, .legacy(.aac), [0x21, 0x00])], headerSize: 2),
        Case(name: "legacy MP3, 44 kHz stereo", bytes: hex("2f fffb"), packetType: .codedFrames,
             tracks: [(0, .legacy(.mp3), [0xFF, 0xFB])], headerSize: 1),
        Case(name: "ModEx TimestampOffsetNano before ec-3 CodedFrames", bytes: hex("97 02 000400 01 65632d33 0b77"),
             packetType: .codedFrames, nanoseconds: 1024, tracks: [(0, .fourCC(.ec3), [0x0B, 0x77])], headerSize: 10),
        Case(name: "ManyTracksManyCodecs fLaC + .mp3 + ac-3 SequenceEnd", bytes:
                hex("95 22 664c6143 00 000000 2e6d7033 01 000001 aa 61632d33 02 000000"),
             packetType: .sequenceEnd, multitrackType: .manyTracksManyCodecs,
             tracks: [(0, .fourCC(.flac), []), (1, .fourCC(.mp3), [0xAA]), (2, .fourCC(.ac3), [])], headerSize: 10),
        Case(name: "ManyTracks Opus, two tracks", bytes: hex("95 11 4f707573 00 000002 fc01 05 000001 fc"),
             packetType: .codedFrames, multitrackType: .manyTracks,
             tracks: [(0, .fourCC(.opus), [0xFC, 0x01]), (5, .fourCC(.opus), [0xFC])], headerSize: 10),
        Case(name: "MultichannelConfig, custom 5.1 order", bytes: hex("94 4f707573 02 06 000102030405"),
             packetType: .multichannelConfig, tracks: [(0, .fourCC(.opus), hex("02 06 000102030405"))], headerSize: 5),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        let data = try FLVAudioData(parsing: c.bytes)
        #expect(data.packetType == c.packetType)
        #expect(data.timestampOffsetNanoseconds == c.nanoseconds)
        #expect(data.multitrackType == c.multitrackType)
        #expect(data.isEnhanced == (c.bytes[0] >> 4 == 9))
        #expect(data.tracks.count == c.tracks.count)
        for (track, expected) in zip(data.tracks, c.tracks) {
            #expect(track.id == expected.0)
            #expect(track.codec == expected.1)
            #expect(Array(track.payload) == expected.2)
            #expect(Array(c.bytes[track.payloadRange]) == expected.2)
        }
    }

    @Test(arguments: cases)
    func writesBackTheSameBytes(_ c: Case) throws {
        #expect(try FLVAudioData(parsing: c.bytes).serialized() == c.bytes)
    }

    @Test(arguments: cases)
    func everyHeaderTruncationThrows(_ c: Case) {
        for count in 0..<c.headerSize {
            #expect(throws: MediaFormatError.self, "\(count) bytes") { try FLVAudioData(parsing: Array(c.bytes.prefix(count))) }
        }
    }

    @Test func roundTripsEveryFFmpegTag() throws {
        var count = 0
        for tag in EnhancedFLVFixtures.multitrack where tag.type == FLVTagType.audio.rawValue {
            #expect(try FLVAudioData(parsing: tag.bytes).serialized() == tag.bytes, "tag \(tag.index)")
            count += 1
        }
        #expect(count == 21)
    }

    @Test func legacyCodecsMapToFourCCs() throws {
        #expect(try FLVAudioData(parsing: Self.hex("af00 1210")).tracks[0].codec.fourCC == .mp4a)
        #expect(try FLVAudioData(parsing: Self.hex("2f fffb")).tracks[0].codec.fourCC == .mp3)
        #expect(try FLVAudioData(parsing: Self.hex("7e 00")).tracks[0].codec.fourCC == nil)
    }

    struct MultichannelCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let config: FLVAudioMultichannelConfig
        var testDescription: String { name }
    }

    static let multichannel: [MultichannelCase] = [
        .init(name: "unspecified, 8 channels", bytes: hex("00 08"), config: .init(channelCount: 8, order: .unspecified)),
        .init(name: "native stereo", bytes: hex("01 02 00000003"), config: .init(channelCount: 2, order: .native(channelFlags: 3))),
        .init(name: "custom, unused and unknown speakers", bytes: hex("02 03 00 fe ff"),
              config: .init(channelCount: 3, order: .custom(mapping: [0, 0xFE, 0xFF]))),
    ]

    @Test(arguments: multichannel)
    func multichannelConfig(_ c: MultichannelCase) throws {
        #expect(try FLVAudioMultichannelConfig(parsing: c.bytes[...]) == c.config)
        var written: [UInt8] = []
        try c.config.write(into: &written)
        #expect(written == c.bytes)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "empty (RTMP's silence message)", bytes: [], error: .truncated(needed: 1, available: 0)),
        Malformed(name: "FourCC cut short", bytes: hex("90 4f70"), error: .truncated(needed: 4, available: 2)),
        Malformed(name: "unknown FourCC", bytes: hex("91 766f7262"),
                  error: .unsupported(structure: "FLV audio data", reason: "AudioFourCc \"vorb\"")),
        Malformed(name: "reserved AudioPacketType 3", bytes: hex("93 4f707573"),
                  error: .unsupported(structure: "FLV audio data", reason: "AudioPacketType 3 for a track")),
        Malformed(name: "AvMultitrackType 15", bytes: hex("95 f1 4f707573"),
                  error: .unsupported(structure: "FLV audio data", reason: "AvMultitrackType 15")),
        Malformed(name: "track size past the end", bytes: hex("95 11 4f707573 00 000009 fc"),
                  error: .truncated(needed: 9, available: 1)),
        Malformed(name: "custom channel map shorter than its count", bytes: hex("94 4f707573 02 06 0001"),
                  error: .truncated(needed: 6, available: 2)),
        Malformed(name: "AudioChannelOrder 3", bytes: hex("94 4f707573 03 02"),
                  error: .unsupported(structure: "FLV audio multichannel config", reason: "AudioChannelOrder 3")),
        Malformed(name: "legacy SoundFormat 13", bytes: hex("d2 00"),
                  error: .unsupported(structure: "FLV audio tag header", reason: "SoundFormat 13")),
    ]

    @Test(arguments: malformed)
    func rejects(_ m: Malformed) {
        #expect(throws: m.error) { try FLVAudioData(parsing: m.bytes) }
    }

    @Test func refusesToWriteInconsistentMessages() {
        let opus = FLVAudioTrack(codec: .fourCC(.opus), payload: [1])
        #expect(throws: MediaFormatError.self) {
            try FLVAudioData(packetType: .codedFrames, tracks: [opus, opus]).serialized()
        }
        #expect(throws: MediaFormatError.self) {
            try FLVAudioData(packetType: .codedFrames, multitrackType: .manyTracks,
                             tracks: [opus, FLVAudioTrack(codec: .fourCC(.mp4a), payload: [1])]).serialized()
        }
        #expect(throws: MediaFormatError.self) {
            try FLVAudioData(packetType: .codedFrames, tracks: [FLVAudioTrack(codec: .legacy(.aac), payload: [1])]).serialized()
        }
        var out: [UInt8] = []
        #expect(throws: MediaFormatError.self) {
            try FLVAudioMultichannelConfig(channelCount: 2, order: .custom(mapping: [0])).write(into: &out)
        }
    }

    @Test func buildsOpusMessages() throws {
        let head = FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: CodecConfigurationFixtures.opusStereo[...])
        #expect(try head.serialized() == Self.tag(2))
    }
}
