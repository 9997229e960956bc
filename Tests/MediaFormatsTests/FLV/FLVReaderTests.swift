import SluiceTestSupport
import Testing
@testable import MediaFormats

@Suite struct FLVReaderTests {
    /// Reads every tag `reader` can give now.
    private func drain(_ reader: inout FLVReader) throws -> [FLVTag] {
        var tags: [FLVTag] = []
        while let tag = try reader.nextTag() { tags.append(tag) }
        return tags
    }

    /// A stream written by FLVWriter: metadata, both sequence headers, then media with extended timestamps
    /// and negative composition times. Returns the bytes and the payloads in tag order.
    private func writtenStream() throws -> (bytes: [UInt8], payloads: [[UInt8]]) {
        let writer = FLVWriter()
        var out: [UInt8] = []
        var payloads: [[UInt8]] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: true, into: &out)
        try writer.writeMetadata(FLVMetadata(duration: 3, width: 640, height: 360, encoder: "Sluice"), into: &out)
        payloads.append([])
        try writer.writeVideo(
            timestamp: 0, compositionTime: 0, isKeyframe: true, packetType: .sequenceHeader,
            payload: FLVFixtures.ffmpegAVCDecoderConfiguration, into: &out)
        payloads.append(FLVFixtures.ffmpegAVCDecoderConfiguration)
        try writer.writeAudio(
            timestamp: 0, aacPacketType: .sequenceHeader, payload: FLVFixtures.ffmpegAudioSpecificConfig, into: &out)
        payloads.append(FLVFixtures.ffmpegAudioSpecificConfig)
        let timestamps: [Int64] = [0, 40, 80, (1 << 24) - 1, 1 << 24, (1 << 24) + 40, Int64(Int32.max)]
        for (index, timestamp) in timestamps.enumerated() {
            let video = [UInt8](repeating: UInt8(index), count: 3 + index * 11)
            try writer.writeVideo(
                timestamp: timestamp, compositionTime: index % 2 == 0 ? 80 : -40, isKeyframe: index == 0,
                packetType: .nalu, payload: video, into: &out)
            payloads.append(video)
            let audio = [UInt8](repeating: 0xA0 | UInt8(index), count: index + 1)
            try writer.writeAudio(timestamp: timestamp, aacPacketType: .raw, payload: audio, into: &out)
            payloads.append(audio)
        }
        try writer.writeVideo(
            timestamp: Int64(Int32.max), compositionTime: 0, isKeyframe: true, packetType: .endOfSequence,
            payload: [], into: &out)
        payloads.append([])
        return (out, payloads)
    }

    @Test func readsTheFFmpegPrefix() throws {
        var reader = FLVReader()
        reader.append(FLVFixtures.ffmpegPrefix)
        let tags = try drain(&reader)
        #expect(reader.header == FLVHeader(hasAudio: true, hasVideo: true))
        #expect(tags.map(\.offset) == [13, 321, 387])
        #expect(tags.map(\.header.tagType) == [.scriptData, .video, .audio])
        #expect(tags.map(\.header.dataSize) == [293, 51, 7])
        #expect(reader.bufferedByteCount == 0)
        #expect(reader.offset == FLVFixtures.ffmpegPrefix.count)

        let script = try tags[0].scriptData()
        #expect(script.name == "onMetaData")
        #expect(script.value == FLVFixtures.ffmpegMetadata.amf0Value)
        #expect(try tags[1].videoTagHeader()
            == FLVVideoTagHeader(frameType: .keyFrame, avcPacketType: .sequenceHeader, compositionTime: 0))
        #expect(Array(try tags[1].payload()) == FLVFixtures.ffmpegAVCDecoderConfiguration)
        #expect(try tags[2].audioTagHeader() == FLVAudioTagHeader(aacPacketType: .sequenceHeader))
        let config = try AudioSpecificConfig(parsing: try tags[2].payload())
        #expect(config.objectType == 2 && config.samplingFrequency == 44100 && config.channelConfiguration == 1)
    }

    @Test func helpersRefuseTheWrongTagType() throws {
        var reader = FLVReader()
        reader.append(FLVFixtures.ffmpegPrefix)
        let tags = try drain(&reader)
        #expect(throws: MediaFormatError.invalid(structure: "FLV tag", reason: "tag at offset 13 is scriptData, not video")) {
            try tags[0].videoTagHeader()
        }
        #expect(throws: MediaFormatError.self) { try tags[1].audioTagHeader() }
        #expect(throws: MediaFormatError.self) { try tags[2].scriptData() }
    }

    @Test func writerToReaderRoundTripAllAtOnceAndByteByByte() throws {
        let (bytes, payloads) = try writtenStream()
        var whole = FLVReader()
        whole.append(bytes)
        let allAtOnce = try drain(&whole)
        #expect(allAtOnce.count == payloads.count)
        #expect(whole.bufferedByteCount == 0)

        var byteByByte = FLVReader()
        var fed: [FLVTag] = []
        for byte in bytes {
            byteByByte.append(CollectionOfOne(byte))
            fed += try drain(&byteByByte)
        }
        #expect(fed == allAtOnce)

        var generator = SeededGenerator(seed: 0xC4A)
        var chunked = FLVReader()
        var chunkedTags: [FLVTag] = []
        var position = 0
        while position < bytes.count {
            let end = min(bytes.count, position + Int.random(in: 1...300, using: &generator))
            chunked.append(bytes[position..<end])
            chunkedTags += try drain(&chunked)
            position = end
        }
        #expect(chunkedTags == allAtOnce)

        for (tag, payload) in zip(allAtOnce.dropFirst(), payloads.dropFirst()) {
            #expect(Array(try tag.payload()) == payload)
        }
        #expect(try allAtOnce[0].scriptData().value["encoder"] == .string("Sluice"))
        let videoTags = allAtOnce.filter { $0.header.tagType == .video }
        let expectedTimestamps: [UInt32] = [0, 0, 40, 80, 0xFF_FFFF, 0x100_0000, 0x100_0028, 0x7FFF_FFFF, 0x7FFF_FFFF]
        #expect(videoTags.map(\.header.timestamp) == expectedTimestamps)
        let expectedCompositionTimes: [Int32] = [0, 80, -40, 80, -40, 80, -40, 80, 0]
        #expect(try videoTags.map { try $0.videoTagHeader().compositionTime } == expectedCompositionTimes)
        #expect(try videoTags.last?.videoTagHeader().avcPacketType == .endOfSequence)
    }

    @Test("a timeline across 2^31 and 2^32 ms reads back as 32 wrapped bits and unwraps to the written times")
    func timestampsAcrossTheWrap() throws {
        let writer = FLVWriter()
        var out: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: false, into: &out)
        let written: [Int64] = [(1 << 31) - 23, (1 << 31), (1 << 31) + 23, (1 << 32) - 23, (1 << 32), (1 << 32) + 23, (1 << 33) + 5]
        for timestamp in written {
            try writer.writeAudio(timestamp: timestamp, aacPacketType: .raw, payload: [1], into: &out)
        }
        var reader = FLVReader()
        reader.append(out)
        let tags = try drain(&reader)
        #expect(tags.map(\.header.timestamp) == [0x7FFF_FFE9, 0x8000_0000, 0x8000_0017, 0xFFFF_FFE9, 0, 23, 5])
        var unwrapper = FLVTimestampUnwrapper()
        unwrapper.unwrap(UInt32((1 << 31) - 46))
        // Neighbouring tags are less than 2^31 ms apart except the last jump, which wraps twice.
        #expect(tags.dropLast().map { unwrapper.unwrap($0.header.timestamp) } == Array(written.dropLast()))
    }

    @Test func advancesOnlyPastWholeTags() throws {
        let (bytes, _) = try writtenStream()
        var reader = FLVReader()
        reader.append(bytes.prefix(12))
        #expect(try reader.nextTag() == nil)
        #expect(reader.header == nil)
        reader.append(bytes[12..<20])
        #expect(try reader.nextTag() == nil)
        #expect(reader.header != nil)
        #expect(reader.offset == 13)
        // The first tag lacks its PreviousTagSize until the last of its bytes arrives.
        var firstTagEnd = 13
        var lookahead = ByteReader(bytes[13...])
        firstTagEnd += 11 + (try FLVTagHeader(parsing: &lookahead)).dataSize + 4
        reader.append(bytes[20..<(firstTagEnd - 1)])
        #expect(try reader.nextTag() == nil)
        #expect(reader.offset == 13)
        reader.append(bytes[(firstTagEnd - 1)..<firstTagEnd])
        #expect(try reader.nextTag()?.header.tagType == .scriptData)
        #expect(reader.offset == firstTagEnd)
    }

    @Test func truncationAtEveryOffsetGivesTheWholeTagsOnly() throws {
        let (bytes, payloads) = try writtenStream()
        // Tag end offsets (after PreviousTagSize), to know how many tags each prefix holds.
        var ends: [Int] = []
        var position = 13
        while position < bytes.count {
            var header = ByteReader(bytes[position...])
            position += 11 + (try FLVTagHeader(parsing: &header)).dataSize + 4
            ends.append(position)
        }
        #expect(ends.count == payloads.count)
        for length in 0...bytes.count {
            var reader = FLVReader()
            reader.append(bytes.prefix(length))
            let tags = try drain(&reader)
            #expect(tags.count == ends.filter { $0 <= length }.count, "length \(length)")
        }
    }

    @Test func corruptedPreviousTagSizeIsDetectedWithItsOffset() throws {
        var (bytes, _) = try writtenStream()
        var ends: [Int] = []
        var position = 13
        while ends.count < 3 {
            var header = ByteReader(bytes[position...])
            position += 11 + (try FLVTagHeader(parsing: &header)).dataSize + 4
            ends.append(position)
        }
        // Corrupt the PreviousTagSize after the third tag (the AAC sequence header, 11 + 7 bytes).
        bytes[ends[2] - 1] ^= 0x01
        var reader = FLVReader()
        reader.append(bytes)
        #expect(try reader.nextTag() != nil)
        #expect(try reader.nextTag() != nil)
        #expect(throws: MediaFormatError.invalid(
            structure: "FLV PreviousTagSize",
            reason: "at offset \(ends[2] - 4) it is 19, but the tag before it (offset \(ends[1])) is 11 + 7 = 18 bytes")) {
            try reader.nextTag()
        }
        #expect(reader.offset == ends[1])
    }

    @Test func badFileHeaders() throws {
        var wrongSignature = FLVReader()
        wrongSignature.append([0x46, 0x4C, 0x58])
        #expect(throws: MediaFormatError.invalid(structure: "FLV header", reason: "signature is not \"FLV\"")) {
            try wrongSignature.nextTag()
        }
        var badFirstSize = FLVReader()
        badFirstSize.append(AACFixtures.bytes("464c5601 05 00000009 00000001"))
        #expect(throws: MediaFormatError.invalid(
            structure: "FLV PreviousTagSize", reason: "PreviousTagSize0 at offset 9 is 1, not 0")) {
            try badFirstSize.nextTag()
        }
        // A DataOffset past 9 skips the extra header bytes.
        var longHeader = FLVReader()
        longHeader.append(AACFixtures.bytes("464c5601 04 0000000b eeee 00000000"))
        longHeader.append(AACFixtures.bytes("08 000002 000005 00 000000 af01 0000000d"))
        let tag = try #require(try longHeader.nextTag())
        #expect(tag.offset == 15)
        #expect(tag.header.timestamp == 5)
        #expect(tag.data == [0xAF, 0x01])
    }

    @Test func unknownTagTypeNamesTheOffset() throws {
        var reader = FLVReader()
        reader.append(AACFixtures.bytes("464c5601 05 00000009 00000000 0f 000000 000000 00 000000 0000000b"))
        #expect(throws: MediaFormatError.unsupported(structure: "FLV tag", reason: "TagType 15 at offset 13")) {
            try reader.nextTag()
        }
    }

    @Test func longStreamsCompactTheBufferAndKeepOffsets() throws {
        let writer = FLVWriter()
        var reader = FLVReader()
        var header: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: false, into: &header)
        reader.append(header)
        var expectedOffset = 13
        for index in 0..<200 {
            var tag: [UInt8] = []
            try writer.writeAudio(
                timestamp: Int64(index) * 23, aacPacketType: .raw, payload: [UInt8](repeating: 7, count: 1000),
                into: &tag)
            reader.append(tag)
            let read = try #require(try reader.nextTag())
            #expect(read.offset == expectedOffset)
            #expect(read.header.timestamp == UInt32(index * 23))
            expectedOffset += tag.count
        }
        #expect(reader.offset == expectedOffset)
        #expect(reader.bufferedByteCount == 0)
    }

    @Test func seededRandomInputsNeverCrash() {
        var generator = SeededGenerator(seed: 0xF1F0)
        let prefix = AACFixtures.bytes("464c5601 05 00000009 00000000")
        var tagsRead = 0
        for iteration in 0..<2000 {
            var body = generator.bytes(Int.random(in: 0...80, using: &generator))
            // Make some inputs plausible tags: a real type and a small DataSize with a matching size after.
            if iteration % 2 == 0, body.count >= 20 {
                body[0] = [8, 9, 18][iteration % 3]
                body[1] = 0
                body[2] = 0
                body[3] = UInt8(body.count - 15)
                body.replaceSubrange((body.count - 4)..<body.count, with: [0, 0, 0, UInt8(body.count - 4)])
            }
            var reader = FLVReader()
            reader.append(iteration % 5 == 0 ? body : prefix + body)
            do {
                while let tag = try reader.nextTag() {
                    tagsRead += 1
                    #expect(tag.data.count == tag.header.dataSize)
                    // The helpers must throw a MediaFormatError or parse on anything, never crash.
                    do { _ = try tag.payload() } catch { #expect(error is MediaFormatError) }
                    if tag.header.tagType == .scriptData {
                        do { _ = try tag.scriptData() } catch { #expect(error is MediaFormatError) }
                    }
                }
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        #expect(tagsRead > 100)
    }
}
