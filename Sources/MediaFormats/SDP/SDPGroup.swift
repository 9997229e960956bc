// RFC 5888 §5 the group attribute (a=group:<semantics> <identification-tag> ...); RFC 8843 §7 BUNDLE.

/// Media sections grouped by their `a=mid`: "BUNDLE" puts them on one transport, the first tag being the BUNDLE-tag.
public struct SDPGroup: Sendable, Equatable {
    /// "BUNDLE", "LS", "FID".
    public var semantics: String
    /// The mids, in order.
    public var identificationTags: [String]

    public init(semantics: String, identificationTags: [String]) {
        self.semantics = semantics
        self.identificationTags = identificationTags
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { throw context.invalid("no group semantics") }
        self.init(semantics: String(first), identificationTags: fields.dropFirst().map(String.init))
    }

    /// What follows "a=group:".
    var value: String { ([semantics] + identificationTags).joined(separator: " ") }
}
