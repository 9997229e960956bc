import Testing
import WebRTC

@Suite("STUN messages: RFC 5769 vectors")
struct STUNMessageTests {
    let transactionID = STUNTransactionID(bytes: STUNTestVectors.transactionID)!
    let key = Array(STUNTestVectors.password.utf8)

    @Test func readsTheSampleRequest() throws {
        let message = try STUNMessage(parsing: STUNTestVectors.request)
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == transactionID)
        #expect(message.attributes == [
            .software("STUN test client"), .priority(0x6E00_01FF), .iceControlled(tieBreaker: 0x932F_F9B1_5126_3B36), .username("evtj:h6vY"),
            .messageIntegrity(STUNTestVectors.hex("9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2")), .fingerprint(0xE57A_3BCF),
        ])
        #expect(message.username == "evtj:h6vY" && message.priority == 0x6E00_01FF && message.iceControlling == nil && !message.useCandidate)
        #expect(STUNMessageIntegrity.verify(STUNTestVectors.request, key: key) == .valid)
        #expect(STUNFingerprint.verify(STUNTestVectors.request) == .valid)
    }

    @Test(arguments: [
        (STUNTestVectors.ipv4Response, TransportAddress.ipv4(192, 0, 2, 1, port: 32853)),
        (STUNTestVectors.ipv6Response, TransportAddress(address: STUNTestVectors.hex("20 01 0d b8 12 34 56 78 00 11 22 33 44 55 66 77"), port: 32853)!),
    ])
    func readsTheSampleResponses(bytes: [UInt8], mapped: TransportAddress) throws {
        let message = try STUNMessage(parsing: bytes)
        #expect(message.type == .bindingSuccess)
        #expect(message.transactionID == transactionID)
        #expect(message.attributes.first == .software("test vector"))
        #expect(message.xorMappedAddress == mapped)
        #expect(STUNMessageIntegrity.verify(bytes, key: key) == .valid)
        #expect(STUNMessageIntegrity.verify(bytes, key: Array("VOkJxbRl1RmTxUk/WvJxBT".utf8)) == .invalid)
        #expect(STUNFingerprint.verify(bytes) == .valid)
    }

    @Test(arguments: [STUNTestVectors.request, STUNTestVectors.ipv4Response, STUNTestVectors.ipv6Response])
    func writesTheVectorsBackByteForByte(bytes: [UInt8]) throws {
        let message = try STUNMessage(parsing: bytes)
        // The vectors pad with spaces; the attributes' own MESSAGE-INTEGRITY and FINGERPRINT values are written as read.
        #expect(message.serialized(padding: 0x20) == bytes)
        // Computed again from the password, both checksums come out as the RFC prints them.
        #expect(message.serialized(integrityKey: key, fingerprint: true, padding: 0x20) == bytes)
    }

    @Test func messageTypesInterleaveMethodAndClass() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccess.rawValue == 0x0101)
        #expect(STUNMessageType.bindingError.rawValue == 0x0111)
        let allocateError = STUNMessageType(method: STUNMethod(rawValue: 0x003)!, messageClass: .errorResponse)
        #expect(allocateError.rawValue == 0x0113)
        for raw in [UInt16(0x0000), 0x0113, 0x3EEF, 0x3FFF, 0x1234] { #expect(STUNMessageType(rawValue: raw).rawValue == raw) }
        #expect(STUNMethod(rawValue: 0x1000) == nil)
    }

    @Test func crc32MatchesTheCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func everyAttributeReadsBack() throws {
        let v6 = TransportAddress(address: Array(1...16), port: 443)!
        let message = STUNMessage(type: .bindingError, transactionID: transactionID, attributes: [
            .mappedAddress(.ipv4(10, 0, 0, 1, port: 5000)), .mappedAddress(v6), .xorMappedAddress(v6), .username("a:b"),
            .errorCode(STUNErrorCode(code: 438, reason: "Stale Nonce")!), .unknownAttributes([0x0030, 0x0031, 0x0032]), .priority(7),
            .useCandidate, .iceControlling(tieBreaker: 1), .software("sluice"), .other(type: 0xC057, value: [1, 2, 3, 4, 5]),
        ])
        let bytes = message.serialized(integrityKey: key)
        #expect(bytes.count % 4 == 0)
        var expected = message
        expected.attributes += [.messageIntegrity(Array(bytes[(bytes.count - 28)..<(bytes.count - 8)])), .fingerprint(0)]
        let read = try STUNMessage(parsing: bytes)
        #expect(Array(read.attributes.dropLast()) == Array(expected.attributes.dropLast()))
        #expect(read.errorCode?.code == 438 && read.unknownComprehensionRequired.isEmpty)
        #expect(STUNMessageIntegrity.verify(bytes, key: key) == .valid && STUNFingerprint.verify(bytes) == .valid)
    }

    @Test func attributesAfterMessageIntegrityAreIgnoredButFingerprintIsKept() throws {
        var bytes = STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: [.username("a:b")]).serialized(integrityKey: key, fingerprint: false)
        // SOFTWARE "x" after MESSAGE-INTEGRITY, then FINGERPRINT.
        bytes += [0x80, 0x22, 0x00, 0x01, 0x78, 0, 0, 0]
        bytes[3] += 8
        STUNFingerprint.append(to: &bytes)
        let read = try STUNMessage(parsing: bytes)
        #expect(read.attributes.map(\.type) == [.username, .messageIntegrity, .fingerprint])
        // The integrity still holds: it never covered what follows it.
        #expect(STUNMessageIntegrity.verify(bytes, key: key) == .valid && STUNFingerprint.verify(bytes) == .valid)
    }

    @Test func unknownComprehensionRequiredAttributesAreNamed() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: transactionID,
                                  attributes: [.other(type: 0x0030, value: []), .other(type: 0xC057, value: [0, 1, 0, 0])])
        #expect(try STUNMessage(parsing: message.serialized()).unknownComprehensionRequired == [0x0030])
    }
}
