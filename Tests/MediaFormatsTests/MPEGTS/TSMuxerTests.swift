import Testing
@testable import MediaFormats

/// The muxer's rules, each read back from its packets.
@Suite struct TSMuxerTests {
    typealias S = TSTestSupport
    let video = TSMuxer.defaultVideoPID
    let audio = TSMuxer.defaultAudioPID

    func h264AAC() throws -> TSMuxer { try TSMuxer(streams: [.video(.h264), .audio(.aac)]) }

    func videoUnit(_ index: Int, key: Bool = false, size: Int = 300) -> TSMuxer.AccessUnit {
        let dts = Int64(index) * 3600
        return TSMuxer.AccessUnit(pid: video, pts: dts + 3600, dts: dts, isKeyframe: key,
                                  payload: key ? S.h264IDR : S.h264P(size))
    }

    func audioUnit(_ pts: Int64, size: Int = 200) -> TSMuxer.AccessUnit {
        TSMuxer.AccessUnit(pid: audio, pts: pts, payload: [UInt8](repeating: 0x21, count: size), audioSpecificConfig: S.aacConfig)
    }

    @Test func patAndPMTComeFirst() throws {
        var muxer = try h264AAC()
        var out: [UInt8] = []
        try muxer.write(videoUnit(0, key: true), into: &out)
        let packets = try S.packets(out)
        #expect(packets.prefix(3).map(\.header.pid) == [0, 0x1000, video])
        #expect(packets.prefix(3).allSatisfy { $0.header.payloadUnitStartIndicator })
        let pat = try ProgramAssociationTable(section: PSISection(parsing: packets[0].payload.dropFirst()))
        #expect(pat.programs == [.init(programNumber: 1, pid: 0x1000)])
        let pmt = try ProgramMapTable(section: PSISection(parsing: packets[1].payload.dropFirst()))
        #expect(pmt.pcrPID == video && pmt.streams.map(\.codec) == [.h264, .aac] && pmt.streams.map(\.pid) == [video, audio])
        // The rest of a table packet is 0xFF.
        #expect(packets[0].payload.suffix(100).allSatisfy { $0 == 0xFF })
    }

    @Test func tablesRepeatByStreamTimeAndBeforeEveryKeyframe() throws {
        var muxer = try h264AAC()
        var out: [UInt8] = []
        var tablesBefore: [Int] = []
        for index in 0..<20 {
            let start = out.count
            try muxer.write(videoUnit(index, key: index == 0 || index == 12), into: &out)
            if try S.packets(Array(out[start...])).first?.header.pid == 0 { tablesBefore.append(index) }
        }
        // 40 ms frames: 100 ms have passed at frames 3, 6, 9 …; frame 12 is a keyframe and would be due anyway,
        // frame 13 is not (only 40 ms after 12).
        #expect(tablesBefore == [0, 3, 6, 9, 12, 15, 18])
        var keyframeOnly = try TSMuxer(configuration: {
            var configuration = TSMuxer.Configuration(streams: [.video(.h264)])
            configuration.tableInterval = 1_000_000
            return configuration
        }())
        var sparse: [UInt8] = []
        for index in 0..<6 { try keyframeOnly.write(videoUnit(index, key: index == 4), into: &sparse) }
        #expect(try S.packets(sparse).filter { $0.header.pid == 0 }.count == 2)
    }

    @Test func pcrOnTheFirstPacketOfEachVideoPESAndEvery100ms() throws {
        var configuration = TSMuxer.Configuration(streams: [.video(.h264), .audio(.aac)])
        configuration.pcrLead = 1000
        var muxer = try TSMuxer(configuration: configuration)
        var out: [UInt8] = []
        try muxer.write(videoUnit(0, key: true), into: &out)
        try muxer.write(videoUnit(1, size: 1000), into: &out)
        // Only audio for 300 ms: the video PID carries PCR-only packets at least every 100 ms.
        for index in 0..<15 { try muxer.write(audioUnit(7200 + Int64(index) * 1920), into: &out) }
        let packets = try S.packets(out)
        let pcrs = packets.compactMap { packet in packet.adaptationField?.pcr.map { (packet, $0.base) } }
        #expect(pcrs.allSatisfy { $0.0.header.pid == video })
        let pesStarts = packets.filter { $0.header.pid == video && $0.header.payloadUnitStartIndicator }
        #expect(pesStarts.map { $0.adaptationField?.pcr?.base } == [-1000 & ((1 << 33) - 1), 2600])
        let pcrOnly = pcrs.filter { !$0.0.header.adaptationFieldControl.hasPayload }.map(\.1)
        // Due once 70 ms have passed, so with 20 ms audio frames the gaps stay under 100 ms.
        #expect(pcrOnly == [10040, 17720, 25400, 33080])
        #expect(zip([2600] + pcrOnly, pcrOnly).allSatisfy { $1 - $0 <= 9000 })
    }

