import MediaFormats
import MediaJob
import Testing
@testable import MediaSinks

/// How the relay engine's file outputs read a live stream's FLV tags as packets: described first, then each frame
/// with its times in microseconds and a changed configuration on the frame it applies from; codecs the file formats
/// cannot copy refused by name.
@Suite("LivePacketReader")
struct LivePacketReaderTests {
    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    /// A real 320×240 H.264 High profile SPS and its PPS (the closed-GOP fixture of the H.264 tests).
    static let sps = hex("6764000dacd94141fb0110000003001000000303c0f1429960")
    static let pps = hex("68ebe3cb22c0")

    static func avcC(pps: [UInt8] = pps) throws -> [UInt8] {
        try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps], pictureParameterSets: [pps]).serialized()
    }

    static func videoHeader(_ record: [UInt8], at time: Int64 = 0) -> FLVStreamTag {
        FLVStreamTag(type: .video, timestamp: time, data: [0x17, 0, 0, 0, 0] + record)
    }

    /// An AVC frame with a 3-byte composition time of `composition` ms.
    static func videoFrame(at time: Int64, keyframe: Bool, composition: UInt8 = 0) -> FLVStreamTag {
        FLVStreamTag(type: .video, timestamp: time,
                      data: [keyframe ? 0x17 : 0x27, 1, 0, 0, composition, 0, 0, 0, 2, 0x65, 0x88])
    }

    /// AAC LC, 44.1 kHz, stereo.
    static let aacHeader = FLVStreamTag(type: .audio, timestamp: 0, data: [0xAF, 0, 0x12, 0x10])
    static func audioFrame(at time: Int64) -> FLVStreamTag {
        FLVStreamTag(type: .audio, timestamp: time, data: [0xAF, 1, 0x21, 0x10])
    }

    static func read(_ tags: [FLVStreamTag], video: Bool = true, audio: Bool = true) throws -> (LivePacketReader, [MediaPacket]) {
        var reader = LivePacketReader(usesVideo: video, usesAudio: audio)
        var packets: [MediaPacket] = []
        for tag in tags { packets += try reader.take(tag) }
        packets += try reader.finish()
        return (reader, packets)
    }

    @Test("held until both configurations are in, then every frame in order, times in µs, composition added to PTS")
    func describesThenReads() throws {
        var reader = LivePacketReader(usesVideo: true, usesAudio: true)
        #expect(try reader.take(Self.videoHeader(try Self.avcC())).isEmpty)
        #expect(try reader.take(Self.videoFrame(at: 0, keyframe: true, composition: 66)).isEmpty)
        #expect(reader.streams == nil)
        let released = try reader.take(Self.aacHeader)
        let streams = try #require(reader.streams)
        #expect(streams.video?.width == 320 && streams.video?.height == 240)
        #expect(streams.audio?.sampleRate == 44_100 && streams.audio?.channels == 2)
        guard case .avcc = streams.video?.bitstream else { Issue.record("not AVCC: \(String(describing: streams.video))"); return }
        #expect(released.map(\.kind) == [.video])
        #expect(released.first?.dts == 0 && released.first?.pts == 66_000 && released.first?.isKeyframe == true)
        #expect(released.first?.data == [0, 0, 0, 2, 0x65, 0x88])
        let audio = try reader.take(Self.audioFrame(at: 23))
        #expect(audio.count == 1 && audio[0].kind == .audio && audio[0].dts == 23_000 && audio[0].data == [0x21, 0x10])
        let frame = try reader.take(Self.videoFrame(at: 33, keyframe: false))
        #expect(frame.count == 1 && frame[0].dts == 33_000 && !frame[0].isKeyframe)
    }

    @Test("a stream without audio is described 3 s of media after its first frame, and a short one at its end")
    func probeTimeAndEnd() throws {
        var reader = LivePacketReader(usesVideo: true, usesAudio: true)
        _ = try reader.take(Self.videoHeader(try Self.avcC()))
        var released: [MediaPacket] = []
        // 33 ms apart: frame 90 is at 2,970 ms, still within the probe; frame 91, at 3,003 ms, ends it.
        for frame in 0...90 { released += try reader.take(Self.videoFrame(at: Int64(frame) * 33, keyframe: frame % 30 == 0)) }
        #expect(reader.streams == nil && released.isEmpty)
        released += try reader.take(Self.videoFrame(at: 91 * 33, keyframe: false))
        #expect(reader.streams?.audio == nil && reader.streams?.video != nil)
        #expect(released.count == 92 && released.map(\.dts) == (0...91).map { Int64($0) * 33_000 })
        let (short, packets) = try Self.read([Self.videoHeader(try Self.avcC()), Self.videoFrame(at: 0, keyframe: true)])
        #expect(short.streams?.video != nil && packets.count == 1)
    }

    @Test("a new avcC mid-stream is announced on the next frame, once")
    func configurationChange() throws {
        let changedPPS = Self.hex("68ebe3cb22c1")
        let (_, packets) = try Self.read([Self.videoHeader(try Self.avcC()), Self.videoFrame(at: 0, keyframe: true),
                                          Self.videoHeader(try Self.avcC(pps: changedPPS), at: 40),
                                          Self.videoFrame(at: 40, keyframe: true), Self.videoFrame(at: 80, keyframe: false)], audio: false)
        #expect(packets.count == 3)
        #expect(packets[0].videoConfiguration == nil && packets[2].videoConfiguration == nil)
        guard case let .avcc(record)? = packets[1].videoConfiguration?.bitstream else {
            Issue.record("the change was not announced: \(packets.map(\.videoConfiguration))")
            return
        }
        #expect(record.pictureParameterSets == [changedPPS])
    }

    @Test("a codec the file formats cannot copy is refused by name: H.266 video")
    func refusals() throws {
        let vvc = try FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: .vvc1, payload: [1, 2, 3][...]).serialized()
        do {
            _ = try Self.read([FLVStreamTag(type: .video, timestamp: 0, data: vvc)], audio: false)
            Issue.record("H.266 was taken")
        } catch {
            #expect("\(error)".contains("H.266"), "\(error)")
        }
    }

    @Test("Opus is copied with its OpusHead: 48 kHz, its channels, its pre-skip as the priming; packets as they came")
    func opusTakesItsHead() throws {
        // FFmpeg's OpusHead for libopus stereo: version 1, 2 channels, pre-skip 312, 48 kHz input, gain 0, family 0.
        let opusHead: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let start = try FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: opusHead[...]).serialized()
        let frame: [UInt8] = [0xFC, 0xFF, 0xFE]
        let packet = try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: frame[...]).serialized()
        let (reader, packets) = try Self.read([FLVStreamTag(type: .audio, timestamp: 0, data: start),
                                               FLVStreamTag(type: .audio, timestamp: 20, data: packet)], video: false)
        let audio = try #require(reader.streams?.audio)
        #expect(audio.bitstream == .opus(try OpusIDHeader(parsing: opusHead)))
        #expect(audio.sampleRate == 48_000 && audio.channels == 2 && audio.priming == 312 && audio.timescale == 48_000)
        #expect(audio.audioSpecificConfig == nil && audio.codecName == "Opus")
        #expect(packets.map(\.data) == [frame] && packets.map(\.pts) == [20_000])
    }

    /// A VP9 key frame's uncompressed header (640x360, profile 0, 8 bits), as the RTP tests' fixture.
    static let vp9Key = hex("824983420027f016760a38241c184a10") + Array(repeating: 0x77, count: 40)

    @Test("VP9 is copied with its vpcC, at the size its first key frame says (vpcC says none); frames pass as they came")
    func vp9TakesTheKeyFramesSize() throws {
        let vpcC: [UInt8] = [1, 0, 0, 0, 0, 0x1F, 0x80, 0x01, 0x01, 0x01, 0, 0]
        let header = try FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: .vp09, payload: vpcC[...]).serialized()
        let key = try FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, fourCC: .vp09, payload: Self.vp9Key[...]).serialized()
        let inter: [UInt8] = [0x86, 0x00, 0x40, 0x92, 0x9C]
        let next = try FLVVideoData(frameType: .interFrame, packetType: .codedFramesX, fourCC: .vp09, payload: inter[...]).serialized()
        let (reader, packets) = try Self.read([FLVStreamTag(type: .video, timestamp: 0, data: header),
                                               FLVStreamTag(type: .video, timestamp: 0, data: key),
                                               FLVStreamTag(type: .video, timestamp: 33, data: next)], audio: false)
        let video = try #require(reader.streams?.video)
        #expect(video.bitstream == .vp9(try VPCodecConfigurationRecord(parsing: vpcC)))
        #expect(video.width == 640 && video.height == 360)
        #expect(packets.map(\.data) == [Self.vp9Key, inter] && packets.map(\.isKeyframe) == [true, false])
        #expect(packets.map(\.dts) == [0, 33_000])
    }

    /// A VP8 key frame: its frame tag (key frame, version 0, shown), start code, 320x240.
    static let vp8Key: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00] + Array(repeating: 0x55, count: 30)

    @Test("VP8 is copied with its vpcC as VP9 is, at the size its first key frame says")
    func vp8TakesTheKeyFramesSize() throws {
        let vpcC: [UInt8] = [1, 0, 0, 0, 0, 0, 0x80, 0x01, 0x01, 0x01, 0, 0]
        let header = try FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: .vp08, payload: vpcC[...]).serialized()
        let key = try FLVVideoData(frameType: .keyFrame, packetType: .codedFramesX, fourCC: .vp08, payload: Self.vp8Key[...]).serialized()
        let inter: [UInt8] = [0x11, 0x01, 0x00, 0x42, 0x42]
        let next = try FLVVideoData(frameType: .interFrame, packetType: .codedFramesX, fourCC: .vp08, payload: inter[...]).serialized()
        let (reader, packets) = try Self.read([FLVStreamTag(type: .video, timestamp: 0, data: header),
                                               FLVStreamTag(type: .video, timestamp: 0, data: key),
                                               FLVStreamTag(type: .video, timestamp: 33, data: next)], audio: false)
        let video = try #require(reader.streams?.video)
        #expect(video.bitstream == .vp8(try VPCodecConfigurationRecord(parsing: vpcC)))
        #expect(video.width == 320 && video.height == 240)
        #expect(packets.map(\.data) == [Self.vp8Key, inter] && packets.map(\.isKeyframe) == [true, false])
    }
}
