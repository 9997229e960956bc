// docs/ARCHITECTURE.md §6: why a secrets key could not be configured or a sealed secret could not be opened.

/// Every failure of sealing at rest, with a sentence that names variables, files and key ids, never key bytes.
public enum SecretsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Both SLUICE_SECRETS_KEY and SLUICE_SECRETS_KEY_FILE are set.
    case bothConfigured
    /// A keyring was built with no key.
    case noKeys
    /// The variable or file holds no key entry.
    case noKeysIn(source: String)
    /// An entry is not `ID:BASE64` of 32 bytes (entries are counted from 1).
    case malformedKey(source: String, entry: Int, reason: String)
    /// Two entries share an id.
    case duplicateKeyID(String)
    /// The key file could not be read.
    case unreadableKeyFile(path: String, reason: String)
    /// The job has secrets sealed with key `keyID`, and no key is configured.
    case keyNotConfigured(keyID: String)
    /// The job's secrets were sealed with a key the keyring no longer (or never) had.
    case unknownKey(keyID: String, known: [String])
    /// The blob is not a sealed secret of this format.
    case malformedBlob
    /// The key with the right id does not open the blob: another key under the same id, or a damaged blob.
    case cannotOpen(keyID: String)

    /// A sentence for the CLI and the logs.
    public var description: String {
        switch self {
        case .bothConfigured:
            "set SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE, not both"
        case .noKeys:
            "a secrets keyring needs at least one key"
        case let .noKeysIn(source):
            "\(source) holds no key (expected ID:BASE64 entries of \(SecretKeyring.keyBytes) bytes, the current key first)"
        case let .malformedKey(source, entry, reason):
            "\(source): key entry \(entry) is not ID:BASE64 of \(SecretKeyring.keyBytes) bytes (\(reason))"
        case let .duplicateKeyID(id):
            "two secrets keys have the id '\(id)'"
        case let .unreadableKeyFile(path, reason):
            "cannot read the secrets key file \(path): \(reason)"
        case let .keyNotConfigured(keyID):
            "its secrets are sealed with key '\(keyID)'; set SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE to a keyring holding that key"
        case let .unknownKey(keyID, known):
            "its secrets are sealed with key '\(keyID)', which the configured keyring (\(known.joined(separator: ", "))) does not hold; add it to SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE"
        case .malformedBlob:
            "its sealed secrets are not in a format this sluice reads"
        case let .cannotOpen(keyID):
            "its secrets do not open with the configured key '\(keyID)' (another key under that id, or a damaged row)"
        }
    }
}
