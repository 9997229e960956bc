import Testing
import WebRTC

@Suite("STUN MESSAGE-INTEGRITY and FINGERPRINT catch every changed bit")
struct STUNChecksumTests {
    let key = Array(STUNTestVectors.password.utf8)

    @Test(arguments: [STUNTestVectors.request, STUNTestVectors.ipv4Response, STUNTestVectors.ipv6Response])
    func everyFlippedBitIsCaught(original: [UInt8]) {
        // MESSAGE-INTEGRITY covers everything up to the FINGERPRINT attribute, which is the last 8 bytes.
        let integrityEnd = original.count - 8
        for index in original.indices {
            for bit in 0..<8 {
                var changed = original
                changed[index] ^= 1 << bit
                #expect(STUNFingerprint.verify(changed) != .valid, "byte \(index) bit \(bit) passed FINGERPRINT")
                if index < integrityEnd {
                    #expect(STUNMessageIntegrity.verify(changed, key: key) != .valid, "byte \(index) bit \(bit) passed MESSAGE-INTEGRITY")
                }
            }
        }
    }

    @Test func aMessageWithoutThemHasNeither() {
        let bytes = STUNMessage(type: .bindingIndication, transactionID: STUNTransactionID(bytes: STUNTestVectors.transactionID)!).serialized()
        #expect(STUNFingerprint.verify(bytes) == .absent)
        #expect(STUNMessageIntegrity.verify(bytes, key: key) == .absent)
        #expect(STUNFingerprint.verify([1, 2, 3]) == .absent)
    }

    @Test func aFingerprintThatIsNotLastIsInvalid() {
        var bytes = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(bytes: STUNTestVectors.transactionID)!).serialized()
        STUNFingerprint.append(to: &bytes)
        #expect(STUNFingerprint.verify(bytes) == .valid)
        bytes += [0x80, 0x22, 0, 0]
        bytes[3] += 4
        #expect(STUNFingerprint.verify(bytes) == .invalid)
    }
}
