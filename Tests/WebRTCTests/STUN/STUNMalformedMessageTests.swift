import Testing
import WebRTC

/// A Binding request's bytes with `attributes` (type, value) zero-padded, the header length counting them.
private func request(_ attributes: [(UInt16, [UInt8])]) -> [UInt8] {
    var body: [UInt8] = []
    for (type, value) in attributes {
        body += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        body += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }
    return [0x00, 0x01, UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 7, count: 12) + body
}

/// `bytes` with its header length field set to `length`.
private func withLength(_ length: Int, _ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    bytes[2] = UInt8(length >> 8)
    bytes[3] = UInt8(length & 0xFF)
    return bytes
}

@Suite("STUN messages: malformed input")
struct STUNMalformedMessageTests {
    static let cases: [(String, [UInt8], STUNError)] = [
        ("empty", [], .truncated(structure: "STUN header", needed: 20, available: 0)),
        ("a truncated header", Array(request([]).prefix(19)), .truncated(structure: "STUN header", needed: 20, available: 19)),
        ("the first bit set", [0x80] + request([]).dropFirst(), .malformed(structure: "STUN header", reason: "the first two bits are not zero")),
        ("the second bit set (an RTP-like first byte)", [0x40] + request([]).dropFirst(),
         .malformed(structure: "STUN header", reason: "the first two bits are not zero")),
        ("a length not a multiple of 4", withLength(6, request([(0x8022, [0x61, 0x62])])),
         .malformed(structure: "STUN header", reason: "message length 6 is not a multiple of 4")),
        ("a bad magic cookie", Array(request([]).prefix(4)) + [0x21, 0x12, 0xA4, 0x43] + request([]).dropFirst(8),
         .malformed(structure: "STUN header", reason: "magic cookie 0x2112A443 is not 0x2112A442")),
        ("a length past the datagram", withLength(12, request([(0x0024, [0, 0, 0, 1])])),
         .truncated(structure: "STUN message", needed: 32, available: 28)),
        ("bytes after the message", withLength(4, request([(0x0025, []), (0x0025, [])])),
         .malformed(structure: "STUN message", reason: "4 bytes follow the message length 4")),
        ("an attribute running past the end", withLength(8, Array(request([(0x8022, [UInt8](repeating: 0x61, count: 8))]).prefix(28))),
         .malformed(structure: "SOFTWARE", reason: "value of 8 bytes (padded to 8) runs past the end of the message, 4 bytes left")),
        ("an attribute's padding running past the end", withLength(8, Array(request([(0x8022, [0x61, 0x62, 0x63, 0x64, 0x65])]).prefix(28))),
         .malformed(structure: "SOFTWARE", reason: "value of 5 bytes (padded to 8) runs past the end of the message, 4 bytes left")),
        ("FINGERPRINT not last", request([(0x8028, [0, 0, 0, 0]), (0x8022, [0x61])]),
         .malformed(structure: "FINGERPRINT", reason: "is not the last attribute")),
        ("a message over 1,500 bytes", request([(0x8000, [UInt8](repeating: 0, count: 1480))]),
         .limitExceeded(what: "STUN message size", value: 1504, limit: 1500)),
        ("a USERNAME over 513 bytes", request([(0x0006, [UInt8](repeating: 0x61, count: 514))]),
         .limitExceeded(what: "USERNAME length", value: 514, limit: 513)),
        ("a USERNAME that is not UTF-8", request([(0x0006, [0x61, 0xFF, 0x3A, 0x62])]),
         .malformed(structure: "USERNAME", reason: "the value is not UTF-8")),
        ("XOR-MAPPED-ADDRESS of family 3", request([(0x0020, [0, 3, 0, 1, 1, 2, 3, 4])]),
         .malformed(structure: "XOR-MAPPED-ADDRESS", reason: "family 0x3 is neither IPv4 (1) nor IPv6 (2)")),
        ("XOR-MAPPED-ADDRESS with an IPv4 family and 16 bytes", request([(0x0020, [0, 1, 0, 1] + [UInt8](repeating: 0, count: 16))]),
         .malformed(structure: "XOR-MAPPED-ADDRESS", reason: "20 bytes for an IPv4 address, expected 8")),
        ("a truncated MAPPED-ADDRESS", request([(0x0001, [0, 1])]), .truncated(structure: "MAPPED-ADDRESS", needed: 4, available: 2)),
        ("PRIORITY of 2 bytes", request([(0x0024, [0, 1])]), .malformed(structure: "PRIORITY", reason: "value of 2 bytes, expected 4")),
        ("USE-CANDIDATE with a value", request([(0x0025, [0, 0, 0, 0])]), .malformed(structure: "USE-CANDIDATE", reason: "value of 4 bytes, expected 0")),
        ("ICE-CONTROLLING of 4 bytes", request([(0x802A, [0, 0, 0, 1])]), .malformed(structure: "ICE-CONTROLLING", reason: "value of 4 bytes, expected 8")),
        ("MESSAGE-INTEGRITY of 16 bytes", request([(0x0008, [UInt8](repeating: 0, count: 16))]),
         .malformed(structure: "MESSAGE-INTEGRITY", reason: "value of 16 bytes, expected 20")),
        ("FINGERPRINT of 8 bytes", request([(0x8028, [UInt8](repeating: 0, count: 8))]),
         .malformed(structure: "FINGERPRINT", reason: "value of 8 bytes, expected 4")),
        ("ERROR-CODE of class 7", request([(0x0009, [0, 0, 7, 0])]),
         .malformed(structure: "ERROR-CODE", reason: "class 7 number 0 is not a code in 300...699")),
        ("ERROR-CODE number 100", request([(0x0009, [0, 0, 4, 100])]),
         .malformed(structure: "ERROR-CODE", reason: "class 4 number 100 is not a code in 300...699")),
        ("UNKNOWN-ATTRIBUTES of an odd length", request([(0x000A, [0, 0x30, 0])]),
         .malformed(structure: "UNKNOWN-ATTRIBUTES", reason: "value of 3 bytes is not a list of 16-bit types")),
    ]

    @Test(arguments: cases)
    func refuses(name: String, bytes: [UInt8], error: STUNError) {
        #expect(throws: error, "\(name)") { try STUNMessage(parsing: bytes) }
    }

    @Test func theBuilderMakesValidMessages() throws {
        // The table's messages are broken only where each case breaks them.
        #expect(try STUNMessage(parsing: request([(0x0024, [0, 0, 0, 1]), (0x8022, [0x61])])).priority == 1)
    }
}
