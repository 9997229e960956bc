import Testing
@testable import MediaFormats

/// A camera's RTP, as an RTSP pull receives it, turned into FLV tags.
@Suite struct RTPToFLVConverterTests {
    typealias E = EdgeTestSupport
    typealias S = TSTestSupport

    static let idr = H264Fixtures.closedGOPSlices[0] + [UInt8](repeating: 0x5A, count: 300)
    static let slice = H264Fixtures.closedGOPSlices[1] + [UInt8](repeating: 0x33, count: 40)

    /// H.264 with the fixtures' parameter sets in the SDP, AAC at 48 kHz.
    static func formats(videoStart: UInt32? = nil, audioStart: UInt32? = nil) -> [RTPTrackFormat?] {
        [RTPTrackFormat(payloadType: 96, clockRate: 90000, codec: .h264(parameterSets: [S.sps, S.pps]), playStartRTPTime: videoStart),
         RTPTrackFormat(payloadType: 97, clockRate: 48000, codec: .aac(MPEG4GenericParameters(config: S.aacConfig)), playStartRTPTime: audioStart)]
    }

    /// One access unit's packets: a single NAL unit packet, or FU-A fragments of 100 octets when it is larger.
    static func videoPackets(_ nalUnit: [UInt8], sequence: inout UInt16, timestamp: UInt32) -> [[UInt8]] {
        let payloads = nalUnit.count <= 100 ? [nalUnit] : H264DepacketizerTests.fuA(nalUnit, size: 100)
        return payloads.enumerated().map { index, payload in
            defer { sequence &+= 1 }
            return RTPPacket(marker: index == payloads.count - 1, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp,
                             ssrc: 7, payload: payload[...]).serialized
        }
    }

    /// One AAC frame in an AAC-hbr packet (a 13-bit size and a 3-bit index).
    static func audioPacket(_ frame: [UInt8], sequence: UInt16, timestamp: UInt32) -> [UInt8] {
        let header = UInt16(frame.count) << 3
        let payload: [UInt8] = [0x00, 0x10, UInt8(header >> 8), UInt8(header & 0xFF)] + frame
        return RTPPacket(marker: true, payloadType: 97, sequenceNumber: sequence, timestamp: timestamp, ssrc: 8, payload: payload[...]).serialized
    }

    static func video(_ tags: [FLVStreamTag]) throws -> [(time: Int64, type: FLVVideoPacketType, key: Bool, cts: Int32)] {
        try tags.filter { $0.type == .video }.map {
            let data = try FLVVideoData(parsing: $0.data)
            return ($0.timestamp, data.packetType, data.isKeyframe, data.tracks[0].compositionTime)
        }
    }

    @Test("with RTP-Info every stream meets the others at the play range's start; the SDP's parameter sets make the sequence header")
    func streamsMeetAtThePlayStart() throws {
        var converter = RTPToFLVConverter(tracks: Self.formats(videoStart: 90000, audioStart: 96000))
        var sequence: UInt16 = 65534
        var tags: [FLVStreamTag] = []
        for (index, timestamp) in [UInt32(90000), 93000, 96000].enumerated() {
            for packet in Self.videoPackets(index == 0 ? Self.idr : Self.slice, sequence: &sequence, timestamp: timestamp) {
                tags += converter.feed(packet, track: 0, arrival: 5000)
            }
        }
        // 100 ms after the play start on the audio clock; it arrives first, but time is the clock's, not the arrival's.
        tags += converter.feed(Self.audioPacket([1, 2, 3, 4], sequence: 9, timestamp: 96000 + 4800), track: 1, arrival: 0)
        let video = try Self.video(tags)
        #expect(video.map(\.time) == [0, 0, 33, 66])
        #expect(video.map(\.type) == [.sequenceStart, .codedFrames, .codedFrames, .codedFrames])
        #expect(video.filter { $0.type == .codedFrames }.map(\.key) == [true, false, false])
        #expect(video.map(\.cts) == [0, 0, 0, 0])
        #expect(Array(try FLVVideoData(parsing: tags[0].data).tracks[0].payload) == (try E.avcC))
        let frame = try FLVVideoData(parsing: tags[1].data).tracks[0].payload
        #expect(Array(frame) == E.avcc([Self.idr]), "the parameter sets are in the record, not the frame")
        let audio = tags.filter { $0.type == .audio }
        #expect(audio.map(\.timestamp) == [100, 100])
        #expect(audio.map(\.data) == [[0xAF, 0x00] + S.aacConfig.bytes, [0xAF, 0x01, 1, 2, 3, 4]])
        #expect(converter.statistics == RTPToFLVConverter.Statistics())
    }

