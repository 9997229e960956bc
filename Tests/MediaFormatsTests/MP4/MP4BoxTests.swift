import Testing
@testable import MediaFormats

/// One row: a box and the bytes derived by hand from its section of ISO/IEC 14496-12 (or 14496-14, the Opus
/// binding); the same rows check `size`, seed the fuzz corpus and, where the box has a parser, parse back.
struct MP4BoxCase: Sendable, CustomTestStringConvertible {
    let name: String
    let box: any MP4Box
    let hex: String
    var testDescription: String { name }

    static let unityMatrix = "00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000"

    static let all: [MP4BoxCase] = [
        .init(name: "ftyp of a single-track init segment: iso6 + cmfc", box: FileTypeBox.initSegment(singleTrack: true),
              hex: "00000018 66747970 69736f36 00000000 69736f36 636d6663"),
        .init(name: "ftyp of a muxed init segment: iso6 only", box: FileTypeBox.initSegment(singleTrack: false),
              hex: "00000014 66747970 69736f36 00000000 69736f36"),
        .init(name: "styp of a muxed media segment: msdh", box: FileTypeBox.mediaSegment(singleTrack: false),
              hex: "00000014 73747970 6d736468 00000000 6d736468"),
        .init(name: "mvhd version 0, timescale 1000, next track 3", box: MovieHeaderBox(nextTrackID: 3),
              hex: "0000006c 6d766864 00000000 00000000 00000000 000003e8 00000000 00010000 0100 0000 00000000 00000000"
                + unityMatrix + String(repeating: "00", count: 24) + "00000003"),
        .init(name: "tkhd of a 320x180 video track 1", box: try! TrackHeaderBox(trackID: 1, isAudio: false, width: 320, height: 180),
              hex: "0000005c 746b6864 00000003 00000000 00000000 00000001 00000000 00000000 00000000 00000000"
                + "0000 0000 0000 0000" + unityMatrix + "01400000 00b40000"),
        .init(name: "tkhd of audio track 2: volume 1.0, no size", box: try! TrackHeaderBox(trackID: 2, isAudio: true),
              hex: "0000005c 746b6864 00000003 00000000 00000000 00000002 00000000 00000000 00000000 00000000"
                + "0000 0000 0100 0000" + unityMatrix + "00000000 00000000"),
        .init(name: "mdhd 48 kHz, language und (0x55c4)", box: MediaHeaderBox(timescale: 48000),
              hex: "00000020 6d646864 00000000 00000000 00000000 0000bb80 00000000 55c4 0000"),
        .init(name: "hdlr vide VideoHandler", box: HandlerBox(handlerType: HandlerBox.video, name: "VideoHandler"),
              hex: "0000002d 68646c72 00000000 00000000 76696465 000000000000000000000000 566964656f48616e646c657200"),
        .init(name: "vmhd: flags 1, copy", box: VideoMediaHeaderBox(), hex: "00000014 766d6864 00000001 0000 000000000000"),
        .init(name: "smhd: centre balance", box: SoundMediaHeaderBox(), hex: "00000010 736d6864 00000000 0000 0000"),
        .init(name: "dref with one self-contained url", box: DataReferenceBox(),
              hex: "0000001c 64726566 00000000 00000001 0000000c 75726c20 00000001"),
        .init(name: "empty stts", box: EmptySampleTableBox.timeToSample, hex: "00000010 73747473 00000000 00000000"),
        .init(name: "empty stsz: sample_size and sample_count 0", box: EmptySampleTableBox.sampleSize,
              hex: "00000014 7374737a 00000000 00000000 00000000"),
        .init(name: "trex of track 2: sample description 1, no defaults", box: TrackExtendsBox(trackID: 2),
              hex: "00000020 74726578 00000000 00000002 00000001 00000000 00000000 00000000"),
        .init(name: "mfhd sequence 7", box: MovieFragmentHeaderBox(sequenceNumber: 7), hex: "00000010 6d666864 00000000 00000007"),
        .init(name: "tfhd default-base-is-moof, track 1", box: TrackFragmentHeaderBox(trackID: 1),
              hex: "00000010 74666864 00020000 00000001"),
        .init(name: "tfdt version 1 past 32 bits (2^33 + 5)", box: TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: 1 << 33 + 5),
              hex: "00000014 74666474 01000000 00000002 00000005"),
        .init(name: "trun version 1: a sync sample with offset −3000, a non-sync one with +6000",
              box: TrackRunBox(dataOffset: 0x70, entries: [
                  .init(duration: 3000, size: 0x1234, flags: .sync, compositionTimeOffset: -3000),
                  .init(duration: 3000, size: 5, flags: .nonSync, compositionTimeOffset: 6000),
              ]),
              hex: "00000034 7472756e 01000f01 00000002 00000070"
                + "00000bb8 00001234 02000000 fffff448 00000bb8 00000005 01010000 00001770"),
        .init(name: "esds for AAC-LC 44.1 kHz mono (ASC 1208): one-byte sizes",
              box: ElementaryStreamDescriptorBox(audioSpecificConfig: try! AudioSpecificConfig(parsing: [0x12, 0x08])),
              hex: "00000027 65736473 00000000 03 19 0000 00 04 11 40 15 000000 00000000 00000000 05 02 1208 06 01 02"),
        .init(name: "dOps stereo from OpusHead: big-endian, Version 0",
              box: OpusSpecificBox(header: try! OpusIDHeader(parsing: CodecConfigurationFixtures.opusStereo)),
              hex: "00000013 644f7073 00 02 0138 0000bb80 0000 00"),
        .init(name: "dOps 5.1, mapping family 1 with its table",
              box: OpusSpecificBox(header: try! OpusIDHeader(parsing: CodecConfigurationFixtures.opus51)),
              hex: "0000001b 644f7073 00 06 0138 0000bb80 0000 01 04 02 000401020305"),
        .init(name: "avc1 320x240 with the avcC of the FLV fixture",
              box: try! VisualSampleEntry(type: VisualSampleEntry.avc1, width: 320, height: 240,
                                          configuration: MP4OpaqueBox("avcC", payload: FLVFixtures.ffmpegAVCDecoderConfiguration)),
              hex: "0000008c 61766331 000000000000 0001 0000 0000 000000000000000000000000 0140 00f0 00480000 00480000"
                + "00000000 0001" + String(repeating: "00", count: 32) + "0018 ffff 00000036 61766343"
                + hexString(FLVFixtures.ffmpegAVCDecoderConfiguration)),
        .init(name: "mp4a 44.1 kHz mono with its esds",
              box: try! AudioSampleEntry(type: AudioSampleEntry.mp4a, channelCount: 1, sampleRate: 44100,
                                         configuration: ElementaryStreamDescriptorBox(
                                             audioSpecificConfig: try! AudioSpecificConfig(parsing: [0x12, 0x08]))),
              hex: "0000004b 6d703461 000000000000 0001 00000000 00000000 0001 0010 0000 0000 ac440000"
                + "00000027 65736473 00000000 03 19 0000 00 04 11 40 15 000000 00000000 00000000 05 02 1208 06 01 02"),
        .init(name: "mp4a at 96 kHz: samplerate over 16 bits is written as 0",
              box: try! AudioSampleEntry(type: AudioSampleEntry.mp4a, channelCount: 2, sampleRate: 96000,
                                         configuration: MP4OpaqueBox("esds", payload: [])),
              hex: "0000002c 6d703461 000000000000 0001 00000000 00000000 0002 0010 0000 0000 00000000 00000008 65736473"),
        .init(name: "mdat of two payloads", box: MediaDataBox(payloads: [[1, 2, 3], [4]]), hex: "0000000c 6d646174 01020304"),
        .init(name: "elst v0: the presentation starts 1,024 samples in (AAC priming), to the end of the fragmented track",
              box: EditListBox.starting(atMediaTime: 1024),
              hex: "0000001c 656c7374 00000000 00000001 00000000 00000400 00010000"),
        .init(name: "elst v0: an empty edit of 2 s, then media from 0",
              box: EditListBox(entries: [.init(segmentDuration: 2000, mediaTime: -1), .init(segmentDuration: 0, mediaTime: 0)]),
              hex: "00000028 656c7374 00000000 00000002 000007d0 ffffffff 00010000 00000000 00000000 00010000"),
        .init(name: "elst v1: a media time past 32 bits",
              box: EditListBox.starting(atMediaTime: 1 << 32),
              hex: "00000024 656c7374 01000000 00000001 00000000 00000000 00000001 00000000 00010000"),
    ]

    static func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

