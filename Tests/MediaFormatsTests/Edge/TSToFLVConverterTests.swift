import Testing
@testable import MediaFormats

/// Transport streams as an SRT ingest delivers them, damaged or not, turned into FLV tags.
@Suite struct TSToFLVConverterTests {
    typealias E = EdgeTestSupport
    typealias S = TSTestSupport

    /// The 188-byte packets of `bytes`.
    func packets(_ bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: 188).map { Array(bytes[$0..<min($0 + 188, bytes.count)]) }
    }

    func pid(_ packet: [UInt8]) -> UInt16 { UInt16(packet[1] & 0x1F) << 8 | UInt16(packet[2]) }
    func unitStart(_ packet: [UInt8]) -> Bool { packet[1] & 0x40 != 0 }

    @Test func ffmpegStreamBecomesTags() throws {
        let (events, converter) = E.flv(TSFixtures.ffmpegH264AAC)
        let tags = E.tags(events)
        let video = E.tags(tags, .video)
        let audio = E.tags(tags, .audio)
        // The clock starts at the first video DTS (126000), which the demuxer completes after the first audio frames.
        #expect(video.map(\.timestamp) == [0, 0, 40, 80])
        #expect(try video.map { try FLVVideoData(parsing: $0.data).tracks[0].compositionTime } == [0, 80, 120, 40])
        #expect(try video.map { try FLVVideoData(parsing: $0.data).packetType } == [.sequenceStart, .codedFrames, .codedFrames, .codedFrames])
        #expect(try FLVVideoData(parsing: video[1].data).isKeyframe)
        let record = try AVCDecoderConfigurationRecord(parsing: Array(try FLVVideoData(parsing: video[0].data).tracks[0].payload))
        #expect(record.nalUnitLengthSize == 4 && record.sequenceParameterSets.count == 1 && record.pictureParameterSets.count == 1)
        // ffprobe's audio PTS (131110 …) from 126000, rounded to ms.
        #expect(audio.map(\.timestamp) == [57, 57, 80, 103, 126, 150, 173, 196])
        #expect(audio[0].data == [0xAF, 0x00] + (try AudioSpecificConfig(objectType: 2, samplingFrequency: 44100, channelConfiguration: 1)).bytes)
        // ADTS sizes less the 7-byte header, plus the 2-byte FLV AAC header.
        #expect(audio.dropFirst().map(\.data.count) == [260, 260, 148, 188, 210, 287, 7])
        #expect(converter.statistics.timestampsClampedToOrigin == 0)
        #expect(converter.statistics.framesBeforeKeyframe == 0)
    }

    @Test func garbageBetweenDatagramsIsSkipped() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 12)
        let clean = try E.ts(input, expectsVideo: true, expectsAudio: true).bytes
        var damaged: [UInt8] = []
        var garbage = 0
        for (index, start) in stride(from: 0, to: clean.count, by: 1316).enumerated() {
            let run = (0..<(index * 13 % 50)).map { UInt8(truncatingIfNeeded: $0 * 31 + 1) }.filter { $0 != 0x47 }
            damaged += run + clean[start..<min(start + 1316, clean.count)]
            garbage += run.count
        }
        let (events, converter) = E.flv(damaged, chunk: 1316)
        #expect(E.tags(events) == E.flv(clean).events.compactMap { if case let .tag(tag) = $0 { tag } else { nil } })
        #expect(converter.statistics.demuxer.bytesSkipped == garbage)
        #expect(garbage > 0)
    }

    @Test("damage is named by its counts: garbage that never syncs counts at once, and a PMT that changes the program is one change")
    func damageIsNamedByItsCounts() throws {
        let both = try E.ts(try E.stream(video: .h264, audio: .aac, frames: 12), expectsVideo: true, expectsAudio: true).bytes
        let audioOnly = try E.ts(try E.stream(video: nil, audio: .aac, frames: 5), expectsVideo: false, expectsAudio: true).bytes
        var converter = TSToFLVConverter()
        _ = converter.feed(both)
        #expect(converter.statistics.damage.isEmpty && converter.statistics.damageDescription == nil && converter.statistics.damageCount == 0)
        _ = converter.feed(audioOnly)
        #expect(converter.statistics.programChanges == 1)
        #expect(converter.statistics.damageDescription?.contains("1 program changes") == true, "\(converter.statistics.damage)")
        let before = converter.statistics.damageCount
        // 5,000 bytes without a sync byte: skipped before any packet comes to end the run (all but the last 187, which
        // could still be the start of a packet).
        _ = converter.feed([UInt8](repeating: 0x11, count: 5000))
        #expect(converter.statistics.demuxer.bytesSkipped == 5000 - 187)
        #expect(converter.statistics.damageCount == before + 5000 - 187)
        #expect(converter.statistics.damageCount == converter.statistics.damage.reduce(0) { $0 + $1.count })
        _ = converter.flush()
        #expect(converter.statistics.demuxer.bytesSkipped == 5000, "the run is counted once, at its end as before it")
    }

    @Test func aContinuityErrorLosesOneFrame() throws {
        let input = try E.stream(video: .h264, audio: .aac, frames: 20)
        let clean = packets(try E.ts(input, expectsVideo: true, expectsAudio: true).bytes)
        // The packet after the start of the second keyframe's PES (frame 10).
        let starts = clean.indices.filter { pid(clean[$0]) == TSMuxer.defaultVideoPID && unitStart(clean[$0]) }
        var damaged = clean
        damaged.remove(at: starts[10] + 1)
        let (events, converter) = E.flv(damaged.flatMap { $0 })
        #expect(converter.statistics.demuxer.continuityErrors == 1)
        var expected = E.tags(input, .video)
        expected.remove(at: 11)  // sequence header, then frames 0…
        #expect(E.tags(E.tags(events), .video) == expected)
        #expect(E.tags(E.tags(events), .audio) == E.tags(input, .audio))
    }

    @Test func aTruncatedPESIsCountedAndDropped() throws {
        var input = try E.stream(video: nil, audio: .aac, frames: 5)
        // A last frame spanning several packets, then cut after its first packet.
        input.append(try E.audioTag(.aac, .codedFrames, timestamp: 500, payload: [UInt8](repeating: 0x21, count: 600)))
        let bytes = try E.ts(input, expectsVideo: false, expectsAudio: true).bytes
        let all = packets(bytes)
        let lastStart = try #require(all.lastIndex { pid($0) == TSMuxer.defaultAudioPID && unitStart($0) })
        let (events, converter) = E.flv(all[...lastStart].flatMap { $0 })
        #expect(converter.statistics.demuxer.truncatedPES == 1)
        #expect(E.tags(events) == Array(input.dropLast()))
    }

    @Test func framesBeforeTheFirstKeyframeAreSkipped() throws {
        let whole = try E.stream(video: .h264, audio: nil, frames: 20)
        // Joined mid-GOP: frames 3…9 have no keyframe before them.
        let input = [whole[0]] + whole[4...]
        let (events, converter) = E.flv(try E.ts(input, expectsVideo: true, expectsAudio: false).bytes)
        #expect(converter.statistics.framesBeforeKeyframe == 7)
        let tags = E.tags(events)
        #expect(tags.count == 11)
        // The clock starts at frame 3's DTS (120 ms): the keyframe (frame 10, 400 ms) is at 280 ms.
        #expect(tags.map(\.timestamp) == [280] + (10..<20).map { Int64($0) * 40 - 120 })
        #expect(try FLVVideoData(parsing: tags[0].data).isSequenceStart)
        #expect(try FLVVideoData(parsing: tags[1].data).isKeyframe)
    }

    @Test func aCodecChangeInThePMTGetsANewSequenceHeader() throws {
        // H.264 then HEVC on the same PID: FLVToTSConverter replaces the program (PMT version 1).
        let h264 = try E.stream(video: .h264, audio: .aac, frames: 10)
        let hevc = try E.stream(video: .hevc, audio: nil, frames: 10, start: 400).filter { $0.type == .video }
        let input = h264 + hevc
        let (ts, muxing) = try E.ts(input, expectsVideo: true, expectsAudio: true)
        #expect(muxing.statistics.programChanges == 1)
        let versions = S.demux(ts).events.compactMap { if case let .program(pmt) = $0 { pmt.version } else { nil } }
        #expect(versions == [0, 1])
        let (events, converter) = E.flv(ts)
        // The last H.264 frame is lost: its PES has no length (video), so the demuxer cannot tell it was whole when the
        // new PMT changed the PID's codec, and drops it.
        var expected = E.tags(input, .video)
        expected.remove(at: 10)
        #expect(E.tags(E.tags(events), .video) == expected)
        #expect(try FLVVideoData(parsing: expected[10].data).tracks.first?.codec == .fourCC(.hvc1))
        #expect(E.tags(E.tags(events), .audio) == E.tags(input, .audio))
        #expect(converter.statistics.demuxer.continuityErrors == 0)
    }

    @Test func theClockWrapIsInvisible() throws {
        // The 33-bit clock wraps 0.5 s into the stream.
        let input = try E.stream(video: .h264, audio: .aac, frames: 40)
        let ts = try E.ts(input, expectsVideo: true, expectsAudio: true, startTicks: (1 << 33) - 45000).bytes
        let (events, converter) = E.flv(ts)
        #expect(E.tags(E.tags(events), .video) == E.tags(input, .video))
        #expect(E.tags(E.tags(events), .audio) == E.tags(input, .audio))
        #expect(converter.statistics.discontinuities == 0)
    }

    struct Jump: Sendable, CustomTestStringConvertible {
        var name: String
        var secondStartTicks: Int64
        var expectedJump: ClosedRange<Int64>
        var testDescription: String { name }
    }

    @Test(arguments: [
        // The first part runs from 40 s to 40.8 s of clock.
        Jump(name: "60 s ahead", secondStartTicks: 126_000 + 100 * 90000, expectedJump: 59_150...59_250),
        Jump(name: "30 s back", secondStartTicks: 126_000 + 10 * 90000, expectedJump: -30_850 ... -30_750),
    ])
    func aClockJumpStartsASegmentAtZero(_ jump: Jump) throws {
        let first = try E.stream(video: .h264, audio: .aac, frames: 20, start: 0)
        let second = try E.stream(video: .h264, audio: .aac, frames: 20, start: 0)
        // The first part placed 40 s in, so a jump back stays within the clock.
        let part1 = try E.ts(first, expectsVideo: true, expectsAudio: true, startTicks: 126_000 + 40 * 90000).bytes
        let part2 = try E.ts(second, expectsVideo: true, expectsAudio: true, startTicks: jump.secondStartTicks).bytes
        let (events, converter) = E.flv(part1 + part2)
        let cut = try #require(events.firstIndex { if case .discontinuity = $0 { true } else { false } })
        guard case let .discontinuity(discontinuity) = events[cut] else { return }
        #expect(jump.expectedJump.contains(discontinuity.jump))
        #expect(!discontinuity.indicated)
        #expect(converter.statistics.discontinuities == 1)
        // After it, the second part's frames from 0 again (its sequence headers are the same, so not sent again).
        let after = E.tags(Array(events[(cut + 1)...]))
        #expect(E.tags(after, .audio) == Array(E.tags(second, .audio).dropFirst()))
        #expect(E.tags(after, .video) == Array(E.tags(second, .video).dropFirst()))
        // Before it, the first part's tags; its last video frame, whose PES the second part's counters cut, is lost.
        let before = E.tags(Array(events[..<cut]))
        #expect(E.tags(before, .audio) == E.tags(first, .audio))
        #expect(E.tags(before, .video) == Array(E.tags(first, .video).dropLast()))
    }

    @Test func unsupportedAndExtraStreamsAreCounted() throws {
        let pmt = ProgramMapTable(programNumber: 1, pcrPID: 0x101, streams: [
            .init(codec: .aac, pid: 0x101), .init(codec: .other(streamType: 0x03), pid: 0x102), .init(codec: .aac, pid: 0x103),
        ])
        var packetizer = TSPacketizer()
        var out: [UInt8] = []
        try packetizer.write(section: ProgramAssociationTable(programs: [.init(programNumber: 1, pid: 0x1000)]).section,
                             pid: 0, into: &out)
        try packetizer.write(section: try pmt.section(), pid: 0x1000, into: &out)
        for (index, pid) in [UInt16(0x101), 0x102, 0x103, 0x101, 0x102].enumerated() {
            var pes: [UInt8] = []
            var header = PESPacketHeader(streamID: 0xC0, pts: 9000 + Int64(index) * 1920)
            try header.write(payloadLength: 13, unboundedLength: false, into: &pes)
            try ADTSHeader(audioSpecificConfig: S.aacConfig, payloadLength: 6).write(into: &pes)
            pes += [1, 2, 3, 4, 5, UInt8(index)]
            packetizer.write(pes, pid: pid, adaptationField: nil, stuffing: .adaptationField, into: &out)
        }
        let (events, converter) = E.flv(out)
        #expect(E.tags(events).map(\.timestamp) == [0, 0, 64])
        #expect(converter.statistics.unsupportedAccessUnits == [0x03: 2])
        #expect(converter.statistics.ignoredAccessUnits == 1)
    }

    @Test func aNewProgramInThePATIsFollowed() throws {
        // Program 1 on PMT PID 0x1000, then (a new source behind the same SRT socket) program 2 on PMT PID 0x1001.
        var out: [UInt8] = []
        for (number, pmtPID) in [(UInt16(1), UInt16(0x1000)), (2, 0x1001)] {
            var configuration = TSMuxer.Configuration(streams: [.audio(.aac)])
            configuration.programNumber = number
            configuration.pmtPID = pmtPID
            var muxer = try TSMuxer(configuration: configuration)
            // 8 frames span 150 ms: the tables go out twice, so the second PAT's counter is not taken for a duplicate.
            for index in 0..<8 {
                try muxer.write(.init(pid: TSMuxer.defaultAudioPID, pts: 9000 + Int64(index) * 1920, payload: [1, 2, 3, UInt8(index)],
                                      audioSpecificConfig: S.aacConfig), into: &out)
            }
        }
        let (events, converter) = E.flv(out)
        // A sequence header (AACPacketType 0) and 8 frames from each program; the second's clock runs as the first's did
        // (a step back of 150 ms: not a new clock).
        let program = ["0@0"] + [0, 21, 43, 64, 85, 107, 128, 149].map { "1@\($0)" }
        #expect(E.tags(events).map { "\($0.data[1])@\($0.timestamp)" } == program + program)
        #expect(converter.statistics.ignoredAccessUnits == 0)
    }

    @Test func resetForgetsTheStream() throws {
        let ts = try E.ts(try E.stream(video: .h264, audio: .aac, frames: 5), expectsVideo: true, expectsAudio: true).bytes
        var converter = TSToFLVConverter()
        let first = converter.feed(ts) + converter.flush()
        converter.reset()
        #expect(converter.statistics == TSToFLVConverter.Statistics())
        #expect(converter.feed(ts) + converter.flush() == first)
    }
}
