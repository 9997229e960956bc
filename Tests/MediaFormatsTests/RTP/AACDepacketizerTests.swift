import Testing
import MediaFormats

@Suite("AAC depacketizer (mpeg4-generic)")
struct AACDepacketizerTests {
    /// AAC-LC, 44.1 kHz, stereo: the config of a typical camera's `a=fmtp`.
    static let fmtp = ["streamtype": "5", "profile-level-id": "1", "mode": "AAC-hbr", "sizelength": "13", "indexlength": "3",
                       "indexdeltalength": "3", "config": "1210"]

    static func parameters() throws -> MPEG4GenericParameters { try MPEG4GenericParameters(parameters: fmtp) }

    /// An AAC-hbr payload: 16-bit AU-headers-length, 16-bit headers (13-bit size + 3-bit index or delta), the data.
    static func payload(_ aus: [[UInt8]], sizes: [Int]? = nil, deltas: [Int]? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendUInt16(UInt16(aus.count * 16))
        for (position, au) in aus.enumerated() {
            let size = sizes?[position] ?? au.count
            bytes.appendUInt16(UInt16(size << 3 | (deltas?[position] ?? 0)))
        }
        for au in aus { bytes += au }
        return bytes
    }

    static func packet(_ sequenceNumber: UInt16, _ timestamp: UInt32, marker: Bool = true, _ payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 97, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 2, payload: payload[...])
    }

    static let a: [UInt8] = [0x21, 0x10, 0x04]
    static let b: [UInt8] = [0x21, 0x20, 0x05, 0x06]
    static let c: [UInt8] = [0x21, 0x30]
    static let big: [UInt8] = (0..<10).map { UInt8($0) }

    static func frame(_ bytes: [UInt8], _ timestamp: UInt32) -> AACDepacketizerOutput {
        .frame(AACFrame(bytes: bytes, rtpTimestamp: timestamp))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [RTPPacket]
        let outputs: [AACDepacketizerOutput]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "one AU per packet", packets: [packet(1, 1000, payload([a])), packet(2, 2024, payload([b]))],
             outputs: [frame(a, 1000), frame(b, 2024)]),
        Case(name: "three AUs in a packet, 1024 samples apart", packets: [packet(1, 0xFFFF_FC00, payload([a, b, c]))],
             outputs: [frame(a, 0xFFFF_FC00), frame(b, 0), frame(c, 1024)]),
        Case(name: "an index delta skips frames", packets: [packet(1, 0, payload([a, b], deltas: [0, 2]))],
             outputs: [frame(a, 0), frame(b, 3072)]),
        Case(name: "an AU in three fragments", packets: [packet(7, 500, marker: false, payload([Array(big[0..<4])], sizes: [10])),
                                                         packet(8, 500, marker: false, payload([Array(big[4..<8])], sizes: [10])),
                                                         packet(9, 500, payload([Array(big[8...])], sizes: [10]))],
             outputs: [frame(big, 500)]),
        Case(name: "a lost fragment drops its AU only",
             packets: [packet(1, 0, marker: false, payload([Array(big[0..<4])], sizes: [10])), packet(3, 0, payload([Array(big[8...])], sizes: [10])),
                       packet(4, 1024, payload([a]))],
             outputs: [.dropped(rtpTimestamp: 0, reason: .packetLoss(lostPackets: 1)),
                       .dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 10, available: 2))), frame(a, 1024)]),
        Case(name: "loss between whole AUs loses nothing kept", packets: [packet(1, 0, payload([a])), packet(5, 4096, payload([b]))],
             outputs: [frame(a, 0), frame(b, 4096)]),
        Case(name: "a fragmented AU cut off by a new timestamp",
             packets: [packet(1, 0, marker: false, payload([Array(big[0..<4])], sizes: [10])), packet(2, 1024, payload([a]))],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "mpeg4-generic payload", reason: "a fragmented AU without its end"))),
                       frame(a, 1024)]),
        Case(name: "fragments longer than the AU",
             packets: [packet(1, 0, marker: false, payload([Array(big[0..<8])], sizes: [10])), packet(2, 0, payload([Array(big[0..<8])], sizes: [10]))],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "mpeg4-generic payload",
                                                                               reason: "fragments of 16 octets for an AU of 10")))]),
        Case(name: "sizes beyond the data of a multi-AU packet", packets: [packet(1, 0, payload([a, b], sizes: [3, 9]))],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 9, available: 4)))]),
        Case(name: "headers length not whole headers", packets: [packet(1, 0, [0x00, 0x0C, 0x00, 0x18] + a)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "AU header section",
                                                                               reason: "12 bits are not whole AU headers of 16 bits")))]),
        Case(name: "no AU header", packets: [packet(1, 0, [0x00, 0x00] + a)],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.invalid(structure: "AU header section", reason: "no AU header")))]),
        Case(name: "headers length beyond the packet", packets: [packet(1, 0, [0x00, 0x40, 0x00])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 8, available: 1)))]),
        Case(name: "empty payload", packets: [packet(1, 0, [])],
             outputs: [.dropped(rtpTimestamp: 0, reason: .malformed(.truncated(needed: 2, available: 0)))]),
        Case(name: "a restarted sender drops the fragment in progress",
             packets: [packet(5000, 0, marker: false, payload([Array(big[0..<4])], sizes: [10])), packet(3, 1024, payload([a]))],
             outputs: [.dropped(rtpTimestamp: 0, reason: .sequenceRestart), frame(a, 1024)]),
        Case(name: "duplicate packet ignored", packets: [packet(1, 0, payload([a])), packet(1, 0, payload([a]))], outputs: [frame(a, 0)]),
    ]

    @Test(arguments: cases)
    func depacketizes(_ c: Case) throws {
        var depacketizer = AACDepacketizer(parameters: try Self.parameters())
        var outputs: [AACDepacketizerOutput] = []
        for packet in c.packets { outputs += depacketizer.depacketize(packet) }
        #expect(outputs == c.outputs)
    }

    @Test func readsTheSDPParameters() throws {
        let parameters = try Self.parameters()
        #expect(parameters.sizeLength == 13 && parameters.indexLength == 3 && parameters.indexDeltaLength == 3)
        #expect(parameters.config.samplingFrequency == 44100 && parameters.config.channelConfiguration == 2 && parameters.config.objectType == 2)
        #expect(parameters.samplesPerFrame == 1024)
        // frameLengthFlag set: 960-sample frames; names in any case; the lbr mode's lengths.
        let lbr = try MPEG4GenericParameters(parameters: ["Mode": "aac-lbr", "SizeLength": "6", "IndexLength": "2", "IndexDeltaLength": "2",
                                                          "Config": "1214"])
        #expect(lbr.samplesPerFrame == 960 && lbr.sizeLength == 6 && lbr.indexDeltaLength == 2)
    }

    @Test func aLowBitrateStreamSplitsByItsOwnLengths() throws {
        let parameters = try MPEG4GenericParameters(parameters: ["mode": "AAC-lbr", "sizelength": "6", "indexlength": "2",
                                                                 "indexdeltalength": "2", "config": "1210"])
        var depacketizer = AACDepacketizer(parameters: parameters)
        // Two 8-bit headers: size 3 + index 0, size 4 + delta 0.
        let payload: [UInt8] = [0x00, 0x10, 3 << 2, 4 << 2] + Self.a + Self.b
        #expect(depacketizer.depacketize(Self.packet(1, 0, payload)) == [Self.frame(Self.a, 0), Self.frame(Self.b, 1024)])
    }

    @Test(arguments: [
        (["mode": "AAC-hbr", "sizelength": "13"], MediaFormatError.invalid(structure: "mpeg4-generic fmtp", reason: "no config parameter")),
        (["mode": "AAC-hbr", "config": "1210"], .invalid(structure: "mpeg4-generic fmtp", reason: "no sizelength parameter")),
        (["sizelength": "13", "config": "1210"], .invalid(structure: "mpeg4-generic fmtp", reason: "no mode parameter")),
        (["mode": "generic", "sizelength": "13", "config": "1210"],
         .unsupported(structure: "mpeg4-generic fmtp", reason: "mode generic (only AAC-hbr and AAC-lbr are read)")),
        (["mode": "AAC-hbr", "sizelength": "40", "config": "1210"],
         .invalid(structure: "mpeg4-generic fmtp", reason: "sizelength=40 is not a length of 0...16 bits")),
        (["mode": "AAC-hbr", "sizelength": "0", "config": "1210"], .invalid(structure: "mpeg4-generic fmtp", reason: "sizelength=0")),
        (["mode": "AAC-hbr", "sizelength": "13", "config": "12G0"],
         .invalid(structure: "mpeg4-generic fmtp", reason: "config=12G0 is not hexadecimal")),
        (["mode": "AAC-hbr", "sizelength": "13", "config": "121"],
         .invalid(structure: "mpeg4-generic fmtp", reason: "config=121 is not hexadecimal")),
        (["mode": "AAC-hbr", "sizelength": "13", "config": "1210", "CTSDeltaLength": "3"],
         .unsupported(structure: "mpeg4-generic fmtp", reason: "ctsdeltalength=3")),
    ])
    func refusesParameters(_ parameters: [String: String], _ error: MediaFormatError) {
        #expect(throws: error) { try MPEG4GenericParameters(parameters: parameters) }
    }
}
