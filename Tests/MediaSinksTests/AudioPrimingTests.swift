import Testing
import MediaFormats
@testable import MediaSinks

/// Where an AAC stream's priming comes from: the source's skip samples, its initial_padding, else AAC LC's 1,024.
@Suite struct AudioPrimingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var objectType = AudioObjectType.aacLC
        var skipSamples: [UInt8]?
        var initialPadding = 0
        var priming: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "an MP4 edit list read as skip samples: 1,024", skipSamples: [0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0], priming: 1024),
        Case(name: "skip samples win over initial_padding", skipSamples: [0x40, 0x08, 0, 0, 0, 0, 0, 0, 0, 0], initialPadding: 1024, priming: 2112),
        Case(name: "initial_padding when no skip samples", initialPadding: 2112, priming: 2112),
        Case(name: "FLV, RTMP, ADTS, TS: AAC LC's own 1,024", priming: 1024),
        Case(name: "skip samples of 0 say nothing: the codec's", skipSamples: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], priming: 1024),
        Case(name: "skip side data too short to read: the codec's", skipSamples: [0x00, 0x04], priming: 1024),
        Case(name: "a skip past a second at 96 kHz is damage: the codec's", skipSamples: [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 0, 0], priming: 1024),
        Case(name: "HE-AAC (SBR): no known priming", objectType: AudioObjectType.sbr, priming: 0),
    ]

    @Test(arguments: cases)
    func priming(_ test: Case) throws {
        // HE-AAC under hierarchical signalling: SBR at 24 kHz core, 48 kHz out, over an AAC LC core.
        let config = test.objectType == AudioObjectType.sbr ? try AudioSpecificConfig(parsing: [0x2B, 0x11, 0x88, 0x00])
            : try AudioSpecificConfig(objectType: test.objectType, samplingFrequency: 48000, channelConfiguration: 2)
        #expect(config.objectType == test.objectType)
        #expect(AudioPriming.aac(config, firstPacketSkipSamples: test.skipSamples, initialPadding: test.initialPadding) == test.priming)
    }
}
