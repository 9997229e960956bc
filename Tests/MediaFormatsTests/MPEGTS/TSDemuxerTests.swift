import SluiceTestSupport
import Testing
@testable import MediaFormats

/// The demuxer on ffmpeg's output and on damaged input; every case is also fed byte by byte.
@Suite struct TSDemuxerTests {
    typealias S = TSTestSupport

    @Test func ffmpegFixtureMatchesFFprobe() throws {
        let (events, statistics) = S.demux(TSFixtures.ffmpegH264AAC)
        let programs = events.compactMap { if case let .program(pmt) = $0 { pmt } else { nil } }
        #expect(programs.count == 1)
        #expect(programs.first?.streams.map(\.codec) == [.h264, .aac])
        let units = S.accessUnits(events)
        // ffprobe lists packets in its own interleaving; compare each stream in order.
        for isVideo in [true, false] {
            let expected = TSFixtures.ffprobePackets.filter { $0.video == isVideo }
            let found = units.filter { $0.codec.isVideo == isVideo }
            #expect(found.count == expected.count)
            #expect(found.map { $0.pts ?? -1 } == expected.map(\.pts))
            #expect(found.map { $0.dts ?? $0.pts ?? -1 } == expected.map(\.dts))
            #expect(found.map { $0.payload.count + (isVideo ? 0 : ADTSHeader.lengthWithoutCRC) } == expected.map(\.size))
        }
        #expect(units.filter(\.isKeyframe).count == 1 + 7)  // the IDR and every AAC frame
        #expect(units.first { $0.codec == .aac }?.audioSpecificConfig?.samplingFrequency == 44100)
        #expect(statistics == TSDemuxer.Statistics(packets: 33))
        #expect(events.contains(.pcr(pid: 0x100, ProgramClockReference(base: 63000))))
    }

    @Test func byteByByteEqualsAllAtOnce() {
        var generator = SeededGenerator(seed: 0x7547)
        let damaged = generator.bytes(50) + TSFixtures.ffmpegH264AAC.prefix(1000) + generator.bytes(7)
            + TSFixtures.ffmpegH264AAC.dropFirst(1128) + [0x47, 0x47, 0x00]
        for input in [TSFixtures.ffmpegH264AAC, damaged] {
            let whole = S.demux(input)
            let single = S.demux(input, byteByByte: true)
            #expect(whole.events == single.events)
            #expect(whole.statistics == single.statistics)
        }
        // In pieces of every small size too.
        for size in [2, 187, 188, 189, 1000] {
            var demuxer = TSDemuxer()
            var events: [TSDemuxerEvent] = []
            var index = 0
            while index < damaged.count {
                events += demuxer.feed(damaged[index..<min(index + size, damaged.count)])
                index += size
            }
            events += demuxer.flush()
            #expect(events == S.demux(damaged).events, "pieces of \(size)")
        }
    }

    @Test func garbageBetweenPacketsIsSkippedAndCounted() {
        let packets = TSFixtures.ffmpegH264AAC
        var input: [UInt8] = [0x47, 0x12, 0x47]  // a sync byte not followed by one 188 bytes on
        for start in stride(from: 0, to: packets.count, by: 188) {
            input += packets[start..<(start + 188)]
            if start / 188 % 5 == 2 { input += [0x00, 0x47, 0xFF, 0x47, 0x47] }
        }
        let (events, statistics) = S.demux(input, byteByByte: true)
        #expect(statistics.bytesSkipped == 3 + 5 * 7)
        #expect(S.errors(events).allSatisfy { if case .bytesSkipped = $0 { true } else { false } })
        #expect(S.accessUnits(events) == S.accessUnits(S.demux(packets).events))
    }

    @Test func continuityGapDropsThePartialPES() throws {
        let packets = try S.packets(TSFixtures.ffmpegH264AAC)
        // Packet 5 is the second packet of the IDR's PES (PID 0x100); drop it.
        #expect(packets[5].header.pid == 0x100 && !packets[5].header.payloadUnitStartIndicator)
        var input = TSFixtures.ffmpegH264AAC
        input.removeSubrange(5 * 188..<6 * 188)
        let (events, statistics) = S.demux(input)
        #expect(S.errors(events) == [.continuityError(pid: 0x100, expected: 2, found: 3)])
        #expect(statistics.continuityErrors == 1)
        let units = S.accessUnits(events)
        #expect(units.filter { $0.codec == .h264 }.map(\.pts) == [140400, 136800])
        #expect(units.filter { $0.codec == .aac }.count == 7)
    }

    @Test func aDuplicatePacketIsTolerated() {
        var input = TSFixtures.ffmpegH264AAC
        input.insert(contentsOf: input[5 * 188..<6 * 188], at: 6 * 188)
        let (events, statistics) = S.demux(input)
        #expect(statistics.duplicatePackets == 1 && S.errors(events).isEmpty)
        #expect(S.accessUnits(events) == S.accessUnits(S.demux(TSFixtures.ffmpegH264AAC).events))
    }

