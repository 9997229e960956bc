// RFC 5576 §4.2 the ssrc-group attribute: a=ssrc-group:<semantics> <ssrc-id> ...; RFC 4588 §8.1 "FID" pairs media and rtx.

/// Sources that belong together: under "FID" the first carries the media and the second its retransmissions.
public struct SSRCGroup: Sendable, Equatable {
    /// "FID", "FEC-FR", "SIM".
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { throw context.invalid("no group semantics") }
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            guard let ssrc = UInt32(field) else { throw context.invalid("ssrc \(field) is not a 32-bit number") }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(first), ssrcs: ssrcs)
    }

    /// What follows "a=ssrc-group:".
    var value: String { ([semantics] + ssrcs.map { String($0) }).joined(separator: " ") }
}
