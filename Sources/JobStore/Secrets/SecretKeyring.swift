// docs/ARCHITECTURE.md §6: the keys that seal job secrets at rest, from SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE.
import Crypto
import Foundation

/// The AES-256 keys the store seals and opens job secrets with, by key id.
///
/// The first key is the current one: it seals every new secret. The others only open what they sealed before, so
/// a key is rotated by putting a new entry first and dropping the old one once nothing sealed with it is kept.
/// Key bytes never leave this type: its description names the ids only.
public struct SecretKeyring: Sendable, CustomStringConvertible {
    /// One key and the id its sealed blobs carry.
    public struct Entry: Sendable {
        /// `[A-Za-z0-9._-]{1,64}`, written in clear in every blob the key sealed.
        public let id: String
        /// The key's bytes: swift-crypto's `SymmetricKey` is not `Sendable`, so one is made for each use.
        let bytes: Data

        /// The AES-256 key.
        var key: SymmetricKey { SymmetricKey(data: bytes) }
    }

    /// The environment variable holding the keys themselves.
    public static let keyVariable = "SLUICE_SECRETS_KEY"
    /// The environment variable naming a file that holds the keys (a mounted Kubernetes or compose secret).
    public static let keyFileVariable = "SLUICE_SECRETS_KEY_FILE"
    /// AES-256: the only key size accepted.
    public static let keyBytes = 32
    /// The longest key id; ids are short labels such as `2026-11` or `k1`.
    public static let maxKeyIDLength = 64
    /// The largest key file read (a few hundred keys at most).
    static let maxFileBytes = 64 * 1024

    /// Every key, the current one first.
    public let entries: [Entry]

    /// The key that seals new secrets.
    public var current: Entry { entries[0] }

    /// Builds a keyring from entries, the current one first.
    /// - Parameter entries: at least one; ids must be distinct.
    init(entries: [Entry]) throws(SecretsError) {
        guard !entries.isEmpty else { throw .noKeys }
        var seen = Set<String>()
        for entry in entries where !seen.insert(entry.id).inserted { throw .duplicateKeyID(entry.id) }
        self.entries = entries
    }

    /// Parses key text: entries separated by newlines, commas or spaces, each `ID:BASE64` or a bare `BASE64`
    /// (its id is then the first 8 bytes of the key's SHA-256, in hex). Empty lines and `#` comments are skipped.
    /// - Parameters:
    ///   - text: the entries, the current key first.
    ///   - source: where the text came from, for error messages (never the text itself).
    public init(parsing text: String, source: String) throws(SecretsError) {
        var entries: [Entry] = []
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        for line in lines where !line.isEmpty && !line.hasPrefix("#") {
            for item in line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
                entries.append(try Self.entry(String(item), number: entries.count + 1, source: source))
            }
        }
        guard !entries.isEmpty else { throw .noKeysIn(source: source) }
        try self.init(entries: entries)
    }

    /// The keyring an environment configures, or nil when it configures none.
    ///
    /// `SLUICE_SECRETS_KEY` wins over `SLUICE_SECRETS_KEY_FILE`; setting both is refused, since which one
    /// holds the current key would be a guess.
    /// - Parameter environment: the process environment.
    public static func configured(by environment: [String: String]) throws(SecretsError) -> SecretKeyring? {
        let inline = environment[keyVariable].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment[keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch (inline, file) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw .bothConfigured
        case let (text?, nil):
            return try SecretKeyring(parsing: text, source: keyVariable)
        case let (nil, path?):
            return try SecretKeyring(parsing: try readKeyFile(path), source: "\(keyFileVariable) (\(path))")
        }
    }

    /// The key with this id, if the keyring has it.
    /// - Parameter id: a key id from a sealed blob.
    func key(id: String) -> SymmetricKey? {
        entries.first { $0.id == id }?.key
    }

    /// Names the key ids only.
    public var description: String {
        "SecretKeyring(current: \(current.id), keys: \(entries.map(\.id).joined(separator: ", ")))"
    }

    /// Whether `id` may name a key: what a blob header and a log line can carry without quoting.
    static func isValidKeyID(_ id: Substring) -> Bool {
        !id.isEmpty && id.count <= maxKeyIDLength
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D  // . _ -
            }
    }

    /// One `ID:BASE64` or `BASE64` entry; errors name the entry by number, never by its text.
    private static func entry(_ item: String, number: Int, source: String) throws(SecretsError) -> Entry {
        let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let keyText = parts.count == 2 ? parts[1] : parts[0]
        guard let bytes = Data(base64Encoded: String(keyText)) else {
            throw .malformedKey(source: source, entry: number, reason: "not base64")
        }
        guard bytes.count == keyBytes else {
            throw .malformedKey(source: source, entry: number, reason: "\(bytes.count) bytes, not \(keyBytes)")
        }
        guard parts.count == 2 else {
            let digest = SHA256.hash(data: bytes)
            return Entry(id: digest.prefix(8).map { String(format: "%02x", $0) }.joined(), bytes: bytes)
        }
        guard isValidKeyID(parts[0]) else {
            throw .malformedKey(
                source: source, entry: number,
                reason: "its id is not 1–\(maxKeyIDLength) of A–Z a–z 0–9 . _ -")
        }
        return Entry(id: String(parts[0]), bytes: bytes)
    }

    /// The key file's text, bounded in size.
    private static func readKeyFile(_ path: String) throws(SecretsError) -> String {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
            guard data.count <= maxFileBytes else {
                throw SecretsError.unreadableKeyFile(path: path, reason: "larger than \(maxFileBytes) bytes")
            }
            return String(decoding: data, as: UTF8.self)
        } catch let error as SecretsError {
            throw error
        } catch {
            throw .unreadableKeyFile(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}