@Suite struct MP4BoxTests {
    @Test(arguments: MP4BoxCase.all)
    func writesTheBytesTheSpecGives(_ row: MP4BoxCase) throws {
        let written = try row.box.serialized()
        #expect(MP4BoxCase.hexString(written) == MP4BoxCase.hexString(AACFixtures.bytes(row.hex)))
        #expect(row.box.size == written.count)
        // The reader sees one box of the declared type whose payload is the rest.
        let nodes = try MP4BoxReader.topLevelBoxes(in: written[...])
        #expect(nodes.count == 1)
        #expect(nodes.first?.type == row.box.boxType)
        #expect(nodes.first?.payload.count == row.box.payloadSize)
    }

    @Test func boxesWithAParserReadBackWhatTheyWrote() throws {
        for row in MP4BoxCase.all {
            let payload = try #require(try MP4BoxReader.topLevelBoxes(in: try row.box.serialized()[...]).first).payload
            switch row.box {
            case let box as FileTypeBox: #expect(try FileTypeBox(boxType: box.boxType, parsing: payload) == box)
            case let box as MediaHeaderBox: #expect(try MediaHeaderBox(parsing: payload) == box)
            case let box as HandlerBox: #expect(try HandlerBox(parsing: payload) == box)
            case let box as TrackExtendsBox: #expect(try TrackExtendsBox(parsing: payload) == box)
            case let box as MovieFragmentHeaderBox: #expect(try MovieFragmentHeaderBox(parsing: payload) == box)
            case let box as TrackFragmentHeaderBox: #expect(try TrackFragmentHeaderBox(parsing: payload) == box)
            case let box as TrackFragmentBaseMediaDecodeTimeBox:
                #expect(try TrackFragmentBaseMediaDecodeTimeBox(parsing: payload) == box)
            case let box as TrackRunBox: #expect(try TrackRunBox(parsing: payload) == box)
            case let box as EditListBox: #expect(try EditListBox(parsing: payload) == box)
            case let box as ElementaryStreamDescriptorBox: #expect(try ElementaryStreamDescriptorBox(parsing: payload) == box)
            case let box as OpusSpecificBox:
                // dOps has no OpusHead version byte: it reads back as version 1, the OpusHead default.
                #expect(try OpusSpecificBox(parsing: payload) == box)
            default: continue
            }
        }
    }