    @Test func continuityCountersIncrementPerPIDOnPayloadPacketsOnly() throws {
        var muxer = try h264AAC()
        var out: [UInt8] = []
        for index in 0..<30 {
            try muxer.write(videoUnit(index, key: index % 10 == 0, size: 50 + index * 37), into: &out)
            try muxer.write(audioUnit(Int64(index) * 3600, size: 150 + index * 3), into: &out)
        }
        var last: [UInt16: UInt8] = [:]
        for packet in try S.packets(out) {
            let pid = packet.header.pid
            let counter = packet.header.continuityCounter
            guard packet.header.adaptationFieldControl.hasPayload else {
                #expect(counter == last[pid] ?? 0, "an adaptation-only packet repeats the counter")
                continue
            }
            #expect(counter == last[pid].map { ($0 + 1) % 16 } ?? 0, "PID \(pid)")
            last[pid] = counter
        }
        #expect(Set(last.keys) == [0, 0x1000, video, audio])
    }

    @Test(arguments: [1, 100, 168, 169, 170, 171, 176, 177, 178, 182, 183, 184, 185, 400, 1000])
    func lastPacketIsStuffedThroughTheAdaptationField(_ size: Int) throws {
        var muxer = try TSMuxer(streams: [.audio(.aac)])
        var out: [UInt8] = []
        try muxer.write(audioUnit(90000, size: size), into: &out)
        let packets = try S.packets(out).filter { $0.header.pid == audio }
        let pes = packets.flatMap(\.payload)
        var header = PESPacketHeader(streamID: 0xC0, pts: 90000)
        var expected: [UInt8] = []
        try header.write(payloadLength: 7 + size, unboundedLength: false, into: &expected)
        try ADTSHeader(audioSpecificConfig: S.aacConfig, payloadLength: size).write(into: &expected)
        expected += [UInt8](repeating: 0x21, count: size)
        #expect(pes == expected)
        #expect(packets.dropLast().allSatisfy { $0.adaptationField == nil || $0.header.payloadUnitStartIndicator })
        if let last = packets.last, pes.count % 184 != 0 || packets.count == 1 {
            #expect(last.adaptationField != nil || last.payload.count == 184)
        }
        #expect(out.count % 188 == 0)
    }

    @Test func randomAccessIndicatorMarksKeyframes() throws {
        var muxer = try h264AAC()
        var out: [UInt8] = []
        try muxer.write(videoUnit(0, key: true), into: &out)
        try muxer.write(videoUnit(1), into: &out)
        // An IDR found in the NAL units counts even when the caller did not say so.
        var detected = videoUnit(2)
        detected.payload = S.h264IDR
        try muxer.write(detected, into: &out)
        let starts = try S.packets(out).filter { $0.header.pid == video && $0.header.payloadUnitStartIndicator }
        #expect(starts.map { $0.adaptationField?.randomAccessIndicator ?? false } == [true, false, true])
    }

