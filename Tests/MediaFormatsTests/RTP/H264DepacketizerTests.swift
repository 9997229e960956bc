import Testing
@testable import MediaFormats

@Suite("H.264 depacketizer")
struct H264DepacketizerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x10, 0x20, 0x30, 0x40]
    static let slice: [UInt8] = [0x41, 0x9A, 0x02, 0x03]

    /// A packet of the case's stream: sequence number, timestamp, marker, payload.
    static func packet(_ sequenceNumber: UInt16, _ timestamp: UInt32, marker: Bool = false, _ payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 1, payload: payload[...])
    }

    static func stapA(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [0x78]  // F 0, NRI 3, type 24
        for nalUnit in nalUnits {
            bytes.appendUInt16(UInt16(nalUnit.count))
            bytes += nalUnit
        }
        return bytes
    }

    /// The FU-A packets of `nalUnit` in fragments of `size` octets.
    static func fuA(_ nalUnit: [UInt8], size: Int) -> [[UInt8]] {
        let header = nalUnit[0]
        let body = Array(nalUnit.dropFirst())
        let chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
        return chunks.enumerated().map { index, chunk in
            let s: UInt8 = index == 0 ? 0x80 : 0
            let e: UInt8 = index == chunks.count - 1 ? 0x40 : 0
            return [header & 0xE0 | 28, s | e | header & 0x1F] + chunk
        }
    }

    static func au(_ nalUnits: [[UInt8]], _ timestamp: UInt32, keyframe: Bool = false, marker: Bool = true) -> RTPVideoDepacketizerOutput {
        .accessUnit(RTPVideoAccessUnit(nalUnits: nalUnits, rtpTimestamp: timestamp, isKeyframe: keyframe, endedByMarker: marker))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [RTPPacket]
        let outputs: [RTPVideoDepacketizerOutput]
        let awaitingKeyframe: Bool
        var testDescription: String { name }
    }

    static let fragments = fuA(idr, size: 3)  // 7 payload octets: 3 fragments

    static let cases: [Case] = [
        Case(name: "single NAL units, marker on the last",
             packets: [packet(1, 0, sps), packet(2, 0, pps), packet(3, 0, marker: true, idr), packet(4, 3000, marker: true, slice)],
             outputs: [au([sps, pps, idr], 0, keyframe: true), au([slice], 3000)], awaitingKeyframe: false),
        Case(name: "STAP-A with parameter sets, then FU-A",
             packets: [packet(10, 90, stapA([sps, pps]))] + fragments.enumerated().map { packet(11 + UInt16($0), 90, marker: $0 == 2, $1) },
             outputs: [au([sps, pps, idr], 90, keyframe: true)], awaitingKeyframe: false),
        Case(name: "sequence numbers across the wrap",
             packets: [packet(65534, 0, sps), packet(65535, 0, pps), packet(0, 0, marker: true, idr), packet(1, 3000, marker: true, slice)],
             outputs: [au([sps, pps, idr], 0, keyframe: true), au([slice], 3000)], awaitingKeyframe: false),
        Case(name: "no marker: a new timestamp ends the access unit",
             packets: [packet(1, 0, idr), packet(2, 3000, slice), packet(3, 6000, slice)],
             outputs: [au([idr], 0, keyframe: true, marker: false), au([slice], 3000, marker: false)], awaitingKeyframe: false),
        Case(name: "duplicate and older packets ignored",
             packets: [packet(5, 0, idr), packet(5, 0, idr), packet(4, 0, slice), packet(6, 0, marker: true, slice)],
             outputs: [au([idr, slice], 0, keyframe: true)], awaitingKeyframe: false),
        Case(name: "a jump back past reordering is a restarted sender",
             packets: [packet(5000, 0, marker: true, idr), packet(6000, 3000, slice), packet(10, 9000, marker: true, slice),
                       packet(11, 12000, marker: true, idr)],
             outputs: [au([idr], 0, keyframe: true), .dropped(rtpTimestamp: 3000, reason: .packetLoss(lostPackets: 999)),
                       .dropped(rtpTimestamp: 9000, reason: .sequenceRestart), au([idr], 12000, keyframe: true)],
             awaitingKeyframe: false),
        Case(name: "a packet 100 back is late, not a restart",
             packets: [packet(200, 0, slice), packet(100, 0, idr), packet(201, 0, marker: true, slice)],
             outputs: [au([slice, slice], 0)], awaitingKeyframe: false),
        Case(name: "lost middle fragment drops its access unit only",
             packets: [packet(1, 0, marker: true, slice), packet(2, 3000, fragments[0]), packet(4, 3000, marker: true, fragments[2]),
                       packet(5, 6000, marker: true, slice)],
             outputs: [au([slice], 0), .dropped(rtpTimestamp: 3000, reason: .packetLoss(lostPackets: 1)), au([slice], 6000)],
             awaitingKeyframe: true),
        Case(name: "lost marked packet: both sides of the gap dropped",
             packets: [packet(1, 0, slice), packet(3, 3000, slice), packet(4, 3000, marker: true, slice), packet(5, 6000, marker: true, slice)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .packetLoss(lostPackets: 1)),
                       .dropped(rtpTimestamp: 3000, reason: .packetLoss(lostPackets: 1)), au([slice], 6000)],
             awaitingKeyframe: true),
        Case(name: "loss after a marked packet drops the next access unit",
             packets: [packet(1, 0, marker: true, slice), packet(3, 3000, marker: true, slice)],
             outputs: [au([slice], 0), .dropped(rtpTimestamp: 3000, reason: .packetLoss(lostPackets: 1))], awaitingKeyframe: true),
        Case(name: "an IDR after a loss ends the wait for a keyframe",
             packets: [packet(1, 0, marker: true, slice), packet(3, 3000, marker: true, slice), packet(4, 6000, marker: true, idr)],
             outputs: [au([slice], 0), .dropped(rtpTimestamp: 3000, reason: .packetLoss(lostPackets: 1)), au([idr], 6000, keyframe: true)],
             awaitingKeyframe: false),
        Case(name: "FU-A without its start",
             packets: [packet(1, 0, fragments[1]), packet(2, 0, marker: true, fragments[2])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "FU-A", reason: "a fragment without its start")))],
             awaitingKeyframe: true),
        Case(name: "FU-A without its end before the marker",
             packets: [packet(1, 0, fragments[0]), packet(2, 0, marker: true, fragments[1])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "fragmentation unit",
                                                                               reason: "a fragmented NAL unit without its end")))],
             awaitingKeyframe: true),
        Case(name: "FU-A with start and end bits",
             packets: [packet(1, 0, marker: true, [0x7C, 0xC5, 1, 2])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "FU-A", reason: "start and end bits both set")))],
             awaitingKeyframe: true),
        Case(name: "FU-A of one octet",
             packets: [packet(1, 0, marker: true, [0x7C])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 2, available: 1)))], awaitingKeyframe: true),
        Case(name: "STAP-A with a zero-length NAL unit",
             packets: [packet(1, 0, marker: true, [0x78, 0, 4] + sps + [0, 0])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "STAP-A", reason: "a NAL unit size of 0")))],
             awaitingKeyframe: true),
        Case(name: "STAP-A size beyond the packet",
             packets: [packet(1, 0, marker: true, [0x78, 0, 9] + sps)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 9, available: 4)))], awaitingKeyframe: true),
        Case(name: "STAP-A with half a size field",
             packets: [packet(1, 0, marker: true, [0x78, 0, 4] + sps + [0])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 2, available: 1)))], awaitingKeyframe: true),
        Case(name: "STAP-A with no NAL unit",
             packets: [packet(1, 0, marker: true, [0x78])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "STAP-A", reason: "no NAL unit")))], awaitingKeyframe: true),
        Case(name: "empty payload",
             packets: [packet(1, 0, marker: true, [])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 1, available: 0)))], awaitingKeyframe: true),
        Case(name: "interleaved-mode FU-B",
             packets: [packet(1, 0, marker: true, [0x7D, 0x85, 0, 1, 2])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.unsupported(structure: "H.264 RTP payload",
                                                                                reason: "type 29 belongs to the interleaved packetization mode")))],
             awaitingKeyframe: true),
        Case(name: "reserved type 30 ignored",
             packets: [packet(1, 0, [0x1E, 1, 2]), packet(2, 0, marker: true, slice)],
             outputs: [au([slice], 0)], awaitingKeyframe: false),
        Case(name: "a malformed packet does not damage the next access unit",
             packets: [packet(1, 0, marker: true, [0x78]), packet(2, 3000, marker: true, idr)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "STAP-A", reason: "no NAL unit"))),
                       au([idr], 3000, keyframe: true)],
             awaitingKeyframe: false),
    ]

    @Test(arguments: cases)
    func depacketizes(_ c: Case) {
        var depacketizer = H264Depacketizer()
        var outputs: [RTPVideoDepacketizerOutput] = []
        for packet in c.packets { outputs += depacketizer.depacketize(packet) }
        #expect(outputs == c.outputs)
        #expect(depacketizer.awaitingKeyframe == c.awaitingKeyframe)
    }

    @Test func resetForgetsTheSequenceAndTheAccessUnitInProgress() {
        var depacketizer = H264Depacketizer()
        #expect(depacketizer.depacketize(Self.packet(100, 0, Self.fragments[0])).isEmpty)
        depacketizer.reset()
        // Without the reset, sequence number 7 would be an old packet and the fragment's access unit would be dropped.
        #expect(depacketizer.depacketize(Self.packet(7, 9000, marker: true, Self.slice)) == [Self.au([Self.slice], 9000)])
    }

    @Test func anAccessUnitOverTheLimitIsDropped() {
        var depacketizer = H264Depacketizer()
        let body = [UInt8](repeating: 0xAB, count: 60_000)
        var outputs: [RTPVideoDepacketizerOutput] = []
        var sequenceNumber: UInt16 = 0
        outputs += depacketizer.depacketize(Self.packet(sequenceNumber, 0, [0x7C, 0x85] + body))
        // 16 MiB / 60,000 octets: the limit is crossed in the 280th fragment.
        for _ in 0..<300 {
            sequenceNumber &+= 1
            outputs += depacketizer.depacketize(Self.packet(sequenceNumber, 0, [0x7C, 0x05] + body))
        }
        sequenceNumber &+= 1
        outputs += depacketizer.depacketize(Self.packet(sequenceNumber, 0, marker: true, [0x7C, 0x45] + body))
        guard case let .dropped(timestamp, .malformed(.limitExceeded(what, _, limit))) = outputs.first, outputs.count == 1 else {
            Issue.record("expected one drop over the limit, got \(outputs.count) outputs")
            return
        }
        #expect(timestamp == 0 && what == "access unit size" && limit == 16 << 20)
    }
}
