import Testing
@testable import MediaFormats

/// FLV tags → TS → FLV tags gives the same tags back: the same sequence headers (the records are rebuilt from the
/// parameter sets carried in band, as the originals were built), frames (no in-band parameter sets either way), times
/// and composition times.
@Suite struct EdgeRoundTripTests {
    typealias E = EdgeTestSupport

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var video: E.Video?
        var audio: E.Audio?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "H.264 + AAC", video: .h264, audio: .aac),
        Case(name: "HEVC + AAC", video: .hevc, audio: .aac),
        Case(name: "H.264 only", video: .h264, audio: nil),
        Case(name: "AAC only", video: nil, audio: .aac),
        Case(name: "Opus only", video: nil, audio: .opus),
        Case(name: "HEVC + Opus", video: .hevc, audio: .opus),
    ]

    @Test(arguments: cases) func tagsComeBack(_ testCase: Case) throws {
        let input = try E.stream(video: testCase.video, audio: testCase.audio)
        let (ts, muxing) = try E.ts(input, expectsVideo: testCase.video != nil, expectsAudio: testCase.audio != nil)
        #expect(muxing.statistics == FLVToTSConverter.Statistics())
        #expect(ts.count % TSPacketHeader.packetSize == 0)
        let (events, converter) = E.flv(ts)
        let output = E.tags(events)
        #expect(E.tags(output, .video) == E.tags(input, .video))
        #expect(E.tags(output, .audio) == E.tags(input, .audio))
        #expect(output.count == input.count)
        #expect(converter.statistics.demuxer == TSDemuxer.Statistics(packets: ts.count / TSPacketHeader.packetSize))
        var clean = converter.statistics
        clean.demuxer = TSDemuxer.Statistics()
        #expect(clean == TSToFLVConverter.Statistics())
    }

    @Test(arguments: [1, 7, 188, 1316, 5000]) func anyChunkingGivesTheSameEvents(_ chunk: Int) throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 12)
        let ts = try E.ts(input, expectsVideo: true, expectsAudio: true).bytes
        let whole = E.flv(ts)
        let pieces = E.flv(ts, chunk: chunk)
        #expect(pieces.events == whole.events)
        #expect(pieces.converter.statistics == whole.converter.statistics)
        #expect(!E.tags(whole.events).isEmpty)
    }

    @Test func outputComesInSRTDatagrams() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 12)
        var converter = FLVToTSConverter(expectsVideo: true, expectsAudio: true)
        var datagrams: [[UInt8]] = []
        for tag in input { datagrams += try converter.feed(tag) }
        #expect(!datagrams.isEmpty)
        #expect(datagrams.allSatisfy { $0.count == 1316 })
        let last = converter.flush()
        #expect(last.count <= 1)
        #expect(last.allSatisfy { $0.count <= 1316 && $0.count % 188 == 0 })
    }

    @Test func inBandParameterSetsAreTakenOutOfTheFrames() throws {
        // A publisher that repeats SPS/PPS inside its keyframes: they come back as the sequence header only.
        var input = try E.stream(video: .h264, audio: nil, frames: 10)
        let keyframe = E.avcc([TSTestSupport.sps, TSTestSupport.pps, H264Fixtures.closedGOPSlices[0]])
        input[1] = try E.videoTag(.h264, .codedFrames, keyframe: true, timestamp: 0, compositionTime: 80, payload: keyframe)
        let output = E.tags(E.flv(try E.ts(input, expectsVideo: true, expectsAudio: false).bytes).events)
        #expect(output[0] == input[0])
        #expect(output[1] == (try E.videoTag(.h264, .codedFrames, keyframe: true, timestamp: 0, compositionTime: 80,
                                             payload: E.avcc([H264Fixtures.closedGOPSlices[0]]))))
        #expect(Array(output[2...]) == Array(input[2...]))
    }
}
