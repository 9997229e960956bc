import SluiceTestSupport
import Testing
@testable import MediaFormats

/// One row drives parsing, canonical writing, truncation and the fuzz seed corpus.
struct AudioSpecificConfigCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let objectType: Int
    let coreObjectType: Int
    let samplingFrequencyIndex: Int
    let samplingFrequency: Int
    let channelConfiguration: Int
    var signalling: AudioSpecificConfig.SBRSignalling = .none
    var sbrPresent: Bool? = nil
    var psPresent: Bool? = nil
    var extensionSamplingFrequency: Int? = nil
    var frameLengthFlag = false
    var testDescription: String { name }

    static let valid: [AudioSpecificConfigCase] = [
        .init(name: "ffmpeg: AAC-LC 44.1 kHz mono with backward-compatible 'no SBR' extension",
              bytes: FLVFixtures.ffmpegAudioSpecificConfig, objectType: 2, coreObjectType: 2,
              samplingFrequencyIndex: 4, samplingFrequency: 44100, channelConfiguration: 1,
              signalling: .backwardCompatible, sbrPresent: false),
        .init(name: "ffmpeg: AAC-LC 48 kHz 5.1 (esds of an mp4)", bytes: AACFixtures.bytes("11b056e500"),
              objectType: 2, coreObjectType: 2, samplingFrequencyIndex: 3, samplingFrequency: 48000,
              channelConfiguration: 6, signalling: .backwardCompatible, sbrPresent: false),
        .init(name: "AAC-LC 44.1 kHz mono, plain", bytes: AACFixtures.bytes("1208"), objectType: 2,
              coreObjectType: 2, samplingFrequencyIndex: 4, samplingFrequency: 44100, channelConfiguration: 1),
        .init(name: "AAC Main 96 kHz stereo", bytes: AACFixtures.bytes("0810"), objectType: 1, coreObjectType: 1,
              samplingFrequencyIndex: 0, samplingFrequency: 96000, channelConfiguration: 2),
        .init(name: "HE-AAC explicit hierarchical SBR, 22.05 kHz core, 44.1 kHz output",
              bytes: AACFixtures.bytes("2b920800"), objectType: 5, coreObjectType: 2, samplingFrequencyIndex: 7,
              samplingFrequency: 22050, channelConfiguration: 2, signalling: .hierarchical, sbrPresent: true,
              extensionSamplingFrequency: 44100),
        .init(name: "HE-AAC v2 explicit hierarchical PS", bytes: AACFixtures.bytes("eb8a0800"), objectType: 29,
              coreObjectType: 2, samplingFrequencyIndex: 7, samplingFrequency: 22050, channelConfiguration: 1,
              signalling: .hierarchical, sbrPresent: true, psPresent: true, extensionSamplingFrequency: 44100),
        .init(name: "HE-AAC explicit backward-compatible SBR, 24 kHz core, 48 kHz output",
              bytes: AACFixtures.bytes("131056e598"), objectType: 2, coreObjectType: 2, samplingFrequencyIndex: 6,
              samplingFrequency: 24000, channelConfiguration: 2, signalling: .backwardCompatible, sbrPresent: true,
              extensionSamplingFrequency: 48000),
        .init(name: "AAC-ELD 44.1 kHz stereo, 480-sample frames (escape object type 39)",
              bytes: AACFixtures.bytes("f8e85000"), objectType: 39, coreObjectType: 39, samplingFrequencyIndex: 4,
              samplingFrequency: 44100, channelConfiguration: 2, frameLengthFlag: true),
        .init(name: "explicit 24-bit frequency 50000 Hz (index 15)", bytes: AACFixtures.bytes("178061a810"),
              objectType: 2, coreObjectType: 2, samplingFrequencyIndex: 15, samplingFrequency: 50000,
              channelConfiguration: 2),
        .init(name: "channel configuration 0: program_config_element kept verbatim",
              bytes: AACFixtures.bytes("1200050848002000c640"), objectType: 2, coreObjectType: 2,
              samplingFrequencyIndex: 4, samplingFrequency: 44100, channelConfiguration: 0),
    ]

    static let malformed: [(name: String, bytes: [UInt8], error: MediaFormatError)] = [
        ("empty", [], .truncated(needed: 1, available: 0)),
        ("escape object type cut short", [0xF8], .truncated(needed: 1, available: 0)),
        ("object type 0 (Null)", [0x00, 0x00],
         .invalid(structure: "AudioSpecificConfig", reason: "audioObjectType 0 (Null)")),
        ("reserved sampling index 13", [0x16, 0x80, 0x00],
         .invalid(structure: "AudioSpecificConfig", reason: "samplingFrequencyIndex 13 is reserved")),
        ("explicit frequency 0", AACFixtures.bytes("1780000010"),
         .invalid(structure: "AudioSpecificConfig", reason: "samplingFrequencyIndex 15 with an explicit frequency of 0 Hz")),
        ("SBR whose core type is SBR again", AACFixtures.bytes("2b9214"),
         .invalid(structure: "AudioSpecificConfig", reason: "core audioObjectType 5 under SBR signalling")),
    ]
}

@Suite struct AudioSpecificConfigTests {
    @Test(arguments: AudioSpecificConfigCase.valid)
    func parsesFields(_ row: AudioSpecificConfigCase) throws {
        let config = try AudioSpecificConfig(parsing: row.bytes)
        #expect(config.bytes == row.bytes)
        #expect(config.objectType == row.objectType)
        #expect(config.coreObjectType == row.coreObjectType)
        #expect(config.samplingFrequencyIndex == row.samplingFrequencyIndex)
        #expect(config.samplingFrequency == row.samplingFrequency)
        #expect(config.channelConfiguration == row.channelConfiguration)
        #expect(config.sbrSignalling == row.signalling)
        #expect(config.sbrPresent == row.sbrPresent)
        #expect(config.psPresent == row.psPresent)
        #expect(config.extensionSamplingFrequency == row.extensionSamplingFrequency)
        #expect(config.outputSamplingFrequency == (row.extensionSamplingFrequency ?? row.samplingFrequency))
        #expect(config.frameLengthFlag == row.frameLengthFlag)
    }

