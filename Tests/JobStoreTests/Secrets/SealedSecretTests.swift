import Foundation
import Testing

@testable import JobStore

/// AES-GCM sealing: the blob's format, rotation by key id, and what each refusal says.
@Suite struct SealedSecretTests {
    let secret = #"{"id":"cam42","outputs":["rtmp://user:password@host/app/SECRETKEY"]}"#
    let context = "jobs.spec_sealed:cam42"

    func keyring(_ text: String) throws -> SecretKeyring {
        try SecretKeyring(parsing: text, source: "test")
    }

    @Test("a sealed blob names its key, hides the text, and opens back")
    func roundTrip() throws {
        let keys = try keyring("k1:\(SecretKeyringTests.key(1))")
        let blob = try SealedSecret.seal(secret, context: context, with: keys)
        #expect(blob.hasPrefix("sealed1:k1:"))
        #expect(!blob.contains("SECRETKEY") && !blob.contains("password"))
        #expect(SealedSecret.keyID(of: blob) == "k1")
        #expect(try SealedSecret.open(blob, context: context, with: keys) == secret)
    }

    @Test("two seals of the same text differ (a fresh nonce each time)")
    func freshNonce() throws {
        let keys = try keyring("k1:\(SecretKeyringTests.key(1))")
        #expect(try SealedSecret.seal(secret, context: context, with: keys) != SealedSecret.seal(secret, context: context, with: keys))
    }

    @Test("rotation: a blob sealed with the old key opens while the old key is listed after the new one")
    func rotation() throws {
        let old = try keyring("k1:\(SecretKeyringTests.key(1))")
        let blob = try SealedSecret.seal(secret, context: context, with: old)
        let rotated = try keyring("k2:\(SecretKeyringTests.key(2)),k1:\(SecretKeyringTests.key(1))")
        #expect(try SealedSecret.open(blob, context: context, with: rotated) == secret)
        #expect(try SealedSecret.seal(secret, context: context, with: rotated).hasPrefix("sealed1:k2:"))
        let dropped = try keyring("k2:\(SecretKeyringTests.key(2))")
        #expect(throws: SecretsError.unknownKey(keyID: "k1", known: ["k2"])) {
            try SealedSecret.open(blob, context: context, with: dropped)
        }
    }

    @Test("without a keyring the error names the key and the variables to set")
    func noKeyring() throws {
        let blob = try SealedSecret.seal(secret, context: context, with: keyring("k1:\(SecretKeyringTests.key(1))"))
        let error = try #require(throws: SecretsError.self) { try SealedSecret.open(blob, context: context, with: nil) }
        #expect(error == .keyNotConfigured(keyID: "k1"))
        #expect(error.description.contains("SLUICE_SECRETS_KEY") && error.description.contains("'k1'"))
    }

    @Test("another key under the same id, another job's context, or a flipped byte does not open")
    func refusals() throws {
        let keys = try keyring("k1:\(SecretKeyringTests.key(1))")
        let blob = try SealedSecret.seal(secret, context: context, with: keys)
        let impostor = try keyring("k1:\(SecretKeyringTests.key(9))")
        #expect(throws: SecretsError.cannotOpen(keyID: "k1")) { try SealedSecret.open(blob, context: context, with: impostor) }
        #expect(throws: SecretsError.cannotOpen(keyID: "k1")) {
            try SealedSecret.open(blob, context: "jobs.spec_sealed:other", with: keys)
        }
        var payload = try #require(Data(base64Encoded: String(blob.dropFirst("sealed1:k1:".count))))
        payload[payload.count / 2] ^= 0x01
        let damaged = "sealed1:k1:" + payload.base64EncodedString()
        #expect(throws: SecretsError.cannotOpen(keyID: "k1")) { try SealedSecret.open(damaged, context: context, with: keys) }
        for malformed in ["", "sealed1:k1", "sealed2:k1:AAAA", "sealed1:bad/id:AAAA", "sealed1:k1:AAAA", "sealed1:k1:*"] {
            #expect(throws: SecretsError.malformedBlob) { try SealedSecret.open(malformed, context: context, with: keys) }
        }
    }
}
