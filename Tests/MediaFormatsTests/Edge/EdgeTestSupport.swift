@testable import MediaFormats

/// FLV tag streams made from the codec fixtures, and the two converters run over them.
enum EdgeTestSupport {
    typealias S = TSTestSupport

    enum Video { case h264, hevc }
    enum Audio { case aac, opus }

    /// 4-byte length-prefixed NAL units.
    static func avcc(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for nalUnit in nalUnits {
            out.appendUInt32(UInt32(nalUnit.count))
            out += nalUnit
        }
        return out
    }

    static var avcC: [UInt8] {
        get throws {
            try AVCDecoderConfigurationRecord(sequenceParameterSets: [S.sps], pictureParameterSets: [S.pps],
                                              nalUnitLengthSize: 4).serialized()
        }
    }

    static var hvcC: [UInt8] {
        get throws {
            let main = HEVCFixtures.main
            return try HEVCDecoderConfigurationRecord(
                videoParameterSets: [main.vps], sequenceParameterSets: [main.sps], pictureParameterSets: [main.pps],
                nalUnitLengthSize: 4).serialized()
        }
    }

    static let opusHead = OpusIDHeader(channelCount: 2, preSkip: 0, inputSampleRate: 48000)

    static func videoTag(_ video: Video, _ packetType: FLVVideoPacketType, keyframe: Bool, timestamp: Int64,
                         compositionTime: Int32 = 0, payload: [UInt8]) throws -> FLVStreamTag {
        let codec: FLVVideoCodec = video == .h264 ? .legacy(.avc) : .fourCC(.hvc1)
        let data = try FLVVideoData(frameType: keyframe ? .keyFrame : .interFrame, packetType: packetType,
                                    tracks: [FLVVideoTrack(codec: codec, compositionTime: compositionTime, payload: payload[...])])
        return FLVStreamTag(type: .video, timestamp: timestamp, data: try data.serialized())
    }

    static func audioTag(_ audio: Audio, _ packetType: FLVAudioPacketType, timestamp: Int64, payload: [UInt8]) throws -> FLVStreamTag {
        var data: [UInt8] = []
        if audio == .aac {
            FLVAudioTagHeader(aacPacketType: packetType == .sequenceStart ? .sequenceHeader : .raw).write(into: &data)
            data += payload
        } else {
            data = try FLVAudioData(packetType: packetType, fourCC: .opus, payload: payload[...]).serialized()
        }
        return FLVStreamTag(type: .audio, timestamp: timestamp, data: data)
    }

    /// A stream of `frames` video frames (25 fps, a keyframe every 10, B-frame-like composition times) and the audio
    /// frames of the same span, interleaved by time, sequence headers first.
    static func stream(video: Video?, audio: Audio?, frames: Int = 30, start: Int64 = 0) throws -> [FLVStreamTag] {
        var tags: [FLVStreamTag] = []
        if let video {
            let record = video == .h264 ? try avcC : try hvcC
            tags.append(try videoTag(video, .sequenceStart, keyframe: true, timestamp: start, payload: record))
        }
        switch audio {
        case .aac?: tags.append(try audioTag(.aac, .sequenceStart, timestamp: start, payload: S.aacConfig.bytes))
        case .opus?: tags.append(try audioTag(.opus, .sequenceStart, timestamp: start, payload: try opusHead.serialized()))
        case nil: break
        }
        var media: [FLVStreamTag] = []
        if let video {
            for index in 0..<frames {
                let keyframe = index % 10 == 0
                let slice: [UInt8]
                switch video {
                case .h264: slice = keyframe ? H264Fixtures.closedGOPSlices[0] + [UInt8](repeating: 0x5A, count: 700)
                    : H264Fixtures.closedGOPSlices[1] + [UInt8](repeating: 0x33, count: 40 + index * 7)
                case .hevc: slice = keyframe ? S.hevcIDRSlice : S.hevcTrailSlice + [UInt8](repeating: 0x66, count: index)
                }
                media.append(try videoTag(video, .codedFrames, keyframe: keyframe, timestamp: start + Int64(index) * 40,
                                          compositionTime: [80, 120, 40][index % 3], payload: avcc([slice])))
            }
        }
        if let audio {
            // AAC at 48 kHz: 1024 samples are 21.33 ms; Opus packets of 20 ms.
            let count = audio == .aac ? frames * 40 * 48 / 1024 : frames * 2
            for index in 0..<count {
                let timestamp = start + (audio == .aac ? Int64(index) * 1024 / 48 : Int64(index) * 20)
                let payload = audio == .aac ? (0..<(90 + index % 50)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
                    : S.opusPacket(60 + index % 30, fill: UInt8(truncatingIfNeeded: index))
                media.append(try audioTag(audio, .codedFrames, timestamp: timestamp, payload: payload))
            }
        }
        // Stable: video before audio at equal times, as a publisher interleaves them.
        return tags + media.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }

    /// The TS bytes of `tags` (datagrams joined).
    static func ts(_ tags: [FLVStreamTag], expectsVideo: Bool, expectsAudio: Bool,
                   startTicks: Int64 = FLVToTSConverter.defaultStartTicks) throws -> (bytes: [UInt8], converter: FLVToTSConverter) {
        var converter = FLVToTSConverter(expectsVideo: expectsVideo, expectsAudio: expectsAudio, startTicks: startTicks)
        var datagrams: [[UInt8]] = []
        for tag in tags { datagrams += try converter.feed(tag) }
        datagrams += converter.flush()
        return (datagrams.flatMap { $0 }, converter)
    }

    /// The events of `bytes` fed in pieces of `chunk` bytes (0: all at once), then flushed.
    static func flv(_ bytes: [UInt8], chunk: Int = 0) -> (events: [TSToFLVEvent], converter: TSToFLVConverter) {
        var converter = TSToFLVConverter()
        var events: [TSToFLVEvent] = []
        if chunk == 0 {
            events = converter.feed(bytes)
        } else {
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                events += converter.feed(bytes[start..<min(start + chunk, bytes.count)])
            }
        }
        events += converter.flush()
        return (events, converter)
    }

    static func tags(_ events: [TSToFLVEvent]) -> [FLVStreamTag] {
        events.compactMap { if case let .tag(tag) = $0 { tag } else { nil } }
    }

    static func tags(_ tags: [FLVStreamTag], _ type: FLVTagType) -> [FLVStreamTag] { tags.filter { $0.type == type } }
}
