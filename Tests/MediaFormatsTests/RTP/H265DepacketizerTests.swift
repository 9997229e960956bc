import Testing
@testable import MediaFormats

@Suite("H.265 depacketizer")
struct H265DepacketizerTests {
    // Two-octet headers: type << 1, then layer 0 and TID + 1 = 1.
    static let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01]
    static let sps: [UInt8] = [0x42, 0x01, 0x01, 0x01]
    static let pps: [UInt8] = [0x44, 0x01, 0xC1, 0x72]
    static let idr: [UInt8] = [0x26, 0x01, 0xAF, 0x09, 0x40, 0xF3, 0xB8, 0x00, 0x11]  // IDR_W_RADL (19)
    static let trail: [UInt8] = [0x02, 0x01, 0xD0, 0x09]  // TRAIL_R (1)
    static let cra: [UInt8] = [0x2A, 0x01, 0xAD, 0x00]  // CRA (21)

    static func packet(_ sequenceNumber: UInt16, _ timestamp: UInt32, marker: Bool = false, _ payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 98, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 3, payload: payload[...])
    }

    static func aggregation(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [48 << 1, 0x01]
        for nalUnit in nalUnits {
            bytes.appendUInt16(UInt16(nalUnit.count))
            bytes += nalUnit
        }
        return bytes
    }

    /// The FU packets of `nalUnit` in fragments of `size` octets.
    static func fragments(_ nalUnit: [UInt8], size: Int) -> [[UInt8]] {
        let type = (nalUnit[0] >> 1) & 0x3F
        let body = Array(nalUnit.dropFirst(2))
        let chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
        return chunks.enumerated().map { index, chunk in
            let s: UInt8 = index == 0 ? 0x80 : 0
            let e: UInt8 = index == chunks.count - 1 ? 0x40 : 0
            return [nalUnit[0] & 0x81 | 49 << 1, nalUnit[1], s | e | type] + chunk
        }
    }

    static func au(_ nalUnits: [[UInt8]], _ timestamp: UInt32, keyframe: Bool = false) -> RTPVideoDepacketizerOutput {
        .accessUnit(RTPVideoAccessUnit(nalUnits: nalUnits, rtpTimestamp: timestamp, isKeyframe: keyframe, endedByMarker: true))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [RTPPacket]
        let outputs: [RTPVideoDepacketizerOutput]
        let awaitingKeyframe: Bool
        var testDescription: String { name }
    }

    static let idrFragments = fragments(idr, size: 3)  // 7 payload octets: 3 fragments

    static let cases: [Case] = [
        Case(name: "AP with parameter sets, then FU",
             packets: [packet(1, 0, aggregation([vps, sps, pps]))] + idrFragments.enumerated().map { packet(2 + UInt16($0), 0, marker: $0 == 2, $1) },
             outputs: [au([vps, sps, pps, idr], 0, keyframe: true)], awaitingKeyframe: false),
        Case(name: "single NAL units; CRA is a keyframe",
             packets: [packet(1, 0, marker: true, trail), packet(2, 3000, marker: true, cra)],
             outputs: [au([trail], 0), au([cra], 3000, keyframe: true)], awaitingKeyframe: false),
        Case(name: "lost fragment",
             packets: [packet(1, 0, idrFragments[0]), packet(3, 0, marker: true, idrFragments[2]), packet(4, 3000, marker: true, trail)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .packetLoss(lostPackets: 1)), au([trail], 3000)], awaitingKeyframe: true),
        Case(name: "FU without its start",
             packets: [packet(1, 0, marker: true, idrFragments[2])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "H.265 fragmentation unit", reason: "a fragment without its start")))],
             awaitingKeyframe: true),
        Case(name: "FU with start and end bits",
             packets: [packet(1, 0, marker: true, [0x62, 0x01, 0xD3, 1])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "H.265 fragmentation unit", reason: "start and end bits both set")))],
             awaitingKeyframe: true),
        Case(name: "FU header missing",
             packets: [packet(1, 0, marker: true, [0x62, 0x01])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 3, available: 2)))], awaitingKeyframe: true),
        Case(name: "AP with a zero size",
             packets: [packet(1, 0, marker: true, aggregation([vps]) + [0, 0])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "H.265 aggregation packet", reason: "a NAL unit size of 0")))],
             awaitingKeyframe: true),
        Case(name: "AP size beyond the packet",
             packets: [packet(1, 0, marker: true, [0x60, 0x01, 0x00, 0x20] + vps)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 32, available: 4)))], awaitingKeyframe: true),
        Case(name: "AP with no NAL unit",
             packets: [packet(1, 0, marker: true, [0x60, 0x01])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "H.265 aggregation packet", reason: "no NAL unit")))],
             awaitingKeyframe: true),
        Case(name: "one-octet payload",
             packets: [packet(1, 0, marker: true, [0x02])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 2, available: 1)))], awaitingKeyframe: true),
        Case(name: "PACI ignored",
             packets: [packet(1, 0, [50 << 1, 0x01, 0, 0]), packet(2, 0, marker: true, trail)],
             outputs: [au([trail], 0)], awaitingKeyframe: false),
    ]

    @Test(arguments: cases)
    func depacketizes(_ c: Case) {
        var depacketizer = H265Depacketizer()
        var outputs: [RTPVideoDepacketizerOutput] = []
        for packet in c.packets { outputs += depacketizer.depacketize(packet) }
        #expect(outputs == c.outputs)
        #expect(depacketizer.awaitingKeyframe == c.awaitingKeyframe)
    }

    @Test func rebuildsTheNALUnitHeaderOfAFragmentWithItsLayerAndTemporalID() throws {
        // Layer 33 (its high bit in the first octet), TID 2 (nuh_temporal_id_plus1 3): the FU keeps both and takes the type from the FU header.
        let nalUnit: [UInt8] = [0x02 | 0x01, 0x08 | 0x03, 0xAA, 0xBB]
        var depacketizer = H265Depacketizer()
        let packets = Self.fragments(nalUnit, size: 1)
        var outputs: [RTPVideoDepacketizerOutput] = []
        for (index, payload) in packets.enumerated() {
            outputs += depacketizer.depacketize(Self.packet(UInt16(index), 0, marker: index == packets.count - 1, payload))
        }
        #expect(outputs == [Self.au([nalUnit], 0)])
        let header = try HEVCNALUnitHeader(parsing: nalUnit)
        #expect(header.layerId == 33 && header.temporalId == 2 && header.nalUnitType == .trailR)
    }
}
