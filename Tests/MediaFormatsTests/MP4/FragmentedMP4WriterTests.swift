import Testing
@testable import MediaFormats

/// One row per codec: the init segment of a one-track writer, read back with `MP4BoxReader`.
struct InitSegmentCase: Sendable, CustomTestStringConvertible {
    let name: String
    let track: MP4Track
    /// The sample entry and the configuration box inside it.
    let entry: MP4FourCC, configuration: MP4FourCC
    /// Width and height for video; channel count and sample rate (the timescale) for audio.
    let dimensions: (Int, Int)
    var testDescription: String { name }

    var handler: MP4FourCC { track.isVideo ? "vide" : "soun" }
    var timescale: UInt32 { track.isVideo ? 90_000 : UInt32(dimensions.1) }

    static let all: [InitSegmentCase] = [
        .init(name: "H.264 avc1 + avcC, 320x240 from the SPS", track: MP4Fixtures.avc, entry: "avc1", configuration: "avcC",
              dimensions: (320, 240)),
        .init(name: "HEVC hvc1 + hvcC, 100x60 from the SPS conformance window", track: MP4Fixtures.hevc, entry: "hvc1",
              configuration: "hvcC", dimensions: (100, 60)),
        .init(name: "AV1 av01 + av1C, 160x90 from the sequence header", track: MP4Fixtures.av1, entry: "av01",
              configuration: "av1C", dimensions: (160, 90)),
        .init(name: "VP9 vp09 + vpcC (a FullBox, version 1), 640x360 as given", track: MP4Fixtures.vp9, entry: "vp09",
              configuration: "vpcC", dimensions: (640, 360)),
        .init(name: "VP8 vp08 + vpcC, 320x240 as given", track: MP4Fixtures.vp8, entry: "vp08", configuration: "vpcC",
              dimensions: (320, 240)),
        .init(name: "AAC mp4a + esds, mono 44.1 kHz", track: MP4Fixtures.aac(id: 1), entry: "mp4a", configuration: "esds",
              dimensions: (1, 44_100)),
        .init(name: "Opus + dOps, stereo at 48 kHz", track: MP4Fixtures.opus(id: 1), entry: "Opus", configuration: "dOps",
              dimensions: (2, 48_000)),
    ]
}

