import Testing
@testable import MediaFormats

/// FLV tags as the relay hands them to an SRT output, turned into transport stream datagrams.
@Suite struct FLVToTSConverterTests {
    typealias E = EdgeTestSupport
    typealias S = TSTestSupport

    func programs(_ bytes: [UInt8]) -> [ProgramMapTable] {
        S.demux(bytes).events.compactMap { if case let .program(pmt) = $0 { pmt } else { nil } }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var tag: FLVStreamTag
        var error: FLVToTSError
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "AV1 sequence start",
                tag: FLVStreamTag(type: .video, timestamp: 0, data: [0x90] + Array("av01".utf8) + [0x81, 0x00, 0x0C, 0x00]),
                error: .unsupportedVideoCodec("av01")),
        Refusal(name: "VP9 frame", tag: FLVStreamTag(type: .video, timestamp: 0, data: [0x91] + Array("vp09".utf8) + [1, 2]),
                error: .unsupportedVideoCodec("vp09")),
        Refusal(name: "legacy Sorenson H.263", tag: FLVStreamTag(type: .video, timestamp: 0, data: [0x22, 1, 2, 3]),
                error: .unsupportedVideoCodec("CodecID 2")),
        Refusal(name: "legacy MP3", tag: FLVStreamTag(type: .audio, timestamp: 0, data: [0x2F, 0xFF, 0xFB]),
                error: .unsupportedAudioCodec("SoundFormat 2")),
        Refusal(name: "Opus with 3 channels in family 255",
                tag: FLVStreamTag(type: .audio, timestamp: 0, data: [0x90] + Array("Opus".utf8)
                    // OpusHead v1, 3 channels, pre-skip 0, 48000 Hz, gain 0, family 255: 3 streams, 0 coupled, mapping 0 1 2.
                    + Array("OpusHead".utf8) + [1, 3, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 255, 3, 0, 0, 1, 2]),
                error: .unsupportedAudioCodec("Opus with 3 channels in mapping family 255")),
    ]

    @Test(arguments: refusals) func codecsWithoutATSMappingAreRefusedByName(_ refusal: Refusal) {
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: true)
        #expect(throws: refusal.error) { try converter.feed(refusal.tag) }
    }

    @Test func theProgramWaitsForBothSequenceHeaders() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 10)
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: true)
        // Video header and frames first: nothing comes out until the audio header.
        let video = input.filter { $0.type == .video }
        let audio = input.filter { $0.type == .audio }
        var datagrams: [[UInt8]] = []
        for tag in video.prefix(5) { datagrams += try converter.feed(tag) }
        #expect(datagrams.isEmpty)
        datagrams += try converter.feed(audio[0])
        for tag in video.dropFirst(5) + audio.dropFirst() { datagrams += try converter.feed(tag) }
        datagrams += converter.flush()
        let ts = datagrams.flatMap { $0 }
        #expect(programs(ts).map { $0.streams.map(\.codec) } == [[.h264, .aac]])
        let output = E.tags(E.flv(ts).events)
        #expect(E.tags(output, .video) == video)
        #expect(E.tags(output, .audio) == audio)
    }

    @Test func afterTheWaitTheProgramStartsWithWhatItHasAndGrowsLater() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 40)
        let video = input.filter { $0.type == .video }
        let audio = input.filter { $0.type == .audio && $0.timestamp >= 1200 }
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: true, configurationWait: 1000)
        var datagrams: [[UInt8]] = []
        // 1.2 s of video without an audio header, then the header and the audio from there.
        for tag in video where tag.timestamp < 1200 { datagrams += try converter.feed(tag) }
        datagrams += try converter.feed(E.audioTag(.aac, .sequenceStart, timestamp: 1200, payload: S.aacConfig.bytes))
        for tag in (video.filter { $0.timestamp >= 1200 } + audio).sorted(by: { $0.timestamp < $1.timestamp }) {
            datagrams += try converter.feed(tag)
        }
        datagrams += converter.flush()
        let ts = datagrams.flatMap { $0 }
        #expect(programs(ts).map { $0.streams.map(\.codec) } == [[.h264], [.h264, .aac]])
        #expect(programs(ts).map(\.version) == [0, 1])
        #expect(converter.statistics.programChanges == 1)
        #expect(converter.statistics.framesWithoutConfiguration == 0)
        let output = E.tags(E.flv(ts).events)
        #expect(E.tags(output, .video) == video)
        #expect(E.tags(output, .audio).dropFirst().map(\.data) == audio.map(\.data))
    }

    @Test func framesWithoutTheirConfigurationAndOtherTagsAreCounted() throws {
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: false)
        let input = try E.stream(video: .h264, audio: nil, frames: 3)
        _ = try converter.feed(input[1])  // a frame before the sequence header
        _ = try converter.feed(FLVStreamTag(type: .scriptData, timestamp: 0, data: [0x02, 0x00, 0x00]))
        _ = try converter.feed(FLVStreamTag(type: .video, timestamp: 0, data: []))
        _ = try converter.feed(FLVStreamTag(type: .audio, timestamp: 0, data: [0xAF, 0x01, 1, 2]))  // AAC without its header
        _ = try converter.feed(FLVStreamTag(type: .video, timestamp: 0, data: [0x17, 0x00, 0, 0, 0, 1]))  // a broken avcC
        var expected = FLVToTSConverter.Statistics()
        expected.framesWithoutConfiguration = 2
        expected.malformedTags = 2
        expected.ignoredTags = 1
        #expect(converter.statistics == expected)
        for tag in input { _ = try converter.feed(tag) }
        #expect(!converter.flush().isEmpty)
    }

    @Test func anAACConfigurationChangeKeepsTheProgram() throws {
        var input = try E.stream(video: nil, audio: .aac, frames: 10)
        let mono = try AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 1)
        // Sent with the frame it comes before: that is where TS→FLV puts it back (ADTS carries it in every frame).
        let index = try #require(input.firstIndex { $0.timestamp >= 200 })
        input.insert(try E.audioTag(.aac, .sequenceStart, timestamp: input[index].timestamp, payload: mono.bytes), at: index)
        let (ts, converter) = try E.ts(input, expectsVideo: false, expectsAudio: true)
        #expect(converter.statistics.programChanges == 0)
        #expect(E.tags(E.flv(ts).events) == input)
    }

    @Test func resetForgetsTheConfiguration() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 5)
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: true)
        var first: [[UInt8]] = []
        for tag in input { first += try converter.feed(tag) }
        first += converter.flush()
        converter.reset()
        _ = try converter.feed(input[2])
        #expect(converter.statistics.framesWithoutConfiguration == 1)
        converter.reset()
        var second: [[UInt8]] = []
        for tag in input { second += try converter.feed(tag) }
        second += converter.flush()
        #expect(first == second)
    }
}
