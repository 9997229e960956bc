@testable import MediaFormats
import Testing
@testable import WebRTC

/// A WHEP viewer's media: the job's tags through `WebRTCEgressMedia` and back through a WHIP session's
/// `WebRTCIngestMedia`, each side judging the other without a socket.
@Suite struct WebRTCEgressMediaTests {
    typealias Ingest = WebRTCIngestMediaTests

    /// The offer's tracks with our SSRCs, as the answer gives them.
    static func tracks() throws -> [WebRTCNegotiatedTrack] {
        var tracks = try Ingest.tracks()
        tracks[0].localSSRC = 1111
        tracks[1].localSSRC = 2222
        return tracks
    }

    static func videoTag(_ packetType: FLVVideoPacketType, key: Bool, time: Int64, _ payload: [UInt8]) throws -> FLVStreamTag {
        FLVStreamTag(type: .video, timestamp: time, data: try FLVVideoData(frameType: key ? .keyFrame : .interFrame, packetType: packetType,
                                                                      tracks: [FLVVideoTrack(codec: .legacy(.avc), payload: payload[...])]).serialized())
    }

    static func avcc(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for unit in nalUnits {
            let length = UInt32(unit.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            out += unit
        }
        return out
    }

    static let record: [UInt8] = (try? AVCDecoderConfigurationRecord(sequenceParameterSets: [Ingest.sps], pictureParameterSets: [Ingest.pps],
                                                                      nalUnitLengthSize: 4).serialized()) ?? []
    static let idr: [UInt8] = [0x65] + [UInt8](repeating: 0x11, count: 2_000)
    static func slice(_ fill: UInt8) -> [UInt8] { [0x41] + [UInt8](repeating: fill, count: 1_500) }

    /// A slice before any keyframe, the sequence header, a keyframe and two slices 33 ms apart, and Opus.
    static func jobTags() throws -> [FLVStreamTag] {
        let opus = FLVStreamTag(type: .audio, timestamp: 20, data: try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: [0xFC, 1, 2][...]).serialized())
        return [try videoTag(.codedFrames, key: false, time: 0, avcc([slice(9)])),
                try videoTag(.sequenceStart, key: true, time: 0, record),
                try videoTag(.codedFrames, key: true, time: 0, avcc([idr])), opus,
                try videoTag(.codedFrames, key: false, time: 33, avcc([slice(1)])),
                try videoTag(.codedFrames, key: false, time: 66, avcc([slice(2)]))]
    }

    /// The coded video tags' (time, keyframe, payload).
    static func frames(_ tags: [FLVStreamTag]) throws -> [(Int64, Bool, [UInt8])] {
        try tags.filter { $0.type == .video }.compactMap { tag in
            let data = try FLVVideoData(parsing: tag.data)
            return data.packetType == .codedFrames ? (tag.timestamp, data.isKeyframe, Array(data.tracks[0].payload)) : nil
        }
    }

    /// The tags a receiver makes of what `egress` sent of `tags` (made units by `packager`).
    static func roundTrip(_ tags: [FLVStreamTag], _ packager: inout WebRTCEgressPackager, _ egress: inout WebRTCEgressMedia) throws -> [FLVStreamTag] {
        var ingest = try WebRTCIngestMedia(tracks: try Ingest.tracks(), localSSRC: 42)
        var received: [FLVStreamTag] = []
        for tag in tags {
            for packet in egress.send(packager.unit(of: tag), now: tag.timestamp) { received += ingest.receive(packet.serialized, now: tag.timestamp).tags }
        }
        #expect(ingest.statistics.lostPackets == 0 && ingest.statistics.droppedAccessUnits == 0)
        return received + ingest.tick(now: 2_000).tags
    }

