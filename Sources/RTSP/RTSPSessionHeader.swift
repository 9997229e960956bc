// RFC 2326 §12.37 Session: the identifier SETUP answers with, and the server's timeout (60 s when not given).

/// A Session header: `12345678;timeout=60`.
public struct RTSPSessionHeader: Sendable, Equatable {
    /// The timeout a server means when it does not say.
    public static let defaultTimeout = 60
    /// The longest identifier kept; the spec's is 8 or more characters, cameras' are under 64.
    public static let maxIdentifierLength = 256

    public var identifier: String
    /// Seconds without a request after which the server may end the session; nil when the header did not say.
    public var timeout: Int?

    /// The timeout, or the spec's 60 s when none was given.
    public var effectiveTimeout: Int { timeout ?? Self.defaultTimeout }

    public init(identifier: String, timeout: Int? = nil) {
        self.identifier = identifier
        self.timeout = timeout
    }

    /// The header of a response. An empty, overlong or non-printable identifier, or a timeout that is not a positive
    /// number, throws: the identifier is sent back in every later request.
    public init(parsing value: String) throws {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map { String($0).trimmedOfSpaces }
        guard let identifier = parts.first, !identifier.isEmpty, identifier.utf8.count <= Self.maxIdentifierLength,
              identifier.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw RTSPError.malformed(structure: "Session header", reason: "\"\(value.prefix(80))\" has no printable identifier of at most 256 characters")
        }
        self.identifier = identifier
        timeout = nil
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmedOfSpaces }
            guard pair.first?.lowercased() == "timeout" else { continue }
            guard pair.count == 2, let seconds = Int(pair[1]), seconds > 0 else {
                throw RTSPError.malformed(structure: "Session header", reason: "\"\(parameter)\" is not a timeout in seconds")
            }
            timeout = seconds
        }
    }
}