    @Test func esdsSizesOver127BytesTakeTwoSevenBitGroups() throws {
        var box = ElementaryStreamDescriptorBox(audioSpecificConfig: try AudioSpecificConfig(parsing: [0x12, 0x08]))
        box.decoderSpecificInfo = Array(repeating: 0xAB, count: 200)
        let written = try box.serialized()
        #expect(written.count == box.size)
        // ES 225 = 0x81 0x61, DecoderConfig 216 = 0x81 0x58, DecSpecificInfo 200 = 0x81 0x48.
        #expect(Array(written[12..<15]) == [0x03, 0x81, 0x61])
        #expect(Array(written[18..<21]) == [0x04, 0x81, 0x58])
        #expect(Array(written[34..<37]) == [0x05, 0x81, 0x48])
        #expect(try ElementaryStreamDescriptorBox(parsing: written[8...]) == box)
    }

    @Test(arguments: [
        (0, 2), (127, 2), (128, 3), (16383, 3), (16384, 4), (ElementaryStreamDescriptorBox.maxDescriptorSize, 5),
    ])
    func descriptorSizeOfInstanceUsesTheFewestGroups(size: Int, overhead: Int) {
        #expect(ElementaryStreamDescriptorBox.descriptorSize(size) == size + overhead)
        var out: [UInt8] = []
        ElementaryStreamDescriptorBox.writeDescriptorHeader(tag: 0x05, size: size, into: &out)
        #expect(out.count == overhead)
        #expect(out.dropFirst().dropLast().allSatisfy { $0 & 0x80 != 0 } && out.last! & 0x80 == 0)
    }