    @Test("without RTP-Info each stream starts at its first packet's arrival after the session's first")
    func withoutRTPInfoStreamsStartAtTheirArrival() throws {
        var converter = RTPToFLVConverter(tracks: Self.formats(videoStart: 90000))
        var sequence: UInt16 = 1
        var tags: [FLVStreamTag] = []
        for packet in Self.videoPackets(Self.idr, sequence: &sequence, timestamp: 123_456) { tags += converter.feed(packet, track: 0, arrival: 1000) }
        tags += converter.feed(Self.audioPacket([9], sequence: 1, timestamp: 777), track: 1, arrival: 1250)
        tags += converter.feed(Self.audioPacket([8], sequence: 2, timestamp: 777 + 1024), track: 1, arrival: 1400)
        #expect(tags.filter { $0.type == .video }.map(\.timestamp) == [0, 0])
        #expect(tags.filter { $0.type == .audio }.map(\.timestamp) == [250, 250, 271])
    }

    @Test("a lost packet drops its frame; the frames after it wait for the next keyframe; the loss is counted")
    func aLostPacketDropsItsFrameUntilTheNextKeyframe() throws {
        var converter = RTPToFLVConverter(tracks: Self.formats())
        var sequence: UInt16 = 100
        var tags: [FLVStreamTag] = []
        for frame in 0..<8 {
            let keyframe = frame % 5 == 0
            var packets = Self.videoPackets(keyframe ? Self.idr : Self.slice, sequence: &sequence, timestamp: UInt32(frame * 3000))
            if frame == 2 { packets.removeFirst() }
            for packet in packets { tags += converter.feed(packet, track: 0, arrival: 0) }
        }
        let video = try Self.video(tags)
        // Frames 0, 1, then the keyframe 5 and what follows it. Frame 2 (one packet) is lost whole; the gap shows at
        // frame 3's packet, which may have been its first, so 3 is dropped; 4 refers to what was lost.
        #expect(video.filter { $0.type == .codedFrames }.map(\.time) == [0, 33, 166, 200, 233])
        #expect(converter.statistics.lostPackets == 1)
        #expect(converter.statistics.droppedAccessUnits == 1)
        #expect(converter.statistics.framesAwaitingKeyframe == 1)
        #expect(converter.statistics.damageDescription == "1 lost packets, 1 dropped video access units")
    }

    @Test("video with B-frames gets a DTS behind its PTS by the largest step back, and the DTS never goes back")
    func bFramesGetADTSBehindTheirPTS() throws {
        var converter = RTPToFLVConverter(tracks: [Self.formats()[0]])
        var sequence: UInt16 = 0
        var tags: [FLVStreamTag] = []
        // Presentation order I P B B per group, in decoding order: I0 P3 B1 B2, I4 P7 B5 B6.
        for (index, frame) in [0, 3, 1, 2, 4, 7, 5, 6].enumerated() {
            let nalUnit = index % 4 == 0 ? Self.idr : Self.slice
            for packet in Self.videoPackets(nalUnit, sequence: &sequence, timestamp: UInt32(frame * 3000)) { tags += converter.feed(packet, track: 0, arrival: 0) }
        }
        let frames = try Self.video(tags).filter { $0.type == .codedFrames }
        #expect(frames.count == 8)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.time <= $1.time })
        // Once the step back is known (the second group), every frame is presented at or after it is decoded, at its PTS.
        let second = frames.suffix(4)
        #expect(second.allSatisfy { $0.cts >= 0 })
        #expect(second.map { $0.time + Int64($0.cts) } == [133, 233, 166, 200])
    }

