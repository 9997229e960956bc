import SluiceTestSupport
import Testing
@testable import MediaFormats

/// One row drives parsing, writing, truncation and the fuzz seed corpus.
struct ADTSHeaderCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let mpegVersionID: Int
    let protectionAbsent: Bool
    let profile: Int
    let samplingFrequencyIndex: Int
    let channelConfiguration: Int
    let frameLength: Int
    let bufferFullness: Int
    var crc: UInt16? = nil
    var testDescription: String { name }

    static let valid: [ADTSHeaderCase] = [
        .init(name: "ffmpeg: LC 44.1 kHz mono, 7 bytes", bytes: AACFixtures.adtsLC44100Mono, mpegVersionID: 0,
              protectionAbsent: true, profile: 1, samplingFrequencyIndex: 4, channelConfiguration: 1,
              frameLength: 265, bufferFullness: 0x7FF),
        .init(name: "ffmpeg: LC 48 kHz 5.1, 7 bytes", bytes: AACFixtures.adtsLC48000Surround, mpegVersionID: 0,
              protectionAbsent: true, profile: 1, samplingFrequencyIndex: 3, channelConfiguration: 6,
              frameLength: 765, bufferFullness: 0x7FF),
        .init(name: "9 bytes with crc_check (protection_absent = 0)", bytes: AACFixtures.bytes("fff05040217ffc1234"),
              mpegVersionID: 0, protectionAbsent: false, profile: 1, samplingFrequencyIndex: 4,
              channelConfiguration: 1, frameLength: 267, bufferFullness: 0x7FF, crc: 0x1234),
        .init(name: "MPEG-2 ID, AAC Main, 8 kHz stereo, CBR fullness", bytes: AACFixtures.bytes("fff92c80200040"),
              mpegVersionID: 1, protectionAbsent: true, profile: 0, samplingFrequencyIndex: 11,
              channelConfiguration: 2, frameLength: 256, bufferFullness: 16),
    ]

    static let malformed: [(name: String, bytes: [UInt8], error: MediaFormatError)] = [
        ("six bytes", Array(AACFixtures.adtsLC44100Mono.prefix(6)), .truncated(needed: 7, available: 6)),
        ("CRC header cut at 8 bytes", AACFixtures.bytes("fff05040217ffc12"), .truncated(needed: 9, available: 8)),
        ("wrong syncword", AACFixtures.bytes("ffe15040213ffc"),
         .invalid(structure: "ADTS header", reason: "syncword is 0xffe, not 0xfff")),
        ("layer 1 (an MP3 header)", AACFixtures.bytes("fff35040213ffc"),
         .invalid(structure: "ADTS header", reason: "layer is 1, not 0")),
        ("sampling index 13", AACFixtures.bytes("fff17440213ffc"),
         .invalid(structure: "ADTS header", reason: "sampling_frequency_index 13 is reserved or explicit")),
        ("frame length 5 < 7", AACFixtures.bytes("fff1504000bffc"),
         .invalid(structure: "ADTS header", reason: "aac_frame_length 5 is shorter than the 7-byte header")),
        ("frame length 8 < 9 with CRC", AACFixtures.bytes("fff05040011ffc0000"),
         .invalid(structure: "ADTS header", reason: "aac_frame_length 8 is shorter than the 9-byte header")),
    ]
}

@Suite struct ADTSHeaderTests {
    @Test(arguments: ADTSHeaderCase.valid)
    func parsesAndWritesBack(_ row: ADTSHeaderCase) throws {
        let header = try ADTSHeader(parsing: row.bytes)
        #expect(header.mpegVersionID == row.mpegVersionID)
        #expect(header.protectionAbsent == row.protectionAbsent)
        #expect(header.profile == row.profile)
        #expect(header.objectType == row.profile + 1)
        #expect(header.samplingFrequencyIndex == row.samplingFrequencyIndex)
        #expect(header.samplingFrequency == AudioSpecificConfig.samplingFrequencies[row.samplingFrequencyIndex])
        #expect(header.channelConfiguration == row.channelConfiguration)
        #expect(header.frameLength == row.frameLength)
        #expect(header.bufferFullness == row.bufferFullness)
        #expect(header.numberOfRawDataBlocks == 0)
        #expect(header.crc == row.crc)
        #expect(header.headerLength == row.bytes.count)
        #expect(header.payloadLength == row.frameLength - row.bytes.count)
        var out: [UInt8] = []
        header.write(into: &out)
        #expect(out == row.bytes)
    }

    @Test(arguments: ADTSHeaderCase.malformed.indices)
    func refusesMalformed(_ index: Int) {
        let row = ADTSHeaderCase.malformed[index]
        #expect(throws: row.error, "\(row.name)") { try ADTSHeader(parsing: row.bytes) }
    }

