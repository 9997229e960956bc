import Testing
@testable import MediaFormats

/// Mux then demux: the same access units and timestamps come back.
@Suite struct TSRoundTripTests {
    typealias S = TSTestSupport

    func byPID(_ units: [TSAccessUnit]) -> [TSAccessUnit] { units.filter { $0.pid == 0x100 } + units.filter { $0.pid != 0x100 } }
    func byPID(_ units: [TSMuxer.AccessUnit]) -> [TSMuxer.AccessUnit] { units.filter { $0.pid == 0x100 } + units.filter { $0.pid != 0x100 } }

    @Test func h264AndAACComeBack() throws {
        var muxer = try TSMuxer(streams: [.video(.h264), .audio(.aac)])
        var out: [UInt8] = []
        var written: [TSMuxer.AccessUnit] = []
        for index in 0..<50 {
            let dts = 900_000 + Int64(index) * 3600
            written.append(.init(pid: 0x100, pts: dts + 7200, dts: dts, isKeyframe: index % 25 == 0,
                                 payload: index % 25 == 0 ? S.h264IDR : S.h264P(index * 53 % 3000)))
            written.append(.init(pid: 0x101, pts: 900_000 + Int64(index) * 1920,
                                 payload: (0..<(100 + index)).map { UInt8(truncatingIfNeeded: $0 * index) },
                                 audioSpecificConfig: S.aacConfig))
        }
        for unit in written { try muxer.write(unit, into: &out) }
        let (events, statistics) = S.demux(out, byteByByte: true)
        #expect(statistics == TSDemuxer.Statistics(packets: out.count / 188))
        let units = S.accessUnits(events)
        #expect(units.count == written.count)
        for (found, unit) in zip(byPID(units), byPID(written)) {
            #expect(found.pid == unit.pid && found.payload == unit.payload && found.pts == unit.pts)
            #expect((found.dts ?? found.pts) == (unit.dts ?? unit.pts))
            #expect(found.isKeyframe == (unit.pid == 0x101 || unit.isKeyframe))
            #expect(found.audioSpecificConfig == unit.audioSpecificConfig)
        }
    }

    @Test func hevcAndOpusComeBack() throws {
        let main = HEVCFixtures.main
        let header = OpusIDHeader(channelCount: 2, preSkip: 312, inputSampleRate: 48000)
        let opus = TSStreamCodec.opus(try OpusAudioDescriptor(idHeader: header))
        var muxer = try TSMuxer(streams: [.video(.hevc, extradata: main.hvcC), .audio(opus)])
        var out: [UInt8] = []
        var written: [TSMuxer.AccessUnit] = []
        for index in 0..<20 {
            let idr = index % 10 == 0
            written.append(.init(pid: 0x100, pts: Int64(index) * 3000, isKeyframe: idr,
                                 payload: annexB([S.hevcAUD, idr ? S.hevcIDRSlice : S.hevcTrailSlice])))
            written.append(.init(pid: 0x101, pts: Int64(index) * 1800, payload: S.opusPacket(60 + index * 20, fill: UInt8(index)),
                                 opusTrim: index == 0 ? (start: 312, end: nil) : (nil, nil)))
        }
        for unit in written { try muxer.write(unit, into: &out) }
        let events = S.demux(out).events
        #expect(events.first == .program(ProgramMapTable(
            programNumber: 1, pcrPID: 0x100, streams: [.init(codec: .hevc, pid: 0x100), .init(codec: opus, pid: 0x101)])))
        let units = S.accessUnits(events)
        #expect(units.count == written.count)
        // Video PES are unbounded, so each comes out when the next starts: compare stream by stream.
        for (found, unit) in zip(byPID(units), byPID(written)) {
            let expected = unit.pid == 0x100 && unit.isKeyframe
                ? annexB([S.hevcAUD, main.vps, main.sps, main.pps, S.hevcIDRSlice]) : unit.payload
            #expect(found.payload == expected && found.pts == unit.pts && found.dts == nil)
        }
        let opusUnits = units.filter { $0.pid == 0x101 }
        #expect(opusUnits[0].opusTrim == .init(start: 312, end: nil) && opusUnits[1].opusTrim == nil)
        #expect(units.filter { $0.codec == .hevc }.map(\.isKeyframe) == (0..<20).map { $0 % 10 == 0 })
    }

    @Test func timestampsWrapAt33BitsAndUnwrap() throws {
        var muxer = try TSMuxer(streams: [.video(.h264)])
        var out: [UInt8] = []
        let start: Int64 = (1 << 33) - 5 * 3600
        for index in 0..<10 {
            let dts = start + Int64(index) * 3600
            try muxer.write(.init(pid: 0x100, pts: dts + 3600, dts: dts, isKeyframe: index == 0,
                                  payload: index == 0 ? S.h264IDR : S.h264P(20)), into: &out)
        }
        let units = S.accessUnits(S.demux(out).events)
        #expect(units.map { $0.dts ?? -1 } == (0..<10).map { (start + Int64($0) * 3600) & ((1 << 33) - 1) })
        var unwrapper = TSTimestampUnwrapper()
        #expect(units.map { unwrapper.unwrap($0.dts ?? 0) } == (0..<10).map { start + Int64($0) * 3600 })
        // The PCR wraps with them.
        let pcrs = try S.packets(out).compactMap { $0.adaptationField?.pcr?.base }
        #expect(pcrs.first == start && pcrs.last == (start + 9 * 3600) & ((1 << 33) - 1))
    }

    @Test func aacFramesOfOnePESAreTimedLikeFFprobe() {
        // ffprobe's interpolation for 44.1 kHz from the fixture: 131110 → 133200 → 135290 → 137380 → 139469.
        var pts: Int64 = 131_110
        var found: [Int64] = [pts]
        for _ in 0..<4 {
            pts += TSAccessUnitSplitter.frameStep(after: pts, rate: 44100)
            found.append(pts)
        }
        #expect(found == [131_110, 133_200, 135_290, 137_380, 139_469])
        #expect(TSAccessUnitSplitter.frameStep(after: 0, rate: 48000) == 1920)
    }
}
