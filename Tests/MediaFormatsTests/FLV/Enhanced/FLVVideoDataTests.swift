import Testing
import MediaFormats

@Suite("FLVVideoData (FLV VIDEODATA, Enhanced RTMP v2 ExVideoTagHeader/ExVideoTagBody)")
struct FLVVideoDataTests {
    /// One row drives parsing, writing back, header truncation and the fuzz seeds (Fuzz/corpus/EnhancedFLVTag).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let frameType: FLVVideoFrameType
        let packetType: FLVVideoPacketType
        var command: FLVVideoCommand? = nil
        var nanoseconds: UInt32? = nil
        var multitrackType: FLVMultitrackType? = nil
        /// (id, codec, composition time, payload) of each track.
        let tracks: [(UInt8, FLVVideoCodec, Int32, [UInt8])]
        /// Bytes before the first payload: every shorter prefix must throw.
        let headerSize: Int
        var testDescription: String { name }
    }

    static func hex(_ text: String) -> [UInt8] { AACFixtures.bytes(text) }
    static func tag(_ tags: [EnhancedFLVFixtures.Tag], _ index: Int) -> [UInt8] {
        tags.first { $0.index == index }?.bytes ?? []
    }

    static let cases: [Case] = [
        Case(name: "ffmpeg 8: hvc1 SequenceStart (hvcC)", bytes: tag(EnhancedFLVFixtures.multitrack, 0),
             frameType: .keyFrame, packetType: .sequenceStart, tracks: [(0, .fourCC(.hvc1), 0, HEVCFixtures.main.hvcC)], headerSize: 5),
        Case(name: "ffmpeg 8: av01 SequenceStart on track 1 (Multitrack OneTrack)", bytes: tag(EnhancedFLVFixtures.multitrack, 1),
             frameType: .keyFrame, packetType: .sequenceStart, multitrackType: .oneTrack,
             tracks: [(1, .fourCC(.av01), 0, AV1Fixtures.aom.av1C)], headerSize: 7),
        Case(name: "ffmpeg 8: hvc1 CodedFramesX inter frame", bytes: tag(EnhancedFLVFixtures.multitrack, 10),
             frameType: .interFrame, packetType: .codedFramesX,
             tracks: [(0, .fourCC(.hvc1), 0, Array(tag(EnhancedFLVFixtures.multitrack, 10).dropFirst(5)))], headerSize: 5),
        Case(name: "ffmpeg 8: vp09 SequenceStart (vpcC)", bytes: tag(EnhancedFLVFixtures.vp9, 0),
             frameType: .keyFrame, packetType: .sequenceStart,
             tracks: [(0, .fourCC(.vp09), 0, CodecConfigurationFixtures.vp9Profile0)], headerSize: 5),
        Case(name: "ffmpeg 8: legacy AVC sequence header", bytes: tag(EnhancedFLVFixtures.legacyH264, 0),
             frameType: .keyFrame, packetType: .sequenceStart,
             tracks: [(0, .legacy(.avc), 0, Array(tag(EnhancedFLVFixtures.legacyH264, 0).dropFirst(5)))], headerSize: 5),
        Case(name: "ffmpeg 8: legacy AVC NALU, composition time 120 ms", bytes: tag(EnhancedFLVFixtures.legacyH264, 2),
             frameType: .interFrame, packetType: .codedFrames,
             tracks: [(0, .legacy(.avc), 120, Array(tag(EnhancedFLVFixtures.legacyH264, 2).dropFirst(5)))], headerSize: 5),
        Case(name: "ffmpeg 8: legacy AVC end of sequence", bytes: tag(EnhancedFLVFixtures.legacyH264, 4),
             frameType: .keyFrame, packetType: .sequenceEnd, tracks: [(0, .legacy(.avc), 0, [])], headerSize: 5),
        Case(name: "hvc1 CodedFrames, composition time −40 ms", bytes: hex("91 68766331 ffffd8 00000002 2601"),
             frameType: .keyFrame, packetType: .codedFrames, tracks: [(0, .fourCC(.hvc1), -40, [0, 0, 0, 2, 0x26, 0x01])],
             headerSize: 8),
        Case(name: "av01 CodedFrames carry no composition time", bytes: hex("a1 61763031 12000a0b"),
             frameType: .interFrame, packetType: .codedFrames, tracks: [(0, .fourCC(.av01), 0, [0x12, 0, 0x0A, 0x0B])], headerSize: 5),
        Case(name: "ModEx TimestampOffsetNano 1953 ns before hvc1 CodedFrames", bytes: hex("97 02 0007a1 01 68766331 000028 0102"),
             frameType: .keyFrame, packetType: .codedFrames, nanoseconds: 1953,
             tracks: [(0, .fourCC(.hvc1), 40, [1, 2])], headerSize: 13),
        Case(name: "ModEx then Multitrack ManyTracks hvc1, two tracks", bytes:
                hex("a7 02 0f423f 06 11 68766331 00 000005 000000 aabb 03 000004 00000a cc"),
             frameType: .interFrame, packetType: .codedFrames, nanoseconds: 999_999, multitrackType: .manyTracks,
             tracks: [(0, .fourCC(.hvc1), 0, [0xAA, 0xBB]), (3, .fourCC(.hvc1), 10, [0xCC])], headerSize: 16),
        Case(name: "ManyTracksManyCodecs av01 + vp09, CodedFramesX", bytes:
                hex("96 23 61763031 00 000002 1200 76703039 02 000001 83"),
             frameType: .keyFrame, packetType: .codedFramesX, multitrackType: .manyTracksManyCodecs,
             tracks: [(0, .fourCC(.av01), 0, [0x12, 0]), (2, .fourCC(.vp09), 0, [0x83])], headerSize: 10),
        Case(name: "ex-header command frame: end of seek (no FourCC)", bytes: hex("d0 01"),
             frameType: .videoInfoFrame, packetType: .sequenceStart, command: .endSeek, tracks: [], headerSize: 2),
        Case(name: "legacy H.263 command frame: start of seek", bytes: hex("52 00"),
             frameType: .videoInfoFrame, packetType: .codedFrames, command: .startSeek,
             tracks: [(0, .legacy(.sorensonH263), 0, [])], headerSize: 2),
        Case(name: "Metadata with a reserved frame type (to be ignored): read as a command frame's", bytes:
                hex("84 68766331 0200"),
             frameType: .videoInfoFrame, packetType: .metadata, tracks: [(0, .fourCC(.hvc1), 0, [0x02, 0x00])], headerSize: 5),
        Case(name: "ModEx with a 16-bit size and an unknown ModEx type, skipped", bytes:
                hex("a7 ff 0000 5a f3 68766331 0102"),
             frameType: .interFrame, packetType: .codedFramesX,
             tracks: [(0, .fourCC(.hvc1), 0, [1, 2])], headerSize: 10),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        let data = try FLVVideoData(parsing: c.bytes)
        #expect(data.frameType == c.frameType)
        #expect(data.packetType == c.packetType)
        #expect(data.command == c.command)
        #expect(data.timestampOffsetNanoseconds == c.nanoseconds)
        #expect(data.multitrackType == c.multitrackType)
        #expect(data.tracks.count == c.tracks.count)
        for (track, expected) in zip(data.tracks, c.tracks) {
            #expect(track.id == expected.0)
            #expect(track.codec == expected.1)
            #expect(track.compositionTime == expected.2)
            #expect(Array(track.payload) == expected.3)
            #expect(Array(c.bytes[track.payloadRange]) == expected.3)
        }
        #expect(data.isKeyframe == (c.frameType == .keyFrame && c.command == nil
                                    && [.codedFrames, .codedFramesX].contains(c.packetType)))
    }

    @Test(arguments: cases)
    func writesBackTheSameBytes(_ c: Case) throws {
        // The skipped unknown ModEx block and an ignored frame type are the things not kept.
        guard !c.name.contains("unknown ModEx") && !c.name.contains("reserved frame type") else { return }
        #expect(try FLVVideoData(parsing: c.bytes).serialized() == c.bytes)
    }

    @Test(arguments: cases)
    func everyHeaderTruncationThrows(_ c: Case) {
        for count in 0..<c.headerSize {
            #expect(throws: MediaFormatError.self, "\(count) bytes") { try FLVVideoData(parsing: Array(c.bytes.prefix(count))) }
        }
    }

    /// Every video tag FFmpeg 8 wrote (HEVC + AV1 multitrack, VP9, legacy H.264) parses and is written back as it was.
    @Test func roundTripsEveryFFmpegTag() throws {
        let tags = EnhancedFLVFixtures.multitrack + EnhancedFLVFixtures.vp9 + EnhancedFLVFixtures.legacyH264
        var count = 0
        for tag in tags where tag.type == FLVTagType.video.rawValue {
            let data = try FLVVideoData(parsing: tag.bytes)
            #expect(try data.serialized() == tag.bytes, "tag \(tag.index)")
            count += 1
        }
        #expect(count == 18)
    }

    @Test func ffmpegMetadataFrameCarriesColorInfo() throws {
        let data = try FLVVideoData(parsing: Self.tag(EnhancedFLVFixtures.multitrack, 6))
        #expect(data.packetType == .metadata)
        #expect(data.command == nil)
        #expect(!data.isKeyframe && !data.isSequenceStart)
        var reader = ByteReader(data.tracks[0].payload)
        #expect(try FLVScriptData(parsing: &reader).name == "colorInfo")
    }

    @Test func legacyAVCMapsToTheAVC1FourCC() throws {
        let data = try FLVVideoData(parsing: Self.tag(EnhancedFLVFixtures.legacyH264, 0))
        #expect(!data.isEnhanced)
        #expect(data.tracks[0].codec.fourCC == .avc1)
        #expect(data.isSequenceStart)
    }

    @Test func buildsSingleTrackMessages() throws {
        let hvcC = HEVCFixtures.main.hvcC
        let start = FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: .hvc1, payload: hvcC[...])
        #expect(try start.serialized() == Self.tag(EnhancedFLVFixtures.multitrack, 0))
        let frame = FLVVideoData(frameType: .keyFrame, packetType: .codedFrames, fourCC: .hvc1, compositionTime: -40,
                                 payload: [0, 0, 0, 2, 0x26, 0x01])
        #expect(try frame.serialized() == Self.cases[7].bytes)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "empty", bytes: [], error: .truncated(needed: 1, available: 0)),
        Malformed(name: "FourCC cut short", bytes: hex("91 6876"), error: .truncated(needed: 4, available: 2)),
        Malformed(name: "unknown FourCC", bytes: hex("91 61626364 00"),
                  error: .unsupported(structure: "FLV video data", reason: "VideoFourCc \"abcd\"")),
        Malformed(name: "VideoFrameType 0", bytes: hex("81 68766331"),
                  error: .invalid(structure: "FLV video data", reason: "VideoFrameType 0")),
        Malformed(name: "VideoFrameType 7", bytes: hex("f1 68766331"),
                  error: .invalid(structure: "FLV video data", reason: "VideoFrameType 7")),
        Malformed(name: "reserved VideoPacketType 8", bytes: hex("98 68766331"),
                  error: .unsupported(structure: "FLV video data", reason: "VideoPacketType 8 for a track")),
        Malformed(name: "Multitrack inside Multitrack", bytes: hex("96 06 68766331 00"),
                  error: .unsupported(structure: "FLV video data", reason: "VideoPacketType 6 for a track")),
        Malformed(name: "AvMultitrackType 3", bytes: hex("96 31 68766331"),
                  error: .unsupported(structure: "FLV video data", reason: "AvMultitrackType 3")),
        Malformed(name: "track size past the end", bytes: hex("96 13 61763031 00 ffffff 12"),
                  error: .truncated(needed: 0xFF_FFFF, available: 1)),
        Malformed(name: "ManyTracks without a track", bytes: hex("96 13 61763031"), error: .truncated(needed: 1, available: 0)),
        Malformed(name: "ModEx size past the end", bytes: hex("97 09 0001"), error: .truncated(needed: 10, available: 2)),
        Malformed(name: "ModEx 16-bit size cut short", bytes: hex("97 ff 01"), error: .truncated(needed: 2, available: 1)),
        Malformed(name: "TimestampOffsetNano in 2 bytes", bytes: hex("97 01 0001 01 68766331"),
                  error: .invalid(structure: "FLV video data", reason: "TimestampOffsetNano in 2 bytes (needs 3)")),
        Malformed(name: "hvc1 CodedFrames without room for the composition time", bytes: hex("91 68766331 0000"),
                  error: .truncated(needed: 3, available: 2)),
        Malformed(name: "unknown VideoCommand", bytes: hex("d0 07"),
                  error: .invalid(structure: "FLV video data", reason: "VideoCommand 7")),
        Malformed(name: "legacy CodecID 12", bytes: hex("1c 00"),
                  error: .unsupported(structure: "FLV video tag header", reason: "CodecID 12")),
    ]

    @Test(arguments: malformed)
    func rejects(_ m: Malformed) {
        #expect(throws: m.error) { try FLVVideoData(parsing: m.bytes) }
    }

    @Test func refusesToWriteInconsistentMessages() {
        let track = FLVVideoTrack(codec: .fourCC(.hvc1), payload: [1])
        let twoTracks = FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, tracks: [track, track])
        #expect(throws: MediaFormatError.invalid(structure: "FLV video data", reason: "2 tracks without ManyTracks")) {
            try twoTracks.serialized()
        }
        let mixed = FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, multitrackType: .manyTracks,
                                 tracks: [track, FLVVideoTrack(codec: .fourCC(.av01), payload: [1])])
        #expect(throws: MediaFormatError.invalid(structure: "FLV video data", reason: "ManyTracks needs tracks of one codec")) {
            try mixed.serialized()
        }
        let late = FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, fourCC: .hvc1, payload: [1],
                                timestampOffsetNanoseconds: 1_000_000)
        #expect(throws: MediaFormatError.limitExceeded(what: "TimestampOffsetNano", value: 1_000_000, limit: 999_999)) {
            try late.serialized()
        }
        let farComposition = FLVVideoData(frameType: .keyFrame, packetType: .codedFrames, fourCC: .hvc1,
                                          compositionTime: 0x80_0000, payload: [1])
        #expect(throws: MediaFormatError.self) { try farComposition.serialized() }
        let signalling = FLVVideoData(frameType: .keyFrame, packetType: .multitrack, fourCC: .hvc1, payload: [1])
        #expect(throws: MediaFormatError.self) { try signalling.serialized() }
        let legacyMetadata = FLVVideoData(frameType: .keyFrame, packetType: .metadata,
                                          tracks: [FLVVideoTrack(codec: .legacy(.avc), payload: [1])])
        #expect(throws: MediaFormatError.self) { try legacyMetadata.serialized() }
    }
}

