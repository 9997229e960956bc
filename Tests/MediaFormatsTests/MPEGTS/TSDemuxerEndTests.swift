import Testing
@testable import MediaFormats

/// The end of a transport stream: the last PES of each stream is delivered when it is whole and dropped when it is not.
/// A video PES (PES_packet_length 0) is whole when its last packet was stuffed; an audio PES when its declared length
/// came. Every case is fed at once and byte by byte.
@Suite struct TSDemuxerEndTests {
    typealias S = TSTestSupport
    static let video = TSMuxer.defaultVideoPID
    static let audio = TSMuxer.defaultAudioPID

    /// How the stream's last PES of one PID arrives.
    enum Ending: String, Sendable {
        /// Every packet.
        case whole
        /// Its last packet lost: the stream ends at a packet boundary inside it.
        case cutAtPacket
        /// Its last packet cut in the middle: the stream's last bytes are a partial packet.
        case cutMidPacket
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var video: Ending
        var audio: Ending
        var testDescription: String { "video \(video.rawValue), audio \(audio.rawValue)" }
    }

    /// The last video AU (a P frame spanning several packets) and the two AAC frames of the last audio PES.
    static let lastVideo = S.h264P(900)
    static let firstAudio = [UInt8](repeating: 0x11, count: 200)
    static let lastAudioFrames = [[UInt8](repeating: 0x21, count: 300), [UInt8](repeating: 0x42, count: 280)]

    /// An IDR and an audio frame, the last video AU, then the last audio PES (two ADTS frames, as muxers pack audio);
    /// `video` and `audio` say how each last PES ends. The lost packets are the stream's last of their PID, so no
    /// continuity gap shows them: only the end of the stream does.
    static func stream(video videoEnding: Ending, audio audioEnding: Ending) throws -> [UInt8] {
        var muxer = try TSMuxer(streams: [.video(.h264), .audio(.aac)])
        var out: [UInt8] = []
        try muxer.write(.init(pid: video, pts: 3600, dts: 0, isKeyframe: true, payload: S.h264IDR), into: &out)
        try muxer.write(.init(pid: audio, pts: 0, payload: firstAudio, audioSpecificConfig: S.aacConfig), into: &out)
        try muxer.write(.init(pid: video, pts: 7200, dts: 3600, payload: lastVideo), into: &out)
        var packets = try S.packets(out)
        let audioCounter = try #require(packets.last { $0.header.pid == audio }).header.continuityCounter
        packets += try audioPES(lastAudioFrames, pts: 1920, firstCounter: (audioCounter + 1) % 16)
        var partial: [UInt8] = []
        for (pid, ending) in [(video, videoEnding), (audio, audioEnding)] where ending != .whole {
            let last = try #require(packets.lastIndex { $0.header.pid == pid })
            let removed = packets.remove(at: last)
            if ending == .cutMidPacket { partial = Array(bytes(removed).prefix(100)) }
        }
        return packets.flatMap(bytes) + partial
    }

    /// The packets of one audio PES holding `frames`, each behind its ADTS header; the last packet stuffed.
    static func audioPES(_ frames: [[UInt8]], pts: Int64, firstCounter: UInt8) throws -> [ParsedTSPacket] {
        var payload: [UInt8] = []
        for frame in frames {
            try ADTSHeader(audioSpecificConfig: S.aacConfig, payloadLength: frame.count).write(into: &payload)
            payload += frame
        }
        var pes: [UInt8] = []
        var header = PESPacketHeader(streamID: PESPacketHeader.audioStreamID, pts: pts)
        try header.write(payloadLength: payload.count, unboundedLength: false, into: &pes)
        pes += payload
        var packets: [ParsedTSPacket] = []
        var counter = firstCounter
        for start in stride(from: 0, to: pes.count, by: 184) {
            let chunk = pes[start..<min(start + 184, pes.count)]
            let short = chunk.count < 184
            packets.append(ParsedTSPacket(
                header: TSPacketHeader(pid: audio, payloadUnitStartIndicator: start == 0,
                                       adaptationFieldControl: short ? .adaptationFieldAndPayload : .payloadOnly,
                                       continuityCounter: counter),
                adaptationField: short ? TSAdaptationField() : nil, payload: chunk))
            counter = (counter + 1) % 16
        }
        return packets
    }

    static func bytes(_ packet: ParsedTSPacket) -> [UInt8] {
        var out: [UInt8] = []
        packet.header.write(into: &out)
        if let field = packet.adaptationField { field.write(encodedLength: 184 - packet.payload.count, into: &out) }
        return out + packet.payload
    }