    @Test func accessUnitDelimitersAreInsertedOnlyWhenMissing() throws {
        var muxer = try TSMuxer(streams: [.video(.h264), .init(pid: 0x102, codec: .hevc)])
        var out: [UInt8] = []
        let withAUD = S.h264P(10)
        let withoutAUD = annexB([H264Fixtures.closedGOPSlices[1]])
        let hevcWithout = annexB([S.hevcTrailSlice])
        try muxer.write(.init(pid: video, pts: 0, payload: withAUD), into: &out)
        try muxer.write(.init(pid: video, pts: 3600, payload: withoutAUD), into: &out)
        try muxer.write(.init(pid: 0x102, pts: 0, payload: hevcWithout), into: &out)
        let units = S.accessUnits(S.demux(out).events)
        #expect(units.map(\.payload) == [
            withAUD, TSVideoAccessUnitPreparer.h264AccessUnitDelimiter + withoutAUD,
            TSVideoAccessUnitPreparer.hevcAccessUnitDelimiter + hevcWithout,
        ])
    }

    @Test func parameterSetsGoBeforeAnIDRThatLacksThem() throws {
        // Seeded from extradata (Annex B), and then from the in-band sets of the first keyframe.
        var muxer = try TSMuxer(streams: [.video(.h264, extradata: annexB([S.sps, S.pps]))])
        var out: [UInt8] = []
        let bareIDR = annexB([S.h264AUD, H264Fixtures.closedGOPSlices[0]])
        try muxer.write(.init(pid: video, pts: 0, isKeyframe: true, payload: bareIDR), into: &out)
        try muxer.write(.init(pid: video, pts: 3600, payload: S.h264P(5)), into: &out)
        let units = S.accessUnits(S.demux(out).events)
        #expect(units[0].payload == annexB([S.h264AUD, S.sps, S.pps, H264Fixtures.closedGOPSlices[0]]))
        #expect(units[1].payload == S.h264P(5))

        var hevc = try TSMuxer(streams: [.video(.hevc)])
        var hevcOut: [UInt8] = []
        let main = HEVCFixtures.main
        try hevc.write(.init(pid: video, pts: 0, payload: annexB([main.vps, main.sps, main.pps, S.hevcIDRSlice])), into: &hevcOut)
        try hevc.write(.init(pid: video, pts: 3600, payload: annexB([S.hevcIDRSlice])), into: &hevcOut)
        let hevcUnits = S.accessUnits(S.demux(hevcOut).events)
        #expect(hevcUnits.map(\.isKeyframe) == [true, true])
        #expect(hevcUnits[1].payload == annexB([S.hevcAUD, main.vps, main.sps, main.pps, S.hevcIDRSlice]))
    }

    @Test func datagramsOfSevenPackets() throws {
        var muxer = try h264AAC()
        var queue = TSDatagramQueue()
        var all: [UInt8] = []
        var datagrams: [[UInt8]] = []
        for index in 0..<10 {
            var out: [UInt8] = []
            try muxer.write(videoUnit(index, key: index == 0, size: 700), into: &out)
            all += out
            queue.append(out)
            while let datagram = queue.nextDatagram() { datagrams.append(datagram) }
        }
        #expect(datagrams.allSatisfy { $0.count == 1316 })
        let rest = queue.flush() ?? []
        #expect(rest.count < 1316 && rest.count % 188 == 0)
        #expect(datagrams.flatMap { $0 } + rest == all)
        #expect(queue.flush() == nil)
    }

    static let badConfigurations: [(name: String, streams: [TSMuxer.Stream], error: MediaFormatError)] = [
        ("no streams", [], .invalid(structure: "TS muxer configuration", reason: "no elementary streams")),
        ("PID used twice", [.video(.h264), .init(pid: 0x100, codec: .aac)],
         .invalid(structure: "TS muxer configuration", reason: "PID 0x100 is reserved or used twice")),
        ("reserved PID", [.init(pid: 0x0F, codec: .aac)],
         .invalid(structure: "TS muxer configuration", reason: "PID 0xf is reserved or used twice")),
        ("PMT's PID", [.init(pid: 0x1000, codec: .aac)],
         .invalid(structure: "TS muxer configuration", reason: "PID 0x1000 is reserved or used twice")),
        ("unknown codec", [.init(pid: 0x100, codec: .other(streamType: 0x03))],
         .unsupported(structure: "TS muxer configuration", reason: "stream_type 0x3 is not muxed")),
    ]

    @Test(arguments: badConfigurations.indices)
    func badConfigurationsThrow(_ index: Int) {
        let row = Self.badConfigurations[index]
        #expect(throws: row.error, "\(row.name)") { try TSMuxer(streams: row.streams) }
    }

    @Test func aCallThatThrowsAppendsNothing() throws {
        var muxer = try h264AAC()
        var out: [UInt8] = [1, 2, 3]
        #expect(throws: MediaFormatError.invalid(structure: "TS access unit", reason: "an AAC access unit needs its AudioSpecificConfig")) {
            try muxer.write(.init(pid: audio, pts: 0, payload: [1]), into: &out)
        }
        #expect(throws: MediaFormatError.invalid(structure: "TS access unit", reason: "PID 0x300 is not in the program")) {
            try muxer.write(.init(pid: 0x300, pts: 0, payload: [1]), into: &out)
        }
        #expect(throws: MediaFormatError.self) {
            try muxer.write(audioUnit(0, size: 9000), into: &out)  // past the 13-bit aac_frame_length
        }
        #expect(out == [1, 2, 3])
    }
}
