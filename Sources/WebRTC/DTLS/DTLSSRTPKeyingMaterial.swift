// RFC 5764 §4.2: the keying material exported as "EXTRACTOR-dtls_srtp", split into both sides' keys and salts.

/// The SRTP master keys and salts a DTLS handshake produced, for both directions.
public struct DTLSSRTPKeyingMaterial: Equatable, Sendable {
    /// The exporter label of RFC 5764 §4.2.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// The negotiated profile, which fixes the lengths below.
    public let profile: SRTPProtectionProfile
    /// The exporter's output as it came: client key, server key, client salt, server salt.
    public let exported: [UInt8]

    /// Splits the exporter output of `profile`.
    /// - Parameter exported: 2 × (key + salt) bytes, in RFC 5764 §4.2's order.
    public init(profile: SRTPProtectionProfile, exported: [UInt8]) throws(DTLSError) {
        let expected = 2 * (profile.masterKeyLength + profile.masterSaltLength)
        guard exported.count == expected else {
            throw .invalidSetting(name: "keying material", reason: "\(profile) needs \(expected) bytes, not \(exported.count)")
        }
        self.profile = profile
        self.exported = exported
    }

    /// The master key followed by the master salt that `role`'s side protects with (what libsrtp takes).
    public func keyAndSalt(of role: DTLSRole) -> [UInt8] {
        let keyLength = profile.masterKeyLength
        let saltLength = profile.masterSaltLength
        let keyStart = role == .client ? 0 : keyLength
        let saltStart = 2 * keyLength + (role == .client ? 0 : saltLength)
        return Array(exported[keyStart..<keyStart + keyLength]) + Array(exported[saltStart..<saltStart + saltLength])
    }
}