@Suite("FLVTag typed data accessors")
struct FLVTagTypedDataTests {
    @Test func readsEnhancedTagsFromAnFLVStream() throws {
        let video = FLVVideoDataTests.tag(EnhancedFLVFixtures.multitrack, 0)
        let audio = FLVVideoDataTests.tag(EnhancedFLVFixtures.multitrack, 2)
        let writer = FLVWriter()
        var bytes: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: true, into: &bytes)
        try writer.writeVideo(timestamp: 40, data: FLVVideoData(parsing: video), into: &bytes)
        try writer.writeAudio(timestamp: 0x1_0000_0005, data: FLVAudioData(parsing: audio), into: &bytes)
        let before = bytes
        let tooLong = FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, fourCC: .av01,
                                   payload: Array(repeating: 0, count: FLVLimits.maxTagDataSize)[...])
        #expect(throws: MediaFormatError.self) { try writer.writeVideo(timestamp: 0, data: tooLong, into: &bytes) }
        #expect(bytes == before)
        var reader = FLVReader()
        reader.append(bytes[...])
        let videoTag = try #require(try reader.nextTag())
        let audioTag = try #require(try reader.nextTag())
        #expect(videoTag.header.timestamp == 40 && audioTag.header.timestamp == 5)
        #expect(videoTag.data == video && audioTag.data == audio)
        #expect(try videoTag.videoData().tracks.first?.codec == .fourCC(.hvc1))
        #expect(try audioTag.audioData().tracks.first?.codec == .fourCC(.opus))
        #expect(throws: MediaFormatError.self) { try videoTag.audioData() }
        #expect(throws: MediaFormatError.self) { try audioTag.videoData() }
    }
}
