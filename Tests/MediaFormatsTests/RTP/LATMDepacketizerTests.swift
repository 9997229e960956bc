import Testing
@testable import MediaFormats

/// MP4A-LATM (RFC 6416): the SDP's StreamMuxConfig and the payload's AudioMuxElements.
@Suite struct LATMDepacketizerTests {
    /// A StreamMuxConfig as cameras and FFmpeg write it: version 0, one time framing, `subFrames`, one program and
    /// layer, `asc` (bits), then frameLengthType 0, latmBufferFullness 0xFF, no other data, no CRC.
    static func config(asc: [(UInt32, Int)], subFrames: UInt32 = 0, tail: Bool = true) -> [UInt8] {
        var bits = BitWriter()
        bits.write(0, bits: 1)
        bits.write(1, bits: 1)
        bits.write(subFrames, bits: 6)
        bits.write(0, bits: 4)
        bits.write(0, bits: 3)
        for (value, count) in asc { bits.write(value, bits: count) }
        if tail {
            bits.write(0, bits: 3)
            bits.write(0xFF, bits: 8)
            bits.write(0, bits: 2)
        }
        return bits.bytes
    }

    static func packet(_ payload: [UInt8], sequence: UInt16, timestamp: UInt32 = 1000, marker: Bool = true) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 97, sequenceNumber: sequence, timestamp: timestamp, ssrc: 5, payload: payload[...])
    }

    /// PayloadLengthInfo and the frame.
    static func element(_ frame: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 255, count: frame.count / 255) + [UInt8(frame.count % 255)] + frame
    }

    @Test("the configs GStreamer's and FFmpeg's payloaders write give the AudioSpecificConfig their encoders made",
          arguments: [("40002320", [UInt8]([0x11, 0x90])), ("400024203fc0", [0x12, 0x10]), ("400026103fc0", [0x13, 0x08])])
    func payloaderConfigs(hex: String, audioSpecificConfig: [UInt8]) throws {
        // GStreamer's voaacenc reported codec_data 1190 for 48 kHz stereo; FFmpeg's aac 1210 (44.1 kHz stereo), 1308 (24 kHz mono).
        let config = try LATMStreamMuxConfig(hex: hex)
        #expect(config.audioSpecificConfig.bytes == audioSpecificConfig)
        #expect(config.subFrames == 0)
    }

    @Test("HE-AAC's hierarchical signalling is copied whole: the extension frequency and the core object type")
    func heAACConfig() throws {
        let asc: [(UInt32, Int)] = [(5, 5), (6, 4), (2, 4), (3, 4), (2, 5), (0, 3)]
        let config = try LATMStreamMuxConfig(bytes: Self.config(asc: asc))
        var expected = BitWriter()
        for (value, count) in asc { expected.write(value, bits: count) }
        #expect(config.audioSpecificConfig.bytes == expected.bytes)
        #expect(config.audioSpecificConfig.objectType == 5)
        #expect(config.audioSpecificConfig.samplingFrequency == 24000)
        #expect(config.audioSpecificConfig.extensionSamplingFrequency == 48000)
        #expect(config.audioSpecificConfig.coreObjectType == 2)
    }

    @Test("what this edge does not carry is refused, naming it")
    func refusals() {
        let lc: [(UInt32, Int)] = [(2, 5), (3, 4), (2, 4), (0, 3)]
        var version1 = Self.config(asc: lc)
        version1[0] |= 0x80
        #expect(throws: MediaFormatError.unsupported(structure: "MP4A-LATM config", reason: "audioMuxVersion 1")) {
            try LATMStreamMuxConfig(bytes: version1)
        }
        var twoPrograms = Self.config(asc: lc)
        twoPrograms[1] |= 0x10
        #expect(throws: MediaFormatError.unsupported(structure: "MP4A-LATM config", reason: "more than one program")) {
            try LATMStreamMuxConfig(bytes: twoPrograms)
        }
        #expect(throws: MediaFormatError.unsupported(structure: "MP4A-LATM config", reason: "channel configuration 0 (a program_config_element)")) {
            try LATMStreamMuxConfig(bytes: Self.config(asc: [(2, 5), (3, 4), (0, 4), (0, 3)]))
        }
        #expect(throws: MediaFormatError.unsupported(structure: "MP4A-LATM config", reason: "audio object type 8 (CELP); AAC is carried")) {
            try LATMStreamMuxConfig(bytes: Self.config(asc: [(8, 5), (3, 4), (1, 4), (0, 3)]))
        }
        #expect(throws: MediaFormatError.invalid(structure: "MP4A-LATM config", reason: "\"4000232\" is not an even number of hex digits")) {
            try LATMStreamMuxConfig(hex: "4000232")
        }
        #expect(throws: MediaFormatError.invalid(structure: "MP4A-LATM config", reason: "\"40g02320\" is not hex")) {
            try LATMStreamMuxConfig(hex: "40g02320")
        }
    }

    @Test("a whole element, one in fragments, and two in one packet, timed a frame apart")
    func elements() throws {
        var depacketizer = LATMDepacketizer(config: try LATMStreamMuxConfig(hex: "40002320"))
        let long = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        #expect(depacketizer.depacketize(Self.packet(Self.element(long), sequence: 1)) == [.frame(AACFrame(bytes: long, rtpTimestamp: 1000))])
        let split = Self.element([7, 7, 7, 7, 7, 7])
        #expect(depacketizer.depacketize(Self.packet(Array(split.prefix(3)), sequence: 2, timestamp: 2024, marker: false)).isEmpty)
        #expect(depacketizer.depacketize(Self.packet(Array(split.dropFirst(3)), sequence: 3, timestamp: 2024))
            == [.frame(AACFrame(bytes: [7, 7, 7, 7, 7, 7], rtpTimestamp: 2024))])
        #expect(depacketizer.depacketize(Self.packet(Self.element([1, 2]) + Self.element([3]), sequence: 4, timestamp: 3048))
            == [.frame(AACFrame(bytes: [1, 2], rtpTimestamp: 3048)), .frame(AACFrame(bytes: [3], rtpTimestamp: 4072))])
    }

    @Test("a loss inside an element drops it and its remaining fragments; lengths that do not fill an element drop it")
    func lossAndDamage() throws {
        var depacketizer = LATMDepacketizer(config: try LATMStreamMuxConfig(hex: "40002320"))
        let element = Self.element([UInt8](repeating: 9, count: 30))
        #expect(depacketizer.depacketize(Self.packet(Array(element.prefix(10)), sequence: 1, marker: false)).isEmpty)
        // Sequence 2 (the middle fragment) is lost; 3 is the end of the same element.
        #expect(depacketizer.depacketize(Self.packet(Array(element.dropFirst(20)), sequence: 3)) == [.dropped(rtpTimestamp: 1000, reason: .packetLoss(lostPackets: 1))])
        #expect(depacketizer.depacketize(Self.packet(Self.element([4, 4]), sequence: 4, timestamp: 2024)) == [.frame(AACFrame(bytes: [4, 4], rtpTimestamp: 2024))])
        let short = depacketizer.depacketize(Self.packet([10, 1, 2], sequence: 5, timestamp: 3048))
        #expect(short == [.dropped(rtpTimestamp: 3048, reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "a frame of 10 octets with 2 left")))])
        let unended = depacketizer.depacketize(Self.packet([255, 255], sequence: 6, timestamp: 4072))
        #expect(unended == [.dropped(rtpTimestamp: 4072, reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "it ends inside a PayloadLengthInfo")))])
    }
}