    @Test func boxHeaderSwitchesToLargesizeOnlyPastTheThirtyTwoBitSize() {
        let largestCompact = Int(MP4BoxHeader.maxCompactBoxSize) - MP4BoxHeader.compactSize
        var out: [UInt8] = []
        MP4BoxHeader(type: "mdat", payloadSize: largestCompact).write(into: &out)
        #expect(out == AACFixtures.bytes("ffffffff 6d646174"))
        out = []
        MP4BoxHeader(type: "mdat", payloadSize: largestCompact + 1).write(into: &out)
        // size 1, then largesize = 16 + payload = 0x1_0000_0008.
        #expect(out == AACFixtures.bytes("00000001 6d646174 00000001 00000008"))
        #expect(MediaDataBox(payloads: []).headerSize == 8)
        out = []
        MP4BoxHeader(type: "mdat", payloadSize: 5_000_000_000).write(into: &out)
        #expect(out == AACFixtures.bytes("00000001 6d646174 00000001 2a05f210"))
    }

    @Test func sampleFlagsFieldsAreWhereSection8831PutsThem() {
        #expect(MP4SampleFlags.sync.rawValue == 0x0200_0000)
        #expect(MP4SampleFlags.nonSync.rawValue == 0x0101_0000)
        #expect(MP4SampleFlags.sync.sampleDependsOn == 2 && !MP4SampleFlags.sync.isNonSyncSample)
        #expect(MP4SampleFlags.nonSync.sampleDependsOn == 1 && MP4SampleFlags.nonSync.isNonSyncSample)
    }

    @Test func fourCCPrintsGarbageSafely() {
        #expect(MP4FourCC("moov").rawValue == 0x6D6F_6F76)
        #expect(MP4FourCC(rawValue: 0x00FF_6162).description == "??ab")
        #expect(MediaHeaderBox.packLanguage("eng") == 0x15C7)
    }

    @Test func writeErrorsLeaveTheOutputAsItWas() {
        let badOpus = OpusSpecificBox(header: OpusIDHeader(channelCount: 6, preSkip: 0, inputSampleRate: 0, channelMappingFamily: 1))
        var out: [UInt8] = [0xEE]
        #expect(throws: MediaFormatError.self) { try MP4ContainerBox("moov", [MovieHeaderBox(nextTrackID: 2), badOpus]).write(into: &out) }
        #expect(out == [0xEE])
        #expect(throws: MediaFormatError.limitExceeded(what: "'tkhd' width or height", value: 70000, limit: 0xFFFF)) {
            try TrackHeaderBox(trackID: 1, isAudio: false, width: 70000, height: 1)
        }
    }

    @Test func aTrackWithAPresentationStartHasItsEditListBetweenTkhdAndMdia() throws {
        let config = try AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 2)
        var track = try MP4Track(id: 2, codec: .aac(config))
        let plain = try #require(try MP4BoxReader.boxes(in: try track.trackBox().serialized()).first)
        #expect(plain.children.map(\.type) == ["tkhd", "mdia"])
        track.presentationStart = 1024
        let edited = try #require(try MP4BoxReader.boxes(in: try track.trackBox().serialized()).first)
        #expect(edited.children.map(\.type) == ["tkhd", "edts", "mdia"])
        let list = try #require(edited.children[1].children.first)
        #expect(list.type == "elst")
        #expect(try EditListBox(parsing: list.payload) == .starting(atMediaTime: 1024))
        // The priming also as iTunSMPB, in the track's udta after mdia.
        track.priming = 1024
        let bytes = try track.trackBox().serialized()
        let withPriming = try #require(try MP4BoxReader.boxes(in: bytes).first)
        #expect(withPriming.children.map(\.type) == ["tkhd", "edts", "mdia", "udta"])
        #expect(ITunSMPBBox(priming: 1024).text == " 00000000 00000400 00000000 0000000000000000")
        #expect(ITunSMPBBox(priming: 2112).text == " 00000000 00000840 00000000 0000000000000000")
        let udta = withPriming.children[3]
        #expect(udta.range.count == ITunSMPBBox(priming: 1024).size)
        let text = String(decoding: bytes[udta.range], as: UTF8.self)
        #expect(text.contains("com.apple.iTunes") && text.contains("iTunSMPB") && text.hasSuffix(" 00000000 00000400 00000000 0000000000000000"))
    }
}
