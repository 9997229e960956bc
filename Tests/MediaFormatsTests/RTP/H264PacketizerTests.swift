import Testing
import MediaFormats

@Suite("H.264 packetizer")
struct H264PacketizerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0x01]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// A NAL unit of `size` bytes with header `header` and a counting body.
    static func unit(_ header: UInt8, _ size: Int) -> [UInt8] {
        [header] + (1 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    @Test func parameterSetsAndASmallSliceShareOneSTAPA() {
        var packetizer = H264Packetizer(payloadType: 102, ssrc: 7, sequenceNumber: 10, maxPayloadSize: 100)
        let idr = Self.unit(0x65, 20)
        let packets = packetizer.packetize([Self.sps, Self.pps, idr], timestamp: 9_000)
        #expect(packets.count == 1)
        // STAP-A: F 0, NRI 3 (the highest of the three), type 24; then each unit with its 16-bit size.
        #expect(Array(packets[0].payload) == [0x78, 0, 5] + Self.sps + [0, 4] + Self.pps + [0, 20] + idr)
        #expect(packets[0].marker && packets[0].timestamp == 9_000 && packets[0].payloadType == 102 && packets[0].ssrc == 7)
        #expect(packetizer.sequenceNumber == 11)
    }

    @Test func aLargeUnitIsCutIntoFUAsThatNeverPassThePayloadSize() {
        var packetizer = H264Packetizer(payloadType: 96, ssrc: 1, sequenceNumber: 65_534, maxPayloadSize: 50)
        let idr = Self.unit(0x65, 130)
        let packets = packetizer.packetize([idr], timestamp: 0)
        // 129 bytes after the header, 48 a fragment: 3 FU-As.
        #expect(packets.map(\.sequenceNumber) == [65_534, 65_535, 0])
        #expect(packets.allSatisfy { $0.payload.count <= 50 })
        #expect(packets.map(\.marker) == [false, false, true])
        #expect(packets.map { Array($0.payload.prefix(2)) } == [[0x7C, 0x85], [0x7C, 0x05], [0x7C, 0x45]])
    }

    @Test(arguments: [3, 7, 60, 1_172])
    func everyAccessUnitComesBackWholeFromTheDepacketizer(maxPayloadSize: Int) {
        var packetizer = H264Packetizer(payloadType: 96, ssrc: 3, sequenceNumber: 65_530, maxPayloadSize: maxPayloadSize)
        var depacketizer = H264Depacketizer()
        let units: [[[UInt8]]] = [
            [Self.sps, Self.pps, Self.unit(0x65, 5_000)],
            [Self.unit(0x41, 2), Self.unit(0x01, 1_172), Self.unit(0x41, 1_173)],
            [Self.unit(0x06, 9), Self.unit(0x41, 300)],
        ]
        var delivered: [RTPVideoAccessUnit] = []
        for (index, accessUnit) in units.enumerated() {
            for packet in packetizer.packetize(accessUnit, timestamp: UInt32(index * 3_000)) {
                #expect(packet.payload.count <= maxPayloadSize)
                // Through the wire format, as a peer reads it.
                let read = try? RTPPacket(parsing: packet.serialized)
                #expect(read == packet)
                for output in depacketizer.depacketize(packet) {
                    if case let .accessUnit(unit) = output { delivered.append(unit) }
                }
            }
        }
        #expect(delivered.map(\.nalUnits) == units)
        #expect(delivered.map(\.rtpTimestamp) == [0, 3_000, 6_000])
        #expect(delivered.map(\.isKeyframe) == [true, false, false])
    }

    @Test func emptyUnitsAreSkippedAndAnEmptyAccessUnitSendsNothing() {
        var packetizer = H264Packetizer(payloadType: 96, ssrc: 3, sequenceNumber: 0)
        #expect(packetizer.packetize([[], []], timestamp: 0).isEmpty)
        #expect(packetizer.packetize([[], Self.pps], timestamp: 0).map { Array($0.payload) } == [Self.pps])
        #expect(packetizer.sequenceNumber == 1)
    }
}