    @Test func buildsTheHeaderFFmpegWrites() throws {
        let config = try AudioSpecificConfig(parsing: FLVFixtures.ffmpegAudioSpecificConfig)
        let header = try ADTSHeader(audioSpecificConfig: config, payloadLength: 265 - 7)
        var out: [UInt8] = []
        header.write(into: &out)
        #expect(out == AACFixtures.adtsLC44100Mono)
        let surround = try ADTSHeader(
            audioSpecificConfig: AudioSpecificConfig(parsing: AACFixtures.bytes("11b056e500")), payloadLength: 758)
        out = []
        surround.write(into: &out)
        #expect(out == AACFixtures.adtsLC48000Surround)
    }

    @Test func refusesELDWithTheObjectTypeNamed() throws {
        let eld = try AudioSpecificConfig(parsing: AACFixtures.bytes("f8e85000"))
        #expect(throws: MediaFormatError.unsupported(
            structure: "ADTS header",
            reason: "AAC object type 39 (ER AAC ELD) cannot be carried in ADTS; ADTS carries object types 1–4")) {
            try ADTSHeader(audioSpecificConfig: eld, payloadLength: 100)
        }
    }

    @Test func hierarchicalHEAACIsWrittenAsItsCoreAtTheCoreRate() throws {
        let heAAC = try AudioSpecificConfig(parsing: AACFixtures.bytes("2b920800"))
        let header = try ADTSHeader(audioSpecificConfig: heAAC, payloadLength: 10)
        #expect(header.objectType == 2)
        #expect(header.samplingFrequency == 22050)
        #expect(header.channelConfiguration == 2)
    }

    @Test func refusesExplicitFrequenciesAndOversizedPayloads() throws {
        let explicit = try AudioSpecificConfig(parsing: AACFixtures.bytes("178061a810"))
        #expect(throws: MediaFormatError.unsupported(
            structure: "ADTS header",
            reason: "explicit sampling frequency 50000 Hz (index 15) cannot be carried in ADTS; it needs one of "
                + "the 13 table frequencies")) {
            try ADTSHeader(audioSpecificConfig: explicit, payloadLength: 10)
        }
        let lc = try AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 2)
        let largest = try ADTSHeader(audioSpecificConfig: lc, payloadLength: ADTSHeader.maxFrameLength - 7)
        #expect(largest.frameLength == 8191)
        var out: [UInt8] = []
        largest.write(into: &out)
        #expect(try ADTSHeader(parsing: out) == largest)
        #expect(throws: MediaFormatError.limitExceeded(what: "ADTS aac_frame_length", value: 8192, limit: 8191)) {
            try ADTSHeader(audioSpecificConfig: lc, payloadLength: ADTSHeader.maxFrameLength - 6)
        }
    }

    @Test func everySamplingIndexRoundTripsThroughADTSAndBack() throws {
        for index in 0...12 {
            let frequency = AudioSpecificConfig.samplingFrequencies[index]
            let config = try AudioSpecificConfig(objectType: 2, samplingFrequency: frequency, channelConfiguration: 2)
            let header = try ADTSHeader(audioSpecificConfig: config, payloadLength: 100)
            #expect(header.samplingFrequencyIndex == index)
            var out: [UInt8] = []
            header.write(into: &out)
            let parsed = try ADTSHeader(parsing: out)
            #expect(parsed == header)
            #expect(try parsed.audioSpecificConfig == config)
        }
    }

    @Test func channelConfigurationZeroHasNoAudioSpecificConfig() throws {
        // profile LC, 44.1 kHz, channel_configuration 0 (a PCE in the raw data).
        let header = try ADTSHeader(parsing: AACFixtures.bytes("fff15000213ffc"))
        #expect(header.channelConfiguration == 0)
        #expect(throws: MediaFormatError.self) { try header.audioSpecificConfig }
    }

    @Test(arguments: ADTSHeaderCase.valid)
    func truncationAtEveryOffsetThrows(_ row: ADTSHeaderCase) {
        for length in 0..<row.bytes.count {
            #expect(throws: MediaFormatError.self) { try ADTSHeader(parsing: row.bytes.prefix(length)) }
        }
    }

    @Test func seededRandomInputsNeverCrash() {
        var generator = SeededGenerator(seed: 0xAD75)
        var parsedCount = 0
        for iteration in 0..<2000 {
            var input = generator.bytes(Int.random(in: 0...10, using: &generator))
            // Half the inputs start with the syncword so the later checks are reached too.
            if iteration % 2 == 0, input.count >= 2 {
                input[0] = 0xFF
                input[1] |= 0xF0
            }
            do {
                let header = try ADTSHeader(parsing: input)
                parsedCount += 1
                var out: [UInt8] = []
                header.write(into: &out)
                #expect(out == Array(input.prefix(header.headerLength)))
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        #expect(parsedCount > 50)
    }
}
