// RFC 8839 §5.4 ice-ufrag and ice-pwd, §5.6 ice-options; RFC 8842 §5 fingerprint and setup: session or media level.

/// The ICE credentials and DTLS parameters a description gives for a transport. They may sit at session level, in a
/// media section, or both; `overridden(by:)` gives the media section's view (RFC 8839 §5.4: media level wins).
public struct TransportAttributes: Sendable, Equatable {
    public var iceUfrag: String?
    public var icePassword: String?
    /// "trickle", "ice2", ... (RFC 8839 §5.6), in order.
    public var iceOptions: [String]
    /// Every `a=fingerprint` in order; a peer may give one per hash function.
    public var fingerprints: [DTLSFingerprint]
    public var setup: DTLSSetup?

    public init(iceUfrag: String? = nil, icePassword: String? = nil, iceOptions: [String] = [], fingerprints: [DTLSFingerprint] = [],
                setup: DTLSSetup? = nil) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.setup = setup
    }

    /// These values with every one `media` gives replacing the session's.
    public func overridden(by media: TransportAttributes) -> TransportAttributes {
        TransportAttributes(iceUfrag: media.iceUfrag ?? iceUfrag, icePassword: media.icePassword ?? icePassword,
                            iceOptions: media.iceOptions.isEmpty ? iceOptions : media.iceOptions,
                            fingerprints: media.fingerprints.isEmpty ? fingerprints : media.fingerprints, setup: media.setup ?? setup)
    }

    /// Reads one `a=` line (`value` is what follows "a="); false when it is not one of these attributes.
    mutating func read(attribute value: String, context: SDPLine) throws -> Bool {
        if let ufrag = SDPLine.attribute("ice-ufrag", in: value) {
            iceUfrag = ufrag
        } else if let password = SDPLine.attribute("ice-pwd", in: value) {
            icePassword = password
        } else if let options = SDPLine.attribute("ice-options", in: value) {
            iceOptions += options.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        } else if let fingerprint = SDPLine.attribute("fingerprint", in: value) {
            fingerprints.append(try DTLSFingerprint(parsing: fingerprint, context: context))
        } else if let setup = SDPLine.attribute("setup", in: value) {
            self.setup = try DTLSSetup(parsing: setup, context: context)
        } else {
            return false
        }
        return true
    }

    /// The `a=` lines of these values.
    func render(into lines: inout SDPLines) {
        if let iceUfrag { lines.attribute("ice-ufrag", iceUfrag) }
        if let icePassword { lines.attribute("ice-pwd", icePassword) }
        if !iceOptions.isEmpty { lines.attribute("ice-options", iceOptions.joined(separator: " ")) }
        for fingerprint in fingerprints { lines.attribute("fingerprint", fingerprint.sdpValue) }
        if let setup { lines.attribute("setup", setup.rawValue) }
    }
}