    @Test func truncatedAndOversizePES() throws {
        var muxer = try TSMuxer(streams: [.audio(.aac)])
        var out: [UInt8] = []
        for index in 0..<2 {
            try muxer.write(.init(pid: 0x101, pts: Int64(index) * 1920, payload: [UInt8](repeating: 7, count: 400),
                                  audioSpecificConfig: S.aacConfig), into: &out)
        }
        // The first PES spans 3 packets after PAT and PMT; lose its last one and fix up the counters after it.
        var packets = try S.packets(out)
        packets.remove(at: 4)
        var damaged: [UInt8] = []
        for var packet in packets {
            if packet.header.pid == 0x101 && packet.header.continuityCounter > 2 { packet.header.continuityCounter -= 1 }
            packet.header.write(into: &damaged)
            if let field = packet.adaptationField {
                field.write(encodedLength: 184 - packet.payload.count, into: &damaged)
            }
            damaged += packet.payload
        }
        let (events, statistics) = S.demux(damaged, byteByByte: true)
        // 421 bytes: 14 of PES header, 7 of ADTS header, 400 of frame; 176 + 184 came (the first packet holds a PCR).
        #expect(S.errors(events) == [.truncatedPES(pid: 0x101, declared: 421, received: 360)])
        #expect(statistics.truncatedPES == 1)
        #expect(S.accessUnits(events).map(\.pts) == [1920])

        let small = S.demux(out, maxPESSize: 300)
        #expect(small.statistics.pesTooLarge == 2)
        #expect(S.errors(small.events).first == .pesTooLarge(pid: 0x101, size: 360, limit: 300))
        #expect(S.accessUnits(small.events).isEmpty)
    }

    /// A PAT and a PMT packet for `pmt`, with counters `counter`.
    func tables(_ pmt: ProgramMapTable, counter: UInt8) throws -> [UInt8] {
        var out: [UInt8] = []
        for (pid, section) in [(UInt16(0), ProgramAssociationTable(programs: [.init(programNumber: 1, pid: 0x1000)]).section),
                               (0x1000, try pmt.section())] {
            TSPacketHeader(pid: pid, payloadUnitStartIndicator: true, continuityCounter: counter).write(into: &out)
            var payload: [UInt8] = [0]
            try section.write(into: &payload)
            out += payload + [UInt8](repeating: 0xFF, count: 184 - payload.count)
        }
        return out
    }

    @Test func pmtVersionChangesAreReported() throws {
        let first = ProgramMapTable(programNumber: 1, pcrPID: 0x100,
                                    streams: [.init(codec: .h264, pid: 0x100), .init(codec: .aac, pid: 0x101)])
        let second = ProgramMapTable(programNumber: 1, version: 1, pcrPID: 0x100,
                                     streams: [.init(codec: .hevc, pid: 0x100), .init(codec: .opus(.init(channelConfigCode: 2)), pid: 0x102)])
        var corrupt = try tables(second, counter: 2)
        corrupt[188 + 20] ^= 0xFF  // inside the PMT section: fails its CRC
        let input = try tables(first, counter: 0) + tables(first, counter: 1) + corrupt + tables(second, counter: 3)
        let events = S.demux(input, byteByByte: true).events
        #expect(events == [
            .program(first),
            .error(.malformedSection(pid: 0x1000, .invalid(structure: "PSI section", reason: "CRC_32 mismatch (table_id 0x2)"))),
            .program(second),
            .streamRemoved(pid: 0x101, codec: .aac),
            .codecChanged(pid: 0x100, from: .h264, to: .hevc),
            .streamAdded(pid: 0x102, codec: .opus(.init(channelConfigCode: 2))),
        ])
    }

    @Test func discontinuityIndicatorIsReportedAndAllowsACounterJump() throws {
        var muxer = try TSMuxer(streams: [.audio(.aac)])
        var out: [UInt8] = []
        try muxer.write(.init(pid: 0x101, pts: 0, payload: [1, 2, 3], audioSpecificConfig: S.aacConfig), into: &out)
        // A second PES whose first packet says discontinuity and jumps its counter to 9.
        TSPacketHeader(pid: 0x101, payloadUnitStartIndicator: true, adaptationFieldControl: .adaptationFieldAndPayload,
                       continuityCounter: 9).write(into: &out)
        var pes: [UInt8] = []
        var header = PESPacketHeader(streamID: 0xC0, pts: 5000)
        try header.write(payloadLength: 10, unboundedLength: false, into: &pes)
        try ADTSHeader(audioSpecificConfig: S.aacConfig, payloadLength: 3).write(into: &pes)
        pes += [4, 5, 6]
        TSAdaptationField(discontinuityIndicator: true).write(encodedLength: 184 - pes.count, into: &out)
        out += pes
        let events = S.demux(out).events
        #expect(events.contains(.discontinuity(pid: 0x101)))
        #expect(S.errors(events).isEmpty)
        #expect(S.accessUnits(events).map(\.payload) == [[1, 2, 3], [4, 5, 6]])
    }

    @Test func seededRandomDamageNeverCrashes() {
        var generator = SeededGenerator(seed: 0xD47A)
        for _ in 0..<200 {
            var input = TSFixtures.ffmpegH264AAC
            for _ in 0..<Int.random(in: 1...20, using: &generator) {
                input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let cut = Int.random(in: 0...input.count, using: &generator)
            let (events, statistics) = S.demux(Array(input.prefix(cut)))
            #expect(statistics.packets <= cut / 188 + 1)
            #expect(S.accessUnits(events).allSatisfy { $0.payload.count <= cut })
        }
    }
}