    @Test(arguments: AudioSpecificConfigCase.valid)
    func canonicalFormOfSpecBytesIsTheSameBytes(_ row: AudioSpecificConfigCase) throws {
        var out: [UInt8] = [0xEE]
        try AudioSpecificConfig(parsing: row.bytes).write(into: &out)
        #expect(out == [0xEE] + row.bytes)
    }

    @Test(arguments: AudioSpecificConfigCase.malformed.indices)
    func refusesMalformed(_ index: Int) {
        let row = AudioSpecificConfigCase.malformed[index]
        #expect(throws: row.error, "\(row.name)") { try AudioSpecificConfig(parsing: row.bytes) }
    }

    @Test func trailingPaddingIsDroppedByTheCanonicalForm() throws {
        let config = try AudioSpecificConfig(parsing: [0x12, 0x08, 0x00])
        var out: [UInt8] = []
        config.write(into: &out)
        #expect(out == [0x12, 0x08])
        #expect(config.bytes == [0x12, 0x08, 0x00])
    }

    @Test func buildsELDWithTheEscapeForm() throws {
        let config = try AudioSpecificConfig(objectType: 39, samplingFrequency: 44100, channelConfiguration: 2)
        // 11111 000111 | 0100 | 0010 | frameLengthFlag 0 | 3 resilience flags, ldSbr 0, ELDEXT_TERM, epConfig 0.
        #expect(config.bytes == AACFixtures.bytes("f8e84000"))
        #expect(config.objectTypeName == "ER AAC ELD")
        let reparsed = try AudioSpecificConfig(parsing: config.bytes)
        #expect(reparsed.objectType == 39)
        #expect(reparsed == config)
    }

    @Test func buildsPlainConfigs() throws {
        #expect(try AudioSpecificConfig(objectType: 2, samplingFrequency: 44100, channelConfiguration: 1).bytes
            == [0x12, 0x08])
        #expect(try AudioSpecificConfig(objectType: 2, samplingFrequency: 50000, channelConfiguration: 2).bytes
            == AACFixtures.bytes("178061a810"))
    }

    @Test func everyTableIndexRoundTrips() throws {
        #expect(AudioSpecificConfig.samplingFrequencies.count == 13)
        for (index, frequency) in AudioSpecificConfig.samplingFrequencies.enumerated() {
            let built = try AudioSpecificConfig(objectType: 2, samplingFrequency: frequency, channelConfiguration: 2)
            #expect(built.samplingFrequencyIndex == index)
            let parsed = try AudioSpecificConfig(parsing: built.bytes)
            #expect(parsed.samplingFrequency == frequency)
            #expect(parsed == built)
        }
    }

    @Test func refusesUnbuildableArguments() {
        #expect(throws: MediaFormatError.unsupported(
            structure: "AudioSpecificConfig",
            reason: "building a config for object type 5 (SBR) is not supported; object types 1–4 and 39 are")) {
            try AudioSpecificConfig(objectType: 5, samplingFrequency: 44100, channelConfiguration: 2)
        }
        #expect(throws: MediaFormatError.self) {
            try AudioSpecificConfig(objectType: 2, samplingFrequency: 0, channelConfiguration: 2)
        }
        #expect(throws: MediaFormatError.self) {
            try AudioSpecificConfig(objectType: 2, samplingFrequency: 44100, channelConfiguration: 0)
        }
    }

    @Test(arguments: AudioSpecificConfigCase.valid)
    func truncationAtEveryOffsetNeverCrashes(_ row: AudioSpecificConfigCase) {
        for length in 0..<row.bytes.count {
            let prefix = Array(row.bytes.prefix(length))
            do {
                let config = try AudioSpecificConfig(parsing: prefix)
                // A shorter prefix can still be a complete config (e.g. without its sync extension).
                #expect(config.objectType == row.objectType)
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        // Cut before audioObjectType + samplingFrequencyIndex + channelConfiguration end: always an error.
        #expect(throws: MediaFormatError.self) { try AudioSpecificConfig(parsing: row.bytes.prefix(1)) }
    }

    @Test func seededRandomInputsNeverCrashAndCanonicalFormIsAFixpoint() {
        var generator = SeededGenerator(seed: 0xA5C)
        var parsedCount = 0
        for _ in 0..<2000 {
            let input = generator.bytes(Int.random(in: 0...12, using: &generator))
            do {
                let config = try AudioSpecificConfig(parsing: input)
                parsedCount += 1
                var canonical: [UInt8] = []
                config.write(into: &canonical)
                let again = try AudioSpecificConfig(parsing: canonical)
                var canonicalAgain: [UInt8] = []
                again.write(into: &canonicalAgain)
                #expect(canonicalAgain == canonical, "input \(input)")
                #expect(again.objectType == config.objectType && again.coreObjectType == config.coreObjectType)
                #expect(again.samplingFrequency == config.samplingFrequency)
                #expect(again.channelConfiguration == config.channelConfiguration)
                #expect(again.sbrPresent == config.sbrPresent && again.psPresent == config.psPresent)
                #expect(again.extensionSamplingFrequency == config.extensionSamplingFrequency)
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        #expect(parsedCount > 100)
    }
}
