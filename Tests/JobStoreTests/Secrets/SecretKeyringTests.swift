import Foundation
import Testing

@testable import JobStore

/// Parsing SLUICE_SECRETS_KEY / SLUICE_SECRETS_KEY_FILE: ids, rotation order, and errors that never echo a key.
@Suite struct SecretKeyringTests {
    /// 32 bytes of `byte`, base64.
    static func key(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

    @Test("entries are ID:BASE64, the first one current; commas, spaces, newlines and # comments separate them")
    func parsesEntries() throws {
        let text = "# rotated 2026-11\nk2:\(Self.key(2)), k1:\(Self.key(1))\n\n  old:\(Self.key(0))\n"
        let keyring = try SecretKeyring(parsing: text, source: "test")
        #expect(keyring.entries.map(\.id) == ["k2", "k1", "old"])
        #expect(keyring.current.id == "k2")
    }

    @Test("a bare base64 key gets the first 8 bytes of its SHA-256 as id, the same every time")
    func bareKeyID() throws {
        let first = try SecretKeyring(parsing: Self.key(7), source: "test")
        let second = try SecretKeyring(parsing: Self.key(7), source: "test")
        #expect(first.current.id == second.current.id)
        #expect(first.current.id.count == 16 && first.current.id.allSatisfy(\.isHexDigit))
        #expect(try SecretKeyring(parsing: Self.key(8), source: "test").current.id != first.current.id)
    }

    /// Each malformed entry, and the text the error must contain (the entry's number, never its bytes).
    @Test(arguments: [
        ("k1:not*base64", "key entry 1 is not ID:BASE64 of 32 bytes (not base64)"),
        ("k1:\(Data(repeating: 1, count: 16).base64EncodedString())", "(16 bytes, not 32)"),
        ("k1:\(SecretKeyringTests.key(1)),bad/id:\(SecretKeyringTests.key(2))", "key entry 2 is not ID:BASE64"),
        ("# only a comment", "holds no key"),
        ("a:\(SecretKeyringTests.key(1)) a:\(SecretKeyringTests.key(2))", "two secrets keys have the id 'a'"),
    ])
    func refusesMalformed(text: String, message: String) throws {
        let error = try #require(throws: SecretsError.self) { try SecretKeyring(parsing: text, source: "SLUICE_SECRETS_KEY") }
        #expect(error.description.contains(message), "\(error)")
        #expect(!error.description.contains(Self.key(1)) && !error.description.contains(Self.key(2)))
    }

    @Test("the environment: none, inline, a file, or both (refused)")
    func environment() throws {
        #expect(try SecretKeyring.configured(by: [:]) == nil)
        #expect(try SecretKeyring.configured(by: ["SLUICE_SECRETS_KEY": ""]) == nil)
        #expect(try SecretKeyring.configured(by: ["SLUICE_SECRETS_KEY": "k:\(Self.key(1))"])?.current.id == "k")

        let directory = try TemporaryDirectory()
        let file = directory.file("keys")
        try "f2:\(Self.key(2))\nf1:\(Self.key(1))\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try SecretKeyring.configured(by: ["SLUICE_SECRETS_KEY_FILE": file])?.entries.map(\.id) == ["f2", "f1"])

        #expect(throws: SecretsError.bothConfigured) {
            try SecretKeyring.configured(by: ["SLUICE_SECRETS_KEY": "k:\(Self.key(1))", "SLUICE_SECRETS_KEY_FILE": file])
        }
        let missing = try #require(throws: SecretsError.self) {
            try SecretKeyring.configured(by: ["SLUICE_SECRETS_KEY_FILE": directory.file("absent")])
        }
        #expect(missing.description.contains("cannot read the secrets key file \(directory.file("absent"))"))
    }

    @Test("the description names ids, not keys")
    func descriptionHidesKeys() throws {
        let keyring = try SecretKeyring(parsing: "k2:\(Self.key(2)),k1:\(Self.key(1))", source: "test")
        #expect(keyring.description == "SecretKeyring(current: k2, keys: k2, k1)")
    }
}
