import MediaFormats
import MediaJob
import Testing
@testable import MediaEngine
@testable import MediaSinks

/// The tags FLVMuxer writes for HEVC and AV1 (Enhanced RTMP v2, as FFmpeg 6.1+'s flvenc writes them), byte by byte.
@Suite("FLVMuxer, enhanced video")
struct FLVMuxerEnhancedTests {
    static let hvcC = HEVCDecoderConfigurationRecord(
        profileTierLevel: HEVCProfileTierLevel(profileSpace: 0, tierFlag: false, profileIdc: 1, profileCompatibilityFlags: 0x6000_0000,
                                               constraintIndicatorFlags: 0, levelIdc: 60),
        chromaFormatIdc: 1, bitDepthLuma: 8, bitDepthChroma: 8, numTemporalLayers: 1, temporalIdNested: true, arrays: [])
    static let av1C = AV1CodecConfigurationRecord(seqProfile: 0, seqLevelIdx0: 8, seqTier0: false, highBitdepth: false, twelveBit: false,
                                                  monochrome: false, chromaSubsamplingX: true, chromaSubsamplingY: true,
                                                  chromaSamplePosition: 0, configOBUs: [])

    /// The muxer's tags for a start and `packets` of a stream configured by `bitstream`.
    static func tags(_ bitstream: VideoBitstream, _ packets: [MediaPacket]) throws -> [FLVTag] {
        var muxer = FLVMuxer(video: VideoConfiguration(bitstream: bitstream, width: 320, height: 240, frameRate: 30), audio: nil)
        var bytes: [UInt8] = []
        FLVWriter().writeFileHeader(hasAudio: false, hasVideo: true, into: &bytes)
        _ = try muxer.writeStart(into: &bytes)
        for packet in packets { try muxer.write(packet, into: &bytes) }
        var reader = FLVReader()
        reader.append(bytes)
        var tags: [FLVTag] = []
        while let tag = try reader.nextTag() { tags.append(tag) }
        return tags
    }

    /// The same stream as messages (an RTMP publish's destination): one per tag, type, time and data as the file's.
    static func messages(_ bitstream: VideoBitstream, _ packets: [MediaPacket]) throws -> [FLVStreamTag] {
        var muxer = FLVMuxer(video: VideoConfiguration(bitstream: bitstream, width: 320, height: 240, frameRate: 30), audio: nil)
        var messages = FLVStreamTags()
        _ = try muxer.writeStart(into: &messages)
        for packet in packets { try muxer.write(packet, into: &messages) }
        return messages.messages
    }

    @Test("a publish gets each tag as a message, with the type, time and data a file gets, without FLV file bytes in between")
    func tagsAsMessages() throws {
        let avcC = try AVCDecoderConfigurationRecord(parsing: [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE0, 0x00])
        for bitstream in [VideoBitstream.hvcc(Self.hvcC), .av1(Self.av1C), .avcc(avcC)] {
            let packets = [Self.frame(pts: 66, dts: 0, key: true), Self.frame(pts: 33, dts: 33, key: false)]
            let file = try Self.tags(bitstream, packets)
            let messages = try Self.messages(bitstream, packets)
            #expect(messages.map(\.typeID) == file.map(\.header.tagType.rawValue))
            #expect(messages.map(\.timestamp) == file.map { Int64($0.header.timestamp) })
            #expect(messages.map(\.data) == file.map(\.data))
            #expect(messages.count == 4)
        }
    }

    static func frame(pts: Int64, dts: Int64, key: Bool) -> MediaPacket {
        MediaPacket(kind: .video, data: [0, 0, 0, 2, 0x26, 0x01], pts: pts * 1000, dts: dts * 1000, isKeyframe: key)
    }

    @Test("HEVC: onMetaData names hvc1 as a number, SequenceStart carries the hvcC, CodedFramesX at offset 0, CodedFrames with it")
    func hevc() throws {
        let tags = try Self.tags(.hvcc(Self.hvcC), [Self.frame(pts: 66, dts: 0, key: true), Self.frame(pts: 33, dts: 33, key: false)])
        #expect(tags.count == 4)
        #expect(try tags[0].scriptData().value["videocodecid"]?.numberValue == 1_752_589_105)
        let hvc1: [UInt8] = Array("hvc1".utf8)
        // 1 bit IsExHeader + 3 bits FrameType (1 key, 2 inter) + 4 bits PacketType (0 start, 1 CodedFrames, 3 CodedFramesX).
        #expect(tags[1].data == [0x90] + hvc1 + (try Self.hvcC.serialized()))
        #expect(tags[2].data == [0x91] + hvc1 + [0, 0, 66] + [0, 0, 0, 2, 0x26, 0x01])
        #expect(tags[3].data == [0xA3] + hvc1 + [0, 0, 0, 2, 0x26, 0x01])
        #expect(tags[3].header.timestamp == 33)
    }

    @Test("AV1: av01 in onMetaData and the SequenceStart; frames are CodedFramesX (AV1 carries no composition offset)")
    func av1() throws {
        let tags = try Self.tags(.av1(Self.av1C), [Self.frame(pts: 0, dts: 0, key: true), Self.frame(pts: 40, dts: 33, key: false)])
        #expect(try tags[0].scriptData().value["videocodecid"]?.numberValue == Double(FLVVideoFourCC.av01.rawValue))
        let av01: [UInt8] = Array("av01".utf8)
        #expect(tags[1].data == [0x90] + av01 + (try Self.av1C.serialized()))
        #expect(tags[2].data == [0x93] + av01 + [0, 0, 0, 2, 0x26, 0x01])
        #expect(tags[3].data == [0xA3] + av01 + [0, 0, 0, 2, 0x26, 0x01])
    }

    @Test("H.264 keeps the legacy tags: CodecID 7, AVCPacketType, composition time; videocodecid 7")
    func legacyAVC() throws {
        let avcC = try AVCDecoderConfigurationRecord(parsing: [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE0, 0x00])
        let tags = try Self.tags(.avcc(avcC), [Self.frame(pts: 66, dts: 0, key: true)])
        #expect(try tags[0].scriptData().value["videocodecid"]?.numberValue == 7)
        #expect(tags[1].data == [0x17, 0, 0, 0, 0] + (try avcC.serialized()))
        #expect(tags[2].data == [0x17, 1, 0, 0, 66, 0, 0, 0, 2, 0x26, 0x01])
    }
}