    @Test(arguments: [
        Case(video: .whole, audio: .whole), Case(video: .cutAtPacket, audio: .whole), Case(video: .cutMidPacket, audio: .whole),
        Case(video: .whole, audio: .cutAtPacket), Case(video: .whole, audio: .cutMidPacket),
        Case(video: .cutAtPacket, audio: .cutAtPacket),
    ])
    func lastPESOfEachStream(_ test: Case) throws {
        let bytes = try Self.stream(video: test.video, audio: test.audio)
        for byteByByte in [false, true] {
            let (events, statistics) = S.demux(bytes, byteByByte: byteByByte)
            let units = S.accessUnits(events)
            let video = units.filter { $0.pid == Self.video }
            let audio = units.filter { $0.pid == Self.audio }
            #expect(video.first?.payload == S.h264IDR && audio.first?.payload == Self.firstAudio, "the earlier PES are whole")
            if test.video == .whole {
                #expect(video.map(\.pts) == [3600, 7200] && video.last?.payload == Self.lastVideo, "the last video AU, whole")
                #expect(statistics.unterminatedPES == 0)
            } else {
                #expect(video.map(\.pts) == [3600], "a cut video PES is dropped, not delivered damaged")
                #expect(statistics.unterminatedPES == 1)
                #expect(S.errors(events).contains { if case .unterminatedPES(Self.video, _) = $0 { true } else { false } })
            }
            if test.audio == .whole {
                #expect(audio.dropFirst().map(\.payload) == Self.lastAudioFrames, "both frames of the last audio PES")
                #expect(audio.dropFirst().map(\.pts) == [1920, 1920 + 1920])
                #expect(statistics.truncatedPES == 0)
            } else {
                #expect(audio.count == 1, "a cut audio PES is dropped")
                #expect(statistics.truncatedPES == 1)
            }
        }
    }

    /// An IDR then a P frame of `size` bytes, as the muxer writes them.
    static func idrAndP(_ size: Int) throws -> [UInt8] {
        var muxer = try TSMuxer(streams: [.video(.h264)])
        var out: [UInt8] = []
        try muxer.write(.init(pid: video, pts: 3600, dts: 0, isKeyframe: true, payload: S.h264IDR), into: &out)
        try muxer.write(.init(pid: video, pts: 7200, dts: 3600, payload: S.h264P(size)), into: &out)
        return out
    }

    @Test func theMuxerNeverEndsAVideoPESInAFullPacket() throws {
        // Sizes across several packet boundaries: the last packet is always short, so the end of the stream keeps it.
        for size in 600..<800 {
            let out = try Self.idrAndP(size)
            #expect(try #require(try S.packets(out).last).payload.count < 184, "a P frame of \(size) bytes")
            let (events, statistics) = S.demux(out)
            #expect(S.accessUnits(events).map(\.pts) == [3600, 7200], "a P frame of \(size) bytes")
            #expect(statistics.unterminatedPES == 0)
        }
    }

    @Test func aWholeVideoPESThatFillsItsLastPacketIsDroppedOnlyAtTheEnd() throws {
        // The one whole PES the rule cannot tell from a cut one: another muxer's, whose payload fills its last packet
        // exactly. Made from ours where it gave its last byte a packet of its own: that byte joins the packet before,
        // which loses its 1-byte adaptation field.
        var found: (bytes: [UInt8], size: Int)?
        for size in 600..<800 where found == nil {
            let out = try Self.idrAndP(size)
            if try S.packets(out).last?.payload.count == 1 { found = (out, size) }
        }
        let (ours, size) = try #require(found, "no P frame size ends in a 1-byte packet")
        let end = ours.count
        var before = Array(ours[(end - 376)..<(end - 188)])
        try #require(before[3] & 0x30 == 0x30 && before[4] == 0, "the packet before carries a 1-byte adaptation field")
        before[3] = before[3] & 0xCF | 0x10
        let bytes = Array(ours[..<(end - 376)]) + before[..<4] + before[5...] + [ours[end - 1]]
        let lastPacket = try #require(try S.packets(bytes).last)
        #expect(lastPacket.payload.count == 184)
        let (events, statistics) = S.demux(bytes)
        #expect(S.accessUnits(events).map(\.pts) == [3600], "a P frame of \(size) bytes filling its last packet")
        #expect(statistics.unterminatedPES == 1)
        // The next PES's unit start shows where it ended: then it is whole.
        let counter = lastPacket.header.continuityCounter
        var next: [UInt8] = []
        TSPacketHeader(pid: Self.video, payloadUnitStartIndicator: true, continuityCounter: (counter + 1) % 16).write(into: &next)
        var pes: [UInt8] = []
        var header = PESPacketHeader(streamID: PESPacketHeader.videoStreamID, pts: 10800)
        try header.write(payloadLength: 0, unboundedLength: true, into: &pes)
        next += pes + [UInt8](repeating: 0xFF, count: 184 - pes.count)
        let followed = S.demux(bytes + next)
        #expect(followed.events.contains { if case let .accessUnit(unit) = $0 { unit.pts == 7200 && unit.payload == S.h264P(size) } else { false } })
    }

    @Test func aCutPESAtTheEndIsNoLongerDeliveredByTheConverter() throws {
        // The edge gives no tag for the cut frame: every tag it gives decodes.
        let whole = try Self.stream(video: .whole, audio: .whole)
        let cut = try Self.stream(video: .cutAtPacket, audio: .cutAtPacket)
        var converter = TSToFLVConverter()
        let wholeTags = (converter.feed(whole) + converter.flush()).compactMap { if case let .tag(tag) = $0 { tag } else { nil } }
        converter.reset()
        let cutTags = (converter.feed(cut) + converter.flush()).compactMap { if case let .tag(tag) = $0 { tag } else { nil } }
        let frames = { (tags: [FLVStreamTag], type: FLVTagType) in tags.filter { $0.type == type }.count }
        // Video: sequence header + IDR + P; audio: sequence header + three frames.
        #expect(frames(wholeTags, .video) == 3 && frames(wholeTags, .audio) == 4)
        #expect(frames(cutTags, .video) == 2 && frames(cutTags, .audio) == 2)
        #expect(converter.statistics.demuxer.unterminatedPES == 1 && converter.statistics.demuxer.truncatedPES == 1)
    }
}
