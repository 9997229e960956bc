// docs/ARCHITECTURE.md §6: the format of a secret sealed at rest (AES-256-GCM), as stored in `jobs.spec_sealed`.
import Crypto
import Foundation

/// A secret sealed with AES-256-GCM: `sealed1:<key id>:<base64 of nonce ‖ ciphertext ‖ tag>`.
///
/// The key id is in clear so that a keyring with several keys (rotation) knows which one opens it. The
/// `context` (the job id and the column) is authenticated, not stored: a blob copied onto another job's row does
/// not open there.
public enum SealedSecret {
    /// The format tag; a later format gets a new one.
    static let prefix = "sealed1"
    /// AES-GCM's nonce, in front of the ciphertext.
    static let nonceBytes = 12
    /// AES-GCM's tag, after the ciphertext.
    static let tagBytes = 16

    /// Seals `plaintext` with the keyring's current key.
    /// - Parameters:
    ///   - plaintext: the secret text.
    ///   - context: what the blob belongs to, authenticated with it (for a job's spec: `spec:<job id>`).
    ///   - keyring: its current key seals.
    /// - Returns: the blob text.
    public static func seal(_ plaintext: String, context: String, with keyring: SecretKeyring) throws -> String {
        let key = keyring.current
        let box = try AES.GCM.seal(Data(plaintext.utf8), using: key.key, authenticating: Data(context.utf8))
        guard let combined = box.combined else {
            // Only a nonce of another size than 12 bytes leaves `combined` nil; `seal` makes 12-byte nonces.
            throw SecretsError.malformedBlob
        }
        return "\(prefix):\(key.id):\(combined.base64EncodedString())"
    }

    /// The key id a blob names, or nil when it is not a sealed secret.
    /// - Parameter blob: text from `seal`.
    public static func keyID(of blob: String) -> String? {
        parts(of: blob)?.keyID
    }

    /// Opens a blob with the keyring's key of the id it names.
    /// - Parameters:
    ///   - blob: text from `seal`.
    ///   - context: the same context it was sealed with.
    ///   - keyring: the configured keys, or nil when none is (the error then says which key is needed).
    /// - Returns: the secret text.
    public static func open(_ blob: String, context: String, with keyring: SecretKeyring?) throws(SecretsError) -> String {
        guard let parts = parts(of: blob) else { throw .malformedBlob }
        let (keyID, payload) = parts
        guard let keyring else { throw .keyNotConfigured(keyID: keyID) }
        guard let key = keyring.key(id: keyID) else {
            throw .unknownKey(keyID: keyID, known: keyring.entries.map(\.id))
        }
        guard let combined = Data(base64Encoded: String(payload)), combined.count >= nonceBytes + tagBytes else {
            throw .malformedBlob
        }
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            let plaintext = try AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
            return String(decoding: plaintext, as: UTF8.self)
        } catch {
            throw .cannotOpen(keyID: keyID)
        }
    }

    /// The key id and the base64 payload of a well-formed blob.
    private static func parts(of blob: String) -> (keyID: String, payload: Substring)? {
        let fields = blob.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == prefix, SecretKeyring.isValidKeyID(fields[1]) else { return nil }
        return (String(fields[1]), fields[2])
    }
}