    @Test("the job's H.264 and Opus reach a receiver as they left: from the first keyframe, parameter sets in band, same times")
    func tagsSurviveTheRoundTrip() throws {
        var egress = try WebRTCEgressMedia(tracks: try Self.tracks())
        var packager = WebRTCEgressPackager()
        let received = try Self.roundTrip(try Self.jobTags(), &packager, &egress)
        #expect(egress.statistics.framesBeforeKeyframe == 1)
        let frames = try Self.frames(received)
        #expect(frames.map(\.0) == [0, 33, 66] && frames.map(\.1) == [true, false, false])
        #expect(frames.map(\.2) == [Self.avcc([Self.idr]), Self.avcc([Self.slice(1)]), Self.avcc([Self.slice(2)])])
        let header = try received.filter { $0.type == .video }.map { try FLVVideoData(parsing: $0.data) }.first { $0.isSequenceStart }
        #expect(header.map { Array($0.tracks[0].payload) } == Self.record, "the receiver's record is not the job's")
        let audio = try received.filter { $0.type == .audio }.map { try FLVAudioData(parsing: $0.data) }.filter { $0.packetType == .codedFrames }
        #expect(audio.map { Array($0.tracks[0].payload) } == [[0xFC, 1, 2]])
    }

    @Test("one packager's units serve two viewers, each numbering the same payloads with its own SSRC and sequence")
    func unitsAreSharedByViewers() throws {
        var packager = WebRTCEgressPackager()
        let units = try Self.jobTags().map { packager.unit(of: $0) }
        var first = try WebRTCEgressMedia(tracks: try Self.tracks(), random: { 7 })
        var tracks = try Self.tracks()
        tracks[0].localSSRC = 3333
        var second = try WebRTCEgressMedia(tracks: tracks, random: { 60_000 })
        let one = units.flatMap { first.send($0, now: 0) }, two = units.flatMap { second.send($0, now: 0) }
        #expect(one.count == two.count && !one.isEmpty)
        #expect(one.map(\.payload) == two.map(\.payload) && one.map(\.marker) == two.map(\.marker))
        #expect(Set(one.filter { $0.payloadType == tracks[0].payloadType }.map(\.ssrc)) == [1111])
        #expect(Set(two.filter { $0.payloadType == tracks[0].payloadType }.map(\.ssrc)) == [3333])
        let video = two.filter { $0.ssrc == 3333 }.map(\.sequenceNumber)
        #expect(video == (0..<UInt16(video.count)).map { 60_000 &+ $0 }, "each viewer numbers from its own start")
        // A second viewer that joins later starts at the next keyframe the same packager makes.
        var late = try WebRTCEgressMedia(tracks: try Self.tracks())
        let next = [try Self.videoTag(.codedFrames, key: false, time: 100, Self.avcc([Self.slice(3)])),
                    try Self.videoTag(.codedFrames, key: true, time: 133, Self.avcc([Self.idr]))]
        let received = try Self.frames(try Self.roundTrip(next, &packager, &late))
        // (The receiver's timeline starts at its first frame.)
        #expect(received.map(\.1) == [true] && received.map(\.2) == [Self.avcc([Self.idr])] && late.statistics.framesBeforeKeyframe == 1)
    }

    @Test("a NACK is answered from the history with the same bytes, and the receiver's gap closes")
    func nackIsAnswered() throws {
        var egress = try WebRTCEgressMedia(tracks: try Self.tracks())
        var packager = WebRTCEgressPackager()
        var ingest = try WebRTCIngestMedia(tracks: try Ingest.tracks(), localSSRC: 42)
        var sent: [RTPPacket] = []
        for tag in try Self.jobTags() { sent += egress.send(packager.unit(of: tag), now: tag.timestamp) }
        let missing = sent.count - 2
        var rtcp: [[UInt8]] = []
        for (index, packet) in sent.enumerated() where index != missing { rtcp += ingest.receive(packet.serialized, now: 70).rtcp }
        let resent = rtcp.flatMap { egress.receiveRTCP($0) }
        #expect(resent == [sent[missing]])
        #expect(egress.statistics.retransmitted == 1 && egress.statistics.notInHistory == 0)
        for packet in resent { _ = ingest.receive(packet.serialized, now: 120) }
        _ = ingest.tick(now: 2_000)
        #expect(ingest.recovery.recovered == 1)
        #expect(ingest.statistics.lostPackets == 0 && ingest.statistics.droppedAccessUnits == 0, "\(ingest.statistics)")
        // A NACK for a packet never sent finds nothing.
        let unknown = RTCPFeedback.nack(senderSSRC: 42, mediaSSRC: 1111, items: [RTCPNackItem(packetID: 7, bitmask: 0)]).serialized()
        #expect(egress.receiveRTCP(unknown).isEmpty && egress.statistics.notInHistory == 1)
    }

