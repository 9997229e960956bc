import Testing
import MediaFormats

/// The prefixes agree with the full parsers on every case of their tables and on every tag FFmpeg 8 wrote.
@Suite("FLVVideoTagPrefix / FLVAudioTagPrefix (the head of a message, for a relay)")
struct FLVTagPrefixTests {
    static func expectAgreement(_ bytes: [UInt8], _ label: String) throws {
        let data = try FLVVideoData(parsing: bytes)
        let prefix = try FLVVideoTagPrefix(parsing: bytes)
        #expect(prefix.frameType == data.frameType, "\(label)")
        #expect(prefix.packetType == data.packetType, "\(label)")
        #expect(prefix.isCommand == (data.command != nil), "\(label)")
        #expect(prefix.codec == data.tracks.first?.codec, "\(label)")
        #expect(prefix.trackID == (data.tracks.first?.id ?? 0), "\(label)")
        #expect(prefix.multitrackType == data.multitrackType, "\(label)")
        #expect(prefix.isKeyframe == data.isKeyframe, "\(label)")
        let configures = data.packetType == .sequenceStart || data.packetType == .mpeg2TSSequenceStart
        #expect(prefix.isSequenceStart == (configures && data.command == nil), "\(label)")
    }

    @Test(arguments: FLVVideoDataTests.cases)
    func videoAgreesWithTheFullParse(_ c: FLVVideoDataTests.Case) throws {
        try Self.expectAgreement(c.bytes, c.name)
    }

    @Test func videoAgreesOnEveryFFmpegTag() throws {
        let tags = EnhancedFLVFixtures.multitrack + EnhancedFLVFixtures.vp9 + EnhancedFLVFixtures.legacyH264
        var keyframes = 0
        var sequenceStarts = 0
        for tag in tags where tag.type == FLVTagType.video.rawValue {
            try Self.expectAgreement(tag.bytes, "tag \(tag.index)")
            let prefix = try FLVVideoTagPrefix(parsing: tag.bytes)
            if prefix.isKeyframe { keyframes += 1 }
            if prefix.isSequenceStart { sequenceStarts += 1 }
        }
        // The fixtures keep tags of 600 bytes or less: the sequence starts and small inter frames, no key frame.
        #expect(sequenceStarts >= 4 && keyframes == 0)
    }

    @Test func videoHeads() throws {
        // hvc1 CodedFramesX key frame: 1 0 0 1 0011 (0x93), then "hvc1".
        let hevcKey = try FLVVideoTagPrefix(parsing: [0x93, 0x68, 0x76, 0x63, 0x31, 0, 0, 0, 1, 0x26])
        #expect(hevcKey.isKeyframe && hevcKey.codec == .fourCC(.hvc1) && hevcKey.trackID == 0)
        // av01 inter frame on track 2 (Multitrack OneTrack): 1 010 0110 (0xA6), 0000 0001, "av01", id 2.
        let av1Inter = try FLVVideoTagPrefix(parsing: [0xA6, 0x01, 0x61, 0x76, 0x30, 0x31, 2, 0x12, 0])
        #expect(av1Inter.isCodedFrames && !av1Inter.isKeyframe && av1Inter.trackID == 2 && av1Inter.multitrackType == .oneTrack)
        // Legacy AVC key frame and sequence header.
        #expect(try FLVVideoTagPrefix(parsing: [0x17, 0x01, 0, 0, 0, 9]).isKeyframe)
        #expect(try FLVVideoTagPrefix(parsing: [0x17, 0x00, 0, 0, 0, 1]).isSequenceStart)
        // Sorenson H.263 key frame: its header is the one byte.
        #expect(try FLVVideoTagPrefix(parsing: [0x12]).isKeyframe)
    }

    @Test func videoRefusals() {
        #expect(throws: MediaFormatError.self) { try FLVVideoTagPrefix(parsing: [UInt8]()) }
        #expect(throws: MediaFormatError.self) { try FLVVideoTagPrefix(parsing: [0x17, 0x01, 0, 0]) }
        // An unknown FourCC is named.
        let unknown = #expect(throws: MediaFormatError.self) { try FLVVideoTagPrefix(parsing: [0x91, 0x78, 0x79, 0x7A, 0x31, 0]) }
        #expect(unknown.map { "\($0)".contains("xyz1") } == true, "\(String(describing: unknown))")
        // The ex-header's packet type 6 (Multitrack) may not name a track's packet type.
        #expect(throws: MediaFormatError.self) { try FLVVideoTagPrefix(parsing: [0x96, 0x06, 0x68, 0x76, 0x63, 0x31, 0]) }
    }

    @Test(arguments: FLVAudioDataTests.cases)
    func audioAgreesWithTheFullParse(_ c: FLVAudioDataTests.Case) throws {
        let data = try FLVAudioData(parsing: c.bytes)
        let prefix = try FLVAudioTagPrefix(parsing: c.bytes)
        #expect(prefix.packetType == data.packetType)
        #expect(prefix.codec == data.tracks.first?.codec)
        #expect(prefix.trackID == (data.tracks.first?.id ?? 0))
        #expect(prefix.multitrackType == data.multitrackType)
    }

    @Test func audioHeads() throws {
        let aacConfig = try FLVAudioTagPrefix(parsing: [0xAF, 0x00, 0x12, 0x10])
        #expect(aacConfig.isConfiguration && aacConfig.codec == .legacy(.aac))
        #expect(try FLVAudioTagPrefix(parsing: [0xAF, 0x01, 0x21]).isCodedFrames)
        #expect(try FLVAudioTagPrefix(parsing: [0x2F, 0xFF]).isCodedFrames)
        // Opus SequenceStart and CodedFrames: 1001 0000 / 1001 0001, "Opus".
        #expect(try FLVAudioTagPrefix(parsing: [0x90, 0x4F, 0x70, 0x75, 0x73, 0x4F]).isConfiguration)
        let opus = try FLVAudioTagPrefix(parsing: [0x91, 0x4F, 0x70, 0x75, 0x73, 0xFC])
        #expect(opus.isCodedFrames && opus.codec == .fourCC(.opus))
        #expect(throws: MediaFormatError.self) { try FLVAudioTagPrefix(parsing: [UInt8]()) }
        #expect(throws: MediaFormatError.self) { try FLVAudioTagPrefix(parsing: [0xAF]) }
        #expect(throws: MediaFormatError.self) { try FLVAudioTagPrefix(parsing: [0x91, 0x4F, 0x70]) }
    }
}