@Suite struct FragmentedMP4WriterTests {
    @Test(arguments: InitSegmentCase.all)
    func initSegmentReadsBackForEachCodec(_ row: InitSegmentCase) throws {
        let bytes = try FragmentedMP4Writer(tracks: [row.track]).initSegment()
        let boxes = try MP4BoxReader.boxes(in: bytes)
        #expect(boxes.map(\.type) == ["ftyp", "moov"])
        let fileType = try FileTypeBox(parsing: boxes[0].payload)
        #expect(fileType.majorBrand == "iso6" && fileType.compatibleBrands == ["iso6", "cmfc"])
        let moov = boxes[1]
        #expect(moov.children.map(\.type) == ["mvhd", "trak", "mvex"])
        #expect(Array(try #require(moov.child("mvhd")).payload.suffix(4)) == [0, 0, 0, 2])  // next_track_ID
        let trak = try #require(moov.child("trak"))
        #expect(trak.children.map(\.type) == ["tkhd", "mdia"])
        let mdia = try #require(trak.child("mdia"))
        #expect(try MediaHeaderBox(parsing: #require(mdia.child("mdhd")).payload).timescale == row.timescale)
        #expect(try HandlerBox(parsing: #require(mdia.child("hdlr")).payload).handlerType == row.handler)
        let minf = try #require(mdia.child("minf"))
        #expect(minf.children.map(\.type) == [row.handler == "vide" ? "vmhd" : "smhd", "dinf", "stbl"])
        #expect(minf.descendant("dinf", "dref", "url ") != nil)
        let stbl = try #require(minf.child("stbl"))
        #expect(stbl.children.map(\.type) == ["stsd", "stts", "stsc", "stsz", "stco"])
        let entry = try #require(stbl.descendant("stsd", row.entry))
        let configuration = try #require(entry.child(row.configuration))
        var reader = ByteReader(entry.payload)
        if row.handler == "vide" {
            try reader.skip(24)
            #expect((Int(try reader.readUInt16()), Int(try reader.readUInt16())) == row.dimensions)
            // tkhd's 16.16 width and height are its last eight bytes.
            var tkhd = ByteReader(try #require(trak.child("tkhd")).payload.suffix(8))
            #expect((Int(try tkhd.readUInt32() >> 16), Int(try tkhd.readUInt32() >> 16)) == row.dimensions)
        } else {
            try reader.skip(16)
            let channels = Int(try reader.readUInt16())
            try reader.skip(6)
            #expect((channels, Int(try reader.readUInt32() >> 16)) == row.dimensions)
        }
        switch row.track.codec {
        case .avc(let record):
            let expected = try record.serialized()
            #expect(Array(configuration.payload) == expected)
        case .av1(let record):
            let expected = try record.serialized()
            #expect(Array(configuration.payload) == expected)
        case .vp9:
            // FFmpeg's own vpcC payload, FullBox header included, byte for byte.
            #expect(Array(configuration.payload) == CodecConfigurationFixtures.vp9Profile0)
        case .vp8(let record, _, _):
            #expect(try VPCodecConfigurationRecord(parsing: Array(configuration.payload)) == record)
        case .hevc(let record):
            let written = try HEVCDecoderConfigurationRecord(parsing: Array(configuration.payload))
            #expect(written.arrays.map(\.completeness) == Array(repeating: true, count: record.arrays.count))
            #expect(written.arrays.map(\.nalUnits) == record.arrays.map(\.nalUnits))
        case .aac(let config):
            let esds = try ElementaryStreamDescriptorBox(parsing: configuration.payload)
            #expect(esds.objectTypeIndication == 0x40 && esds.streamType == 0x05 && esds.decoderSpecificInfo == config.bytes)
        case .opus(let header):
            #expect(try OpusSpecificBox(parsing: configuration.payload).header == header)
        }
        #expect(try TrackExtendsBox(parsing: #require(moov.descendant("mvex", "trex")).payload).trackID == 1)
    }

    @Test func muxedInitSegmentHasATrakAndATrexPerTrack() throws {
        let writer = try FragmentedMP4Writer(tracks: [MP4Fixtures.avc, MP4Fixtures.aac(id: 2)])
        let moov = try #require(try MP4BoxReader.boxes(in: writer.initSegment()).last)
        #expect(moov.children("trak").count == 2)
        #expect(try moov.child("mvex")?.children("trex").map { try TrackExtendsBox(parsing: $0.payload).trackID } == [1, 2])
        let ftyp = try #require(try MP4BoxReader.boxes(in: writer.initSegment()).first)
        #expect(try FileTypeBox(parsing: ftyp.payload).compatibleBrands == ["iso6"])
        var styp: [UInt8] = []
        try writer.writeSegmentType(into: &styp)
        #expect(try MP4BoxReader.boxes(in: styp).map(\.type) == ["styp"])
    }

    @Test func fragmentCarriesDecodeTimesDurationsFlagsAndOffsetsThatPointIntoMdat() throws {
        var writer = try FragmentedMP4Writer(tracks: [MP4Fixtures.avc, MP4Fixtures.aac(id: 2)])
        let video = [
            MP4Fixtures.sample(at: 180_000, duration: 3600, offset: 7200, sync: true, size: 10, tag: 0x10),
            MP4Fixtures.sample(at: 183_600, duration: 3600, offset: -3600, sync: false, size: 6, tag: 0x20),
        ]
        let audio = [
            MP4Fixtures.sample(at: 88_200, duration: 1024, size: 3, tag: 0x30),
            MP4Fixtures.sample(at: 89_224, duration: 1024, size: 5, tag: 0x40),
        ]
        let bytes = try writer.fragment([video, audio])
        let boxes = try MP4BoxReader.boxes(in: bytes)
        #expect(boxes.map(\.type) == ["moof", "mdat"])
        let moof = boxes[0]
        #expect(try MovieFragmentHeaderBox(parsing: #require(moof.child("mfhd")).payload).sequenceNumber == 1)
        let trafs = moof.children("traf")
        #expect(trafs.count == 2)
        for (traf, samples) in zip(trafs, [video, audio]) {
            let tfhd = try TrackFragmentHeaderBox(parsing: #require(traf.child("tfhd")).payload)
            #expect(tfhd.isDefaultBaseMoof && tfhd.baseDataOffset == nil)
            #expect(try TrackFragmentBaseMediaDecodeTimeBox(parsing: #require(traf.child("tfdt")).payload).baseMediaDecodeTime
                    == UInt64(samples[0].decodeTime))
            let run = try TrackRunBox(parsing: #require(traf.child("trun")).payload)
            #expect(run.version == 1)
            #expect(run.entries.map(\.duration) == samples.map(\.duration))
            #expect(run.entries.map(\.compositionTimeOffset) == samples.map(\.compositionOffset))
            #expect(run.entries.map(\.flags) == samples.map { MP4SampleFlags(isSync: $0.isSync) })
            // data_offset counts from the first byte of the moof and lands on this track's first payload.
            let start = try #require(run.dataOffset).asInt + moof.range.lowerBound
            let payloads = samples.flatMap(\.payload)
            #expect(Array(bytes[start..<(start + payloads.count)]) == payloads)
            #expect(run.entries.map(\.size) == samples.map { UInt32($0.payload.count) })
        }
        #expect(boxes[1].payload.count == 24)
        #expect(try MP4BoxReader.boxes(in: writer.fragment([[MP4Fixtures.sample(at: 187_200, duration: 3600)], []]))
            .first?.child("mfhd").map { try MovieFragmentHeaderBox(parsing: $0.payload).sequenceNumber } == 2)
    }

    @Test func aTrackWithoutSamplesHasNoTraf() throws {
        var writer = try FragmentedMP4Writer(tracks: [MP4Fixtures.avc, MP4Fixtures.aac(id: 2)])
        let moof = try #require(try MP4BoxReader.boxes(in: writer.fragment([[], [MP4Fixtures.sample(at: 0, duration: 1024)]])).first)
        #expect(try moof.children("traf").map { try TrackFragmentHeaderBox(parsing: #require($0.child("tfhd")).payload).trackID } == [2])
    }

    @Test(arguments: [
        ("decode times that the durations do not explain", [[MP4Fixtures.sample(at: 0, duration: 10), MP4Fixtures.sample(at: 11, duration: 10)]],
         MediaFormatError.invalid(structure: "trun", reason: "track 1 sample 1 has decode time 11; the durations before it end at 10")),
        ("a negative first decode time", [[MP4Fixtures.sample(at: -1, duration: 10)]],
         MediaFormatError.invalid(structure: "tfdt", reason: "track 1 starts at decode time -1")),
        ("no samples at all", [[]], MediaFormatError.invalid(structure: "moof", reason: "a fragment without samples")),
        ("samples for two tracks", [[], []],
         MediaFormatError.invalid(structure: "moof", reason: "samples for 2 tracks, the writer has 1")),
    ])
    func malformedFragmentsThrowAndWriteNothing(name: String, samples: [[MP4Sample]], error: MediaFormatError) throws {
        var writer = try FragmentedMP4Writer(tracks: [MP4Fixtures.avc])
        var out: [UInt8] = [0xEE]
        #expect(throws: error) { try writer.writeFragment(samples, into: &out) }
        #expect(out == [0xEE] && writer.nextSequenceNumber == 1)
    }

    @Test func tracksNeedDistinctNonZeroIDs() {
        #expect(throws: MediaFormatError.invalid(structure: "moov", reason: "two tracks share a track_ID")) {
            try FragmentedMP4Writer(tracks: [MP4Fixtures.aac(id: 1), MP4Fixtures.avc])
        }
        #expect(throws: MediaFormatError.invalid(structure: "moov", reason: "no track")) { try FragmentedMP4Writer(tracks: []) }
        #expect(throws: MediaFormatError.invalid(structure: "tkhd", reason: "track_ID 0")) {
            try MP4Track(id: 0, codec: MP4Fixtures.avc.codec)
        }
    }

    @Test func avcConfigurationWithoutSPSCannotSizeTheTrack() throws {
        var record = try AVCDecoderConfigurationRecord(parsing: FLVFixtures.ffmpegAVCDecoderConfiguration)
        record.sequenceParameterSets = []
        #expect(throws: MediaFormatError.invalid(structure: "avcC", reason: "no SPS to take the picture size from")) {
            try MP4Track(id: 1, codec: .avc(record))
        }
    }

    @Test func aacFrameDurationFollowsTheAudioSpecificConfig() throws {
        #expect(MP4Fixtures.aac().constantSampleDuration == 1024)
        // Explicit backward-compatible SBR: 24 kHz core, 48 kHz output, so 2048 at the output rate.
        let heAAC = try MP4Track(id: 1, codec: .aac(try AudioSpecificConfig(parsing: AACFixtures.bytes("131056e598"))))
        #expect(heAAC.timescale == 48_000 && heAAC.constantSampleDuration == 2048)
        // AAC-ELD with 480-sample frames.
        let eld = try MP4Track(id: 1, codec: .aac(try AudioSpecificConfig(parsing: AACFixtures.bytes("f8e85000"))))
        #expect(eld.constantSampleDuration == 480)
        #expect(MP4Fixtures.opus().constantSampleDuration == nil && MP4Fixtures.avc.constantSampleDuration == nil)
    }
}

extension Int32 {
    var asInt: Int { Int(self) }
}