    @Test("a PLI or FIR wants a keyframe until one is sent; AAC is not carried")
    func keyframeRequestsAndCodecs() throws {
        var egress = try WebRTCEgressMedia(tracks: try Self.tracks())
        var packager = WebRTCEgressPackager()
        for tag in try Self.jobTags() { _ = egress.send(packager.unit(of: tag), now: 0) }
        #expect(!egress.wantsKeyframe)
        _ = egress.receiveRTCP(RTCPFeedback.pictureLoss(senderSSRC: 42, mediaSSRC: 1111).serialized())
        #expect(egress.wantsKeyframe)
        _ = egress.send(packager.unit(of: try Self.videoTag(.codedFrames, key: false, time: 100, Self.avcc([Self.slice(3)]))), now: 100)
        #expect(egress.wantsKeyframe, "a slice is not a keyframe")
        _ = egress.send(packager.unit(of: try Self.videoTag(.codedFrames, key: true, time: 133, Self.avcc([Self.idr]))), now: 133)
        #expect(!egress.wantsKeyframe)
        _ = egress.receiveRTCP(RTCPFeedback.fullIntraRequest(senderSSRC: 42, mediaSSRC: 1111, sequenceNumber: 1).serialized())
        #expect(egress.wantsKeyframe && egress.statistics.keyframeRequests == 2)
        // A PLI naming another source asks nothing of us.
        _ = egress.send(packager.unit(of: try Self.videoTag(.codedFrames, key: true, time: 166, Self.avcc([Self.idr]))), now: 166)
        _ = egress.receiveRTCP(RTCPFeedback.pictureLoss(senderSSRC: 42, mediaSSRC: 9).serialized())
        #expect(!egress.wantsKeyframe)
        let aac = FLVStreamTag(type: .audio, timestamp: 0, data: FLVAudioTagHeader.aacBody(.raw, [1, 2]))
        #expect(packager.unit(of: aac) == .notCarried)
        #expect(egress.send(packager.unit(of: aac), now: 0).isEmpty && egress.statistics.tagsNotCarried == 1)
    }

    @Test("a sender report per track each second: the wallclock and the last packet's RTP time advanced to it")
    func senderReports() throws {
        var egress = try WebRTCEgressMedia(tracks: try Self.tracks(), random: { 0 })
        var packager = WebRTCEgressPackager()
        #expect(egress.senderReports(now: 0, wallclock: 1).isEmpty, "nothing sent, nothing reported")
        for tag in try Self.jobTags() { _ = egress.send(packager.unit(of: tag), now: tag.timestamp) }
        let wallclock: UInt64 = 0x1234_5678_9ABC_DEF0
        let reports = egress.senderReports(now: 166, wallclock: wallclock).flatMap { RTCPCompound.senderReports($0) }
        // Video's last packet: 66 ms (5,940 at 90 kHz) sent at 66, so 100 ms on at 166; Opus's: 20 ms (960) sent at 20.
        #expect(reports.map(\.ssrc) == [1111, 2222])
        #expect(reports.map(\.ntpTime) == [wallclock, wallclock])
        #expect(reports.map(\.rtpTime) == [5_940 + 9_000, 960 + 7_008])
        #expect(egress.senderReports(now: 500, wallclock: wallclock).isEmpty, "not again within the second")
        #expect(egress.senderReports(now: 1_166, wallclock: wallclock).count == 2)
    }
}
