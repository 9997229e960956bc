import Testing
@testable import MediaFormats

@Suite struct FLVWriterTests {
    let writer = FLVWriter()

    @Test func reproducesTheFFmpegFilePrefixByteForByte() throws {
        var out: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: true, into: &out)
        try writer.writeMetadata(FLVFixtures.ffmpegMetadata, into: &out)
        try writer.writeVideo(
            timestamp: 0, compositionTime: 0, isKeyframe: true, packetType: .sequenceHeader,
            payload: FLVFixtures.ffmpegAVCDecoderConfiguration, into: &out)
        try writer.writeAudio(
            timestamp: 0, aacPacketType: .sequenceHeader, payload: FLVFixtures.ffmpegAudioSpecificConfig, into: &out)
        #expect(out == FLVFixtures.ffmpegPrefix)
    }

    @Test func scriptDataOffsetsPointAtTheDoublesAndCanBePatched() throws {
        var out: [UInt8] = [0xEE, 0xEE]
        let offsets = try writer.writeMetadata(FLVFixtures.ffmpegMetadata, into: &out)
        #expect(Set(offsets.keys) == [
            "duration", "width", "height", "videodatarate", "framerate", "videocodecid", "audiodatarate",
            "audiosamplerate", "audiosamplesize", "audiocodecid", "filesize",
        ])
        func double(at offset: Int) throws -> Double {
            var reader = ByteReader(out[(2 + offset)...])
            return try reader.readFloat64()
        }
        #expect(try double(at: #require(offsets["filesize"])) == 46634)
        #expect(try double(at: #require(offsets["duration"])) == 1.08)
        // The number marker sits right before each double.
        #expect(out[2 + (try #require(offsets["width"])) - 1] == AMF0Marker.number)

        // Patch duration in place, as a seekable file output does at the end, and read it back.
        let durationOffset = 2 + (try #require(offsets["duration"]))
        var patched: [UInt8] = []
        patched.appendFloat64(12.5)
        out.replaceSubrange(durationOffset..<(durationOffset + 8), with: patched)
        var reader = FLVReader()
        var file: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: true, into: &file)
        reader.append(file + out.dropFirst(2))
        let tag = try #require(try reader.nextTag())
        #expect(try tag.scriptData().value["duration"] == .number(12.5))
    }

    @Test func offsetsOfANonArrayValueAreEmpty() throws {
        var out: [UInt8] = []
        #expect(try writer.writeScriptData(name: "onCuePoint", value: .string("x"), into: &out) == [:])
    }

    @Test func extendedTimestamps() throws {
        let cases: [(Int64, [UInt8])] = [
            (0, [0x00, 0x00, 0x00, 0x00]),
            (0xFF_FFFF, [0xFF, 0xFF, 0xFF, 0x00]),
            (1 << 24, [0x00, 0x00, 0x00, 0x01]),
            (16_777_223, [0x00, 0x00, 0x07, 0x01]),
            (Int64(Int32.max), [0xFF, 0xFF, 0xFF, 0x7F]),
            (1 << 31, [0x00, 0x00, 0x00, 0x80]),
            ((1 << 32) - 1, [0xFF, 0xFF, 0xFF, 0xFF]),
            // Past 2^32 ms the 32 bits wrap, as RTMP's do (RTMP 1.0 §5.3.1.1).
            (1 << 32, [0x00, 0x00, 0x00, 0x00]),
            ((1 << 32) + 16_777_223, [0x00, 0x00, 0x07, 0x01]),
            (Int64.max, [0xFF, 0xFF, 0xFF, 0xFF]),
        ]
        for (timestamp, expected) in cases {
            var out: [UInt8] = []
            try writer.writeVideo(
                timestamp: timestamp, compositionTime: 0, isKeyframe: false, packetType: .nalu, payload: [1, 2],
                into: &out)
            #expect(Array(out[4..<8]) == expected, "timestamp \(timestamp)")
            var audio: [UInt8] = []
            try writer.writeAudio(timestamp: timestamp, aacPacketType: .raw, payload: [1], into: &audio)
            #expect(Array(audio[4..<8]) == expected, "timestamp \(timestamp)")
        }
    }

    @Test("a tag from an RTMP message's body: header, data and PreviousTagSize; the time's top byte extended; a body past 2^24 bytes throws and appends nothing")
    func tagFromAMessageBody() throws {
        var out: [UInt8] = [0xEE]
        try writer.writeTag(.video, timestamp: 0x0102_0304, data: [0x17, 0x01, 0, 0, 0][...], into: &out)
        #expect(out == [0xEE, 9, 0, 0, 5, 0x02, 0x03, 0x04, 0x01, 0, 0, 0, 0x17, 0x01, 0, 0, 0, 0, 0, 0, 16])
        var reader = ByteReader(out[1...])
        let reread = try FLVTagHeader(parsing: &reader)
        #expect(reread.tagType == .video && reread.dataSize == 5 && reread.timestamp == 0x0102_0304)
        let tooBig = [UInt8](repeating: 0, count: 1 << 24)
        #expect(throws: MediaFormatError.self) { try writer.writeTag(.audio, timestamp: 0, data: tooBig[...], into: &out) }
        #expect(out.count == 21)
    }

    @Test func refusesNegativeTimestamps() {
        var out: [UInt8] = [0x42]
        #expect(throws: MediaFormatError.invalid(structure: "FLV tag", reason: "negative timestamp -9223372036854775808 ms")) {
            try writer.writeVideo(
                timestamp: .min, compositionTime: 0, isKeyframe: true, packetType: .nalu, payload: [], into: &out)
        }
        #expect(throws: MediaFormatError.invalid(structure: "FLV tag", reason: "negative timestamp -1 ms")) {
            try writer.writeAudio(timestamp: -1, aacPacketType: .raw, payload: [], into: &out)
        }
        #expect(out == [0x42])
    }

    @Test func compositionTimeIsSigned24Bits() throws {
        let cases: [(Int32, [UInt8])] = [
            (0, [0x00, 0x00, 0x00]),
            (80, [0x00, 0x00, 0x50]),
            (-1, [0xFF, 0xFF, 0xFF]),
            (-40, [0xFF, 0xFF, 0xD8]),
            (0x7F_FFFF, [0x7F, 0xFF, 0xFF]),
            (-0x80_0000, [0x80, 0x00, 0x00]),
        ]
        for (compositionTime, expected) in cases {
            var out: [UInt8] = []
            try writer.writeVideo(
                timestamp: 40, compositionTime: compositionTime, isKeyframe: false, packetType: .nalu, payload: [9],
                into: &out)
            #expect(Array(out[11..<16]) == [0x27, 0x01] + expected, "composition time \(compositionTime)")
        }
        for outside: Int32 in [0x80_0000, -0x80_0001, .max, .min] {
            var out: [UInt8] = []
            #expect(throws: MediaFormatError.self, "composition time \(outside)") {
                try writer.writeVideo(
                    timestamp: 0, compositionTime: outside, isKeyframe: false, packetType: .nalu, payload: [],
                    into: &out)
            }
            #expect(out.isEmpty)
        }
    }

    @Test func dataSizeLimit() throws {
        let largest = [UInt8](repeating: 0xAB, count: FLVLimits.maxTagDataSize - FLVLimits.avcVideoTagHeaderSize)
        var out: [UInt8] = []
        try writer.writeVideo(
            timestamp: 0, compositionTime: 0, isKeyframe: true, packetType: .nalu, payload: largest, into: &out)
        #expect(Array(out[1..<4]) == [0xFF, 0xFF, 0xFF])
        #expect(out.count == 11 + FLVLimits.maxTagDataSize + 4)
        #expect(Array(out.suffix(4)) == [0x01, 0x00, 0x00, 0x0A])  // 11 + 0xFFFFFF

        let tooLarge = largest + [0]
        var rejected: [UInt8] = []
        #expect(throws: MediaFormatError.limitExceeded(what: "FLV tag data size", value: 1 << 24, limit: 0xFF_FFFF)) {
            try writer.writeVideo(
                timestamp: 0, compositionTime: 0, isKeyframe: true, packetType: .nalu, payload: tooLarge,
                into: &rejected)
        }
        #expect(rejected.isEmpty)
        let audioTooLarge = [UInt8](repeating: 0, count: FLVLimits.maxTagDataSize - 1)
        #expect(throws: MediaFormatError.limitExceeded(what: "FLV tag data size", value: 1 << 24, limit: 0xFF_FFFF)) {
            try writer.writeAudio(timestamp: 0, aacPacketType: .raw, payload: audioTooLarge, into: &rejected)
        }
    }

    @Test func aacTagsUseTheFlagsTheSpecRequires() throws {
        var out: [UInt8] = []
        try writer.writeAudio(timestamp: 23, aacPacketType: .raw, payload: [0x21, 0x10], into: &out)
        // 08 | size 4 | ts 23 | ext 0 | stream 0 | 1010 11 1 1 (AAC, 44 kHz, 16-bit, stereo) | raw | payload | 15
        #expect(out == AACFixtures.bytes("08 000004 000017 00 000000 af 01 2110 0000000f"))
    }

    @Test func rawBufferAndArrayPayloadsWriteTheSameBytes() throws {
        let payload: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0]
        var fromArray: [UInt8] = []
        try writer.writeVideo(
            timestamp: 1000, compositionTime: 40, isKeyframe: false, packetType: .nalu, payload: payload,
            into: &fromArray)
        var fromBuffer: [UInt8] = []
        try payload.withUnsafeBytes { buffer in
            try writer.writeVideo(
                timestamp: 1000, compositionTime: 40, isKeyframe: false, packetType: .nalu, payload: buffer,
                into: &fromBuffer)
        }
        #expect(fromArray == fromBuffer)
        #expect(fromArray == AACFixtures.bytes("09 00000b 0003e8 00 000000 27 01 000028 00000002 09f0 00000016"))
    }

    @Test func everyTagIsFollowedByItsPreviousTagSize() throws {
        var out: [UInt8] = []
        writer.writeFileHeader(hasAudio: true, hasVideo: true, into: &out)
        try writer.writeMetadata(FLVMetadata(duration: 0, encoder: "Sluice"), into: &out)
        for index in 0..<50 {
            try writer.writeVideo(
                timestamp: Int64(index * 40), compositionTime: 80, isKeyframe: index % 25 == 0, packetType: .nalu,
                payload: [UInt8](repeating: UInt8(index), count: index * 7), into: &out)
            try writer.writeAudio(
                timestamp: Int64(index * 23), aacPacketType: .raw, payload: [UInt8](repeating: 1, count: index),
                into: &out)
        }
        #expect(Array(out[9..<13]) == [0, 0, 0, 0])
        var position = 13
        var tags = 0
        while position < out.count {
            var reader = ByteReader(out[position...])
            let header = try FLVTagHeader(parsing: &reader)
            try reader.skip(header.dataSize)
            #expect(Int(try reader.readUInt32()) == 11 + header.dataSize)
            position += 11 + header.dataSize + 4
            tags += 1
        }
        #expect(position == out.count)
        #expect(tags == 101)
    }

    @Test func metadataHoldsOnlyTheFieldsSetInAStableOrder() {
        let metadata = FLVMetadata(width: 1920, height: 1080, stereo: true, encoder: "Sluice", filesize: 0)
        #expect(metadata.amf0Value == .ecmaArray([
            AMF0Property("width", .number(1920)), AMF0Property("height", .number(1080)),
            AMF0Property("stereo", .boolean(true)), AMF0Property("encoder", .string("Sluice")),
            AMF0Property("filesize", .number(0)),
        ]))
        #expect(FLVMetadata().amf0Value == .ecmaArray([]))
    }
}
