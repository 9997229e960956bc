import Testing
@testable import MediaFormats

/// The AV1 RTP payload format (AOMedia v1.0.0): the aggregation header, OBU elements with and without their lengths,
/// OBUs fragmented across packets, and a real stream through the edge to the av01 tags FFmpeg writes.
@Suite("AV1 depacketizer")
struct AV1DepacketizerTests {
    // OBU headers without size fields: sequence header (type 1), frame (type 6), metadata (type 5).
    static let sequenceHeader: [UInt8] = [0x08, 0x00, 0x00, 0x00, 0x42]
    static let frame: [UInt8] = [0x30, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70]
    static let metadata: [UInt8] = [0x28, 0x01, 0x02]

    static func packet(_ sequenceNumber: UInt16, _ timestamp: UInt32, marker: Bool = false, _ payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 45, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 7, payload: payload[...])
    }

    /// An aggregation header: Z, Y, W, N.
    static func header(z: Bool = false, y: Bool = false, w: Int, n: Bool = false) -> UInt8 {
        (z ? 0x80 : 0) | (y ? 0x40 : 0) | UInt8(w) << 4 | (n ? 0x08 : 0)
    }

    /// Elements each with its LEB128 length (W = 0).
    static func lengthPrefixed(_ elements: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for element in elements {
            try? LEB128.write(UInt64(element.count), into: &out)
            out += element
        }
        return out
    }

    static func au(_ obus: [[UInt8]], _ timestamp: UInt32, keyframe: Bool = false) -> RTPVideoDepacketizerOutput {
        .accessUnit(RTPVideoAccessUnit(nalUnits: obus, rtpTimestamp: timestamp, isKeyframe: keyframe, endedByMarker: true))
    }

    @Test("W = 0 and W = 2 aggregate whole OBUs; a sequence header makes the temporal unit a keyframe")
    func aggregation() {
        var depacketizer = AV1Depacketizer()
        let first = depacketizer.depacketize(Self.packet(1, 0, marker: true, [Self.header(w: 0, n: true)] + Self.lengthPrefixed([Self.sequenceHeader, Self.frame])))
        #expect(first == [Self.au([Self.sequenceHeader, Self.frame], 0, keyframe: true)])
        // W = 2: the first element's length given, the last's to the end.
        var payload = [Self.header(w: 2)] + Self.lengthPrefixed([Self.metadata])
        payload += Self.frame
        #expect(depacketizer.depacketize(Self.packet(2, 3000, marker: true, payload)) == [Self.au([Self.metadata, Self.frame], 3000)])
    }

    @Test("an OBU fragmented over three packets (Y, then Z and Y, then Z), with a whole OBU after its end")
    func fragments() {
        var depacketizer = AV1Depacketizer()
        var outputs = depacketizer.depacketize(Self.packet(10, 90, [Self.header(y: true, w: 1)] + Self.frame[0..<3]))
        outputs += depacketizer.depacketize(Self.packet(11, 90, [Self.header(z: true, y: true, w: 1)] + Self.frame[3..<5]))
        outputs += depacketizer.depacketize(Self.packet(12, 90, marker: true, [Self.header(z: true, w: 2)] + Self.lengthPrefixed([Array(Self.frame[5...])]) + Self.metadata))
        #expect(outputs == [Self.au([Self.frame, Self.metadata], 90)])
        #expect(!depacketizer.awaitingKeyframe)
    }

    @Test("a lost middle fragment drops its temporal unit, and the next without a sequence header waits for a keyframe")
    func lostFragment() {
        var depacketizer = AV1Depacketizer()
        var outputs = depacketizer.depacketize(Self.packet(20, 0, [Self.header(y: true, w: 1)] + Self.frame[0..<3]))
        outputs += depacketizer.depacketize(Self.packet(22, 0, marker: true, [Self.header(z: true, w: 1)] + Self.frame[5...]))
        outputs += depacketizer.depacketize(Self.packet(23, 3000, marker: true, [Self.header(w: 1)] + Self.frame))
        #expect(outputs.count == 2)
        guard case .dropped = outputs.first else {
            Issue.record("the damaged temporal unit was delivered: \(outputs)")
            return
        }
        #expect(depacketizer.awaitingKeyframe)
        let key = depacketizer.depacketize(Self.packet(24, 6000, marker: true, [Self.header(w: 0, n: true)] + Self.lengthPrefixed([Self.sequenceHeader, Self.frame])))
        #expect(key == [Self.au([Self.sequenceHeader, Self.frame], 6000, keyframe: true)] && !depacketizer.awaitingKeyframe)
    }

    @Test("malformed: N with Z, a length past the end, W naming more elements than there are, no element",
          arguments: [[header(z: true, w: 1, n: true), 0x30], [header(w: 0), 0x09, 0x30], [header(w: 3), 0x01, 0x30], [header(w: 0)]])
    func malformed(payload: [UInt8]) {
        #expect(throws: MediaFormatError.self) { try AV1RTPPayload(parsing: payload[...]) }
        var depacketizer = AV1Depacketizer()
        let outputs = depacketizer.depacketize(Self.packet(1, 0, marker: true, payload))
        guard case .dropped? = outputs.first else {
            Issue.record("a malformed packet was not dropped: \(outputs)")
            return
        }
    }

    /// A stream's temporal units as an RTP sender sends them: temporal delimiters out, OBUs without their size fields.
    static func temporalUnits(_ stream: [UInt8]) throws -> [[[UInt8]]] {
        var units: [[[UInt8]]] = []
        for obu in try AV1OBU.all(in: stream) {
            if obu.header.type == .temporalDelimiter {
                units.append([])
                continue
            }
            var header = obu.header
            header.hasSizeField = false
            var bytes: [UInt8] = []
            header.write(into: &bytes)
            bytes += obu.payload
            if units.isEmpty { units.append([]) }
            units[units.count - 1].append(bytes)
        }
        return units.filter { !$0.isEmpty }
    }

    /// A simple sender: small OBUs aggregated (W = 0), a large one fragmented in `mtu`-octet pieces (W = 1).
    static func packets(_ units: [[[UInt8]]], mtu: Int) -> [RTPPacket] {
        var packets: [RTPPacket] = []
        var sequence: UInt16 = 65530
        for (index, unit) in units.enumerated() {
            let timestamp = UInt32(index * 3000)
            var payloads: [[UInt8]] = []
            var pending: [[UInt8]] = []
            let startsSequence = unit.contains { AV1RTPPayload.isKeyframe(firstByte: $0[0]) }
            func flush() {
                guard !pending.isEmpty else { return }
                payloads.append([header(w: 0, n: startsSequence && payloads.isEmpty)] + lengthPrefixed(pending))
                pending = []
            }
            for obu in unit {
                if obu.count <= mtu {
                    if pending.reduce(0, { $0 + $1.count }) + obu.count > mtu { flush() }
                    pending.append(obu)
                    continue
                }
                flush()
                let pieces = stride(from: 0, to: obu.count, by: mtu).map { Array(obu[$0 ..< min($0 + mtu, obu.count)]) }
                for (position, piece) in pieces.enumerated() {
                    let first = position == 0, last = position == pieces.count - 1
                    payloads.append([header(z: !first, y: !last, w: 1, n: first && startsSequence && payloads.isEmpty)] + piece)
                }
            }
            flush()
            for (position, payload) in payloads.enumerated() {
                packets.append(packet(sequence, timestamp, marker: position == payloads.count - 1, payload))
                sequence &+= 1
            }
        }
        return packets
    }

    @Test("a real stream (libaom) sent as RTP in 200-octet packets: the edge's av01 tags are FFmpeg's av1C and samples")
    func realStreamThroughTheEdge() throws {
        let stream = AV1Fixtures.aom
        let units = try Self.temporalUnits(stream.obuStream)
        try #require(units.count >= 2)
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 45, clockRate: 90000, codec: .av1)])
        var tags: [FLVStreamTag] = []
        for packet in Self.packets(units, mtu: 200) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        let video = try tags.map { try FLVVideoData(parsing: $0.data[...]) }
        // One SequenceStart (the later key frame's sequence header is the same), then a tag per temporal unit.
        #expect(video.map(\.packetType) == [.sequenceStart] + Array(repeating: .codedFrames, count: units.count))
        #expect(video.allSatisfy { $0.tracks.first?.codec == .fourCC(.av01) })
        let keyframes = units.map { $0.contains { AV1RTPPayload.isKeyframe(firstByte: $0[0]) } }
        #expect(video.map { $0.frameType == .keyFrame } == [true] + keyframes)
        let payloads = video.prefix(3).map { Array($0.tracks[0].payload) }
        #expect(payloads == [stream.av1C, stream.firstSample, stream.secondSample], "not FFmpeg's av1C and samples")
        let times: [Int64] = (0..<units.count).map { Int64($0) * 3000 / 90 }
        #expect(tags.map(\.timestamp) == [0] + times)
        #expect(converter.statistics.malformedAccessUnits == 0 && converter.statistics.droppedAccessUnits == 0)
    }
}
