import Testing
import MediaFormats

@Suite("RTP packet")
struct RTPPacketTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let expected: Result<RTPPacket, MediaFormatError>
        var testDescription: String { name }
    }

    static let header: [UInt8] = [0x80, 0xE0, 0x12, 0x34, 0x00, 0x01, 0x5F, 0x90, 0xDE, 0xAD, 0xBE, 0xEF]

    static let cases: [Case] = [
        Case(name: "fixed header, marker, payload", bytes: header + [1, 2, 3],
             expected: .success(RTPPacket(marker: true, payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF, payload: [1, 2, 3]))),
        Case(name: "empty payload", bytes: [0x80, 0x60] + header.dropFirst(2),
             expected: .success(RTPPacket(payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF, payload: []))),
        Case(name: "two CSRCs", bytes: [0x82, 0x60] + header.dropFirst(2) + [0, 0, 0, 1, 0, 0, 0, 2, 9],
             expected: .success(RTPPacket(payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF, csrcs: [1, 2], payload: [9]))),
        Case(name: "header extension of one word", bytes: [0x90, 0x60] + header.dropFirst(2) + [0xBE, 0xDE, 0, 1, 0x10, 0xAA, 0, 0, 7],
             expected: .success(RTPPacket(payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF,
                                          headerExtension: RTPHeaderExtension(profile: 0xBEDE, data: [0x10, 0xAA, 0, 0]), payload: [7]))),
        Case(name: "padding of three octets", bytes: [0xA0, 0x60] + header.dropFirst(2) + [5, 6, 0, 0, 3],
             expected: .success(RTPPacket(payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF, payload: [5, 6], paddingSize: 3))),
        Case(name: "padding that is the whole payload", bytes: [0xA0, 0x60] + header.dropFirst(2) + [0, 2],
             expected: .success(RTPPacket(payloadType: 96, sequenceNumber: 0x1234, timestamp: 90000, ssrc: 0xDEAD_BEEF, payload: [], paddingSize: 2))),
        Case(name: "short fixed header", bytes: Array(header.prefix(11)), expected: .failure(.truncated(needed: 4, available: 3))),
        Case(name: "empty input", bytes: [], expected: .failure(.truncated(needed: 1, available: 0))),
        Case(name: "CSRC list cut short", bytes: [0x83, 0x60] + header.dropFirst(2) + [0, 0, 0, 1, 0, 0],
             expected: .failure(.truncated(needed: 4, available: 2))),
        Case(name: "extension longer than the packet", bytes: [0x90, 0x60] + header.dropFirst(2) + [0xBE, 0xDE, 0, 2, 1, 2, 3, 4],
             expected: .failure(.truncated(needed: 8, available: 4))),
        Case(name: "extension header cut short", bytes: [0x90, 0x60] + header.dropFirst(2) + [0xBE],
             expected: .failure(.truncated(needed: 2, available: 1))),
        Case(name: "padding count larger than the payload", bytes: [0xA0, 0x60] + header.dropFirst(2) + [1, 9],
             expected: .failure(.invalid(structure: "RTP header", reason: "padding of 9 octets in a 2-octet payload"))),
        Case(name: "padding count of zero", bytes: [0xA0, 0x60] + header.dropFirst(2) + [1, 0],
             expected: .failure(.invalid(structure: "RTP header", reason: "padding bit set but the padding count is 0 or absent"))),
        Case(name: "padding bit without payload", bytes: [0xA0, 0x60] + header.dropFirst(2),
             expected: .failure(.invalid(structure: "RTP header", reason: "padding bit set but the padding count is 0 or absent"))),
        Case(name: "version 1", bytes: [0x40, 0x60] + header.dropFirst(2),
             expected: .failure(.invalid(structure: "RTP header", reason: "version 1, expected 2"))),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        switch c.expected {
        case let .success(packet):
            #expect(try RTPPacket(parsing: c.bytes) == packet)
            // Writing gives the same bytes back (padding is written as zeros ending with the count).
            #expect(packet.serialized == c.bytes)
        case let .failure(error):
            #expect(throws: error) { try RTPPacket(parsing: c.bytes) }
        }
    }

    @Test func readsFromASliceThatDoesNotStartAtZero() throws {
        let buffer: [UInt8] = [0xFF, 0xFF] + Self.header + [4, 5]
        let packet = try RTPPacket(parsing: buffer[2...])
        #expect(packet.sequenceNumber == 0x1234)
        #expect(Array(packet.payload) == [4, 5])
    }
}

@Suite("RTP sequence numbers and timestamps")
struct RTPSequenceTests {
    @Test(arguments: [
        (UInt16(1), UInt16(2), 1), (UInt16(65535), UInt16(0), 1), (UInt16(65530), UInt16(4), 10),
        (UInt16(4), UInt16(65530), -10), (UInt16(100), UInt16(100), 0), (UInt16(0), UInt16(32767), 32767),
        (UInt16(0), UInt16(32768), -32768),
    ])
    func distanceAcrossTheWrap(from: UInt16, to: UInt16, steps: Int) {
        #expect(RTPSequenceNumber(from).distance(to: RTPSequenceNumber(to)) == steps)
        #expect((RTPSequenceNumber(from) < RTPSequenceNumber(to)) == (steps > 0))
        #expect(RTPSequenceNumber(from).advanced(by: steps) == RTPSequenceNumber(to))
    }

    @Test func unwrapsForwardAcrossTheWrap() {
        var unwrapper = RTPTimestampUnwrapper()
        #expect(unwrapper.unwrap(0xFFFF_0000) == 0xFFFF_0000)
        #expect(unwrapper.unwrap(0xFFFF_F000) == 0xFFFF_F000)
        #expect(unwrapper.unwrap(0x0000_0F00) == 0x1_0000_0F00)
        #expect(unwrapper.unwrap(0x8000_0000) == 0x1_8000_0000)
        #expect(unwrapper.unwrap(0xF000_0000) == 0x1_F000_0000)
        #expect(unwrapper.unwrap(0x1000_0000) == 0x2_1000_0000)
    }

    @Test func smallStepsBackStayBackEvenAcrossTheWrap() {
        var unwrapper = RTPTimestampUnwrapper()
        #expect(unwrapper.unwrap(10) == 10)
        // A B-frame's earlier presentation time just before the wrap.
        #expect(unwrapper.unwrap(0xFFFF_FFF0) == -16)
        #expect(unwrapper.unwrap(3000) == 3000)
        #expect(unwrapper.unwrap(0x0000_0000) == 0)
        unwrapper.reset()
        #expect(unwrapper.unwrap(0xFFFF_FFF0) == 0xFFFF_FFF0)
    }
}