    @Test("packets of another payload type, of a track not converted, or not RTP at all are counted and dropped")
    func strayPacketsAreCounted() {
        var converter = RTPToFLVConverter(tracks: [nil] + Self.formats())
        #expect(converter.convertedTracks.map(\.index) == [1, 2])
        let wrongType = RTPPacket(payloadType: 100, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: [0x65][...]).serialized
        #expect(converter.feed(wrongType, track: 1, arrival: 0).isEmpty)
        #expect(converter.feed(wrongType, track: 0, arrival: 0).isEmpty)
        #expect(converter.feed([0x80, 0x60], track: 1, arrival: 0).isEmpty)
        #expect(converter.statistics.ignoredPackets == 2)
        #expect(converter.statistics.malformedPackets == 1)
    }

    @Test func opusPacketsBecomeEnhancedTags() throws {
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 111, clockRate: 48000, codec: .opus(channels: 2), playStartRTPTime: 0)])
        let packet = RTPPacket(marker: true, payloadType: 111, sequenceNumber: 5, timestamp: 960, ssrc: 3, payload: S.opusPacket(40, fill: 1)[...]).serialized
        let tags = converter.feed(packet, track: 0, arrival: 0)
        #expect(tags == [try E.audioTag(.opus, .sequenceStart, timestamp: 20, payload: try E.opusHead.serialized()),
                         try E.audioTag(.opus, .codedFrames, timestamp: 20, payload: S.opusPacket(40, fill: 1))])
    }

    @Test("a section without a codec the edge carries is refused naming what it offers")
    func unsupportedSectionsAreNamed() throws {
        let description = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 0 RTP/AVP 9 98\r\na=rtpmap:98 L16/8000\r\n")
        #expect(throws: MediaFormatError.unsupported(structure: "SDP audio section", reason: "payload type 9 without an rtpmap, L16 (H.264, H.265, AV1, VP9, VP8, AAC, Opus and G.711 are carried)")) {
            try RTPTrackFormat(media: description.media[0])
        }
        // G.711's static payload types need no rtpmap; MP4A-LATM with its configuration in band is named.
        let g711 = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 0 RTP/AVP 0 8\r\n")
        #expect(try RTPTrackFormat(media: g711.media[0]) == RTPTrackFormat(payloadType: 0, clockRate: 8000, codec: .g711(.muLaw, channels: 1)))
        let inBand = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 0 RTP/AVP 97\r\na=rtpmap:97 MP4A-LATM/48000/2\r\na=fmtp:97 cpresent=1\r\n")
        #expect(throws: MediaFormatError.unsupported(structure: "SDP audio section", reason: "MP4A-LATM with its StreamMuxConfig in band (cpresent is not 0)")) {
            try RTPTrackFormat(media: inBand.media[0])
        }
        let latm = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 0 RTP/AVP 97\r\na=rtpmap:97 MP4A-LATM/48000/2\r\na=fmtp:97 cpresent=0;config=40002320\r\n")
        #expect(try RTPTrackFormat(media: latm.media[0]).codec.audioSpecificConfig?.bytes == [0x11, 0x90])
        let video = try SessionDescription(parsing: RTSPSDPFixture.camera).media[0]
        #expect(try RTPTrackFormat(media: video, playStartRTPTime: 42).codec == .h264(parameterSets: [[0x67, 0x42, 0x00, 0x29, 0xE2, 0x90, 0x14, 0x07, 0xB6, 0x02, 0xDC, 0x04, 0x04, 0x06, 0x90, 0x78, 0x91, 0x15], [0x68, 0xCE, 0x3C, 0x80]]))
    }

    /// A G.711 A-law packet of `count` codes 0xD5 (+8 each) at `timestamp` on the 8 kHz clock.
    static func aLawPacket(sequence: UInt16, timestamp: UInt32, count: Int = 160) -> [UInt8] {
        RTPPacket(payloadType: 8, sequenceNumber: sequence, timestamp: timestamp, ssrc: 3, payload: [UInt8](repeating: 0xD5, count: count)[...]).serialized
    }

    @Test("G.711 is decoded into one run of samples: a lost packet's span filled with silence, an overlap trimmed, a long jump a new run")
    func g711Runs() {
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 8, clockRate: 8000, codec: .g711(.aLaw, channels: 1), playStartRTPTime: 8000)])
        #expect(converter.feed(Self.aLawPacket(sequence: 1, timestamp: 8000), track: 0, arrival: 0).isEmpty, "G.711 makes no tags itself")
        _ = converter.feed(Self.aLawPacket(sequence: 2, timestamp: 8160), track: 0, arrival: 0)
        // Sequence 3 (8320) is lost; 4 comes on time.
        _ = converter.feed(Self.aLawPacket(sequence: 4, timestamp: 8480), track: 0, arrival: 0)
        // 5 starts 80 samples before where the run has got to.
        _ = converter.feed(Self.aLawPacket(sequence: 5, timestamp: 8560), track: 0, arrival: 0)
        // 6 is 3 s later: too long to fill.
        _ = converter.feed(Self.aLawPacket(sequence: 6, timestamp: 8560 + 24000 + 160), track: 0, arrival: 0)
        let blocks = converter.takePCM()
        #expect(blocks.map(\.milliseconds) == [0, 20, 40, 80, 3_090])
        #expect(blocks.map(\.startsRun) == [true, false, false, false, true])
        #expect(blocks.map(\.samples.count) == [160, 160, 320, 80, 160])
        #expect(blocks[2].samples == [Int16](repeating: 0, count: 160) + [Int16](repeating: 8, count: 160))
        #expect(blocks.allSatisfy { $0.sampleRate == 8000 && $0.channels == 1 })
        #expect(converter.statistics.lostPackets == 1)
        #expect(converter.takePCM().isEmpty, "taken once")
    }

    @Test("MP4A-LATM frames become AAC tags behind the StreamMuxConfig's AudioSpecificConfig")
    func latmBecomesAACTags() throws {
        let config = try LATMStreamMuxConfig(hex: "40002320")
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 97, clockRate: 48000, codec: .aacLATM(config), playStartRTPTime: 0)])
        let payload = LATMDepacketizerTests.element([1, 2, 3]) + LATMDepacketizerTests.element([4, 5])
        let tags = converter.feed(RTPPacket(marker: true, payloadType: 97, sequenceNumber: 1, timestamp: 4800, ssrc: 2, payload: payload[...]).serialized,
                                  track: 0, arrival: 0)
        #expect(tags == [FLVStreamTag(type: .audio, timestamp: 100, data: [0xAF, 0x00, 0x11, 0x90]),
                         FLVStreamTag(type: .audio, timestamp: 100, data: [0xAF, 0x01, 1, 2, 3]),
                         FLVStreamTag(type: .audio, timestamp: 121, data: [0xAF, 0x01, 4, 5])])
    }

    @Test("without RTP-Info the sender reports move the audio to where their wallclock puts it against the video, once")
    func senderReportsPlaceStreams() throws {
        var converter = RTPToFLVConverter(tracks: Self.formats())
        var sequence: UInt16 = 1
        for packet in Self.videoPackets(Self.idr, sequence: &sequence, timestamp: 90000) { _ = converter.feed(packet, track: 0, arrival: 1000) }
        // The audio arrives 100 ms after the video: placed at 100 ms by arrival.
        let first = converter.feed(Self.audioPacket([1], sequence: 1, timestamp: 48000), track: 1, arrival: 1100)
        #expect(first.map(\.timestamp) == [100, 100])
        // The reports say the audio's first sample was taken 50 ms before the video's first frame: it belongs at -50 ms.
        let wallclock: UInt64 = 3_000_000_000 << 32
        converter.senderReport(track: 0, ntpTime: wallclock, rtpTime: 90000)
        #expect(converter.statistics.streamsMovedBySenderReports == 0, "not before every stream has reported")
        converter.senderReport(track: 1, ntpTime: wallclock, rtpTime: 48000 + 2400)
        #expect(converter.statistics.streamsMovedBySenderReports == 1)
        // 100 ms of audio later is now 50 ms: before where the audio had got to (100 ms), so dropped; 250 ms later is 200 ms.
        #expect(converter.feed(Self.audioPacket([2], sequence: 2, timestamp: 48000 + 4800), track: 1, arrival: 1200).isEmpty)
        #expect(converter.feed(Self.audioPacket([3], sequence: 3, timestamp: 48000 + 12000), track: 1, arrival: 1350).map(\.timestamp) == [200])
        #expect(converter.statistics.framesDroppedByMove == 1)
        // Later reports move nothing again.
        converter.senderReport(track: 1, ntpTime: wallclock + (1 << 32), rtpTime: 48000 + 2400)
        #expect(converter.feed(Self.audioPacket([4], sequence: 4, timestamp: 48000 + 14400), track: 1, arrival: 1400).map(\.timestamp) == [250])
        #expect(converter.statistics.streamsMovedBySenderReports == 1)
    }

    @Test("with RTP-Info the sender reports move nothing")
    func senderReportsLeaveRTPInfoAlone() throws {
        var converter = RTPToFLVConverter(tracks: Self.formats(videoStart: 90000, audioStart: 48000))
        var sequence: UInt16 = 1
        for packet in Self.videoPackets(Self.idr, sequence: &sequence, timestamp: 90000) { _ = converter.feed(packet, track: 0, arrival: 1000) }
        _ = converter.feed(Self.audioPacket([1], sequence: 1, timestamp: 48000), track: 1, arrival: 1100)
        converter.senderReport(track: 0, ntpTime: 1 << 40, rtpTime: 90000)
        converter.senderReport(track: 1, ntpTime: 1 << 40, rtpTime: 48000 + 2400)
        #expect(converter.statistics.streamsMovedBySenderReports == 0)
        #expect(converter.feed(Self.audioPacket([2], sequence: 2, timestamp: 48000 + 4800), track: 1, arrival: 1200).map(\.timestamp) == [100])
    }

    @Test("RTCP: the packet types of a compound, and a goodbye in it")
    func rtcpGoodbyeIsFound() {
        let senderReport: [UInt8] = [0x80, 200, 0, 6] + [UInt8](repeating: 0, count: 24)
        let goodbye: [UInt8] = [0x81, 203, 0, 1, 0, 0, 0, 7]
        #expect(RTCPCompound.packetTypes(senderReport + goodbye) == [200, 203])
        #expect(RTCPCompound.saysGoodbye(senderReport + goodbye))
        #expect(!RTCPCompound.saysGoodbye(senderReport))
        #expect(RTCPCompound.packetTypes(senderReport + [0x81, 203, 0, 9]) == [200], "a length past the end stops the reading")
    }
}

/// A camera's session description, as an RTSP DESCRIBE answers it.
enum RTSPSDPFixture {
    static let camera = """
        v=0\r
        o=- 1 1 IN IP4 10.0.0.2\r
        s=Camera\r
        t=0 0\r
        m=video 0 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0IAKeKQFAe2AtwEBAaQeJEV,aM48gA==\r
        a=control:trackID=1\r

        """
}
