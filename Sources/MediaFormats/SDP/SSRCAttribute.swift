// RFC 5576 §4.1 source-level attributes: a=ssrc:<ssrc-id> <attribute>[:<value>].

/// One attribute of one RTP source the writer sends: "cname", and in older offers "msid", "mslabel", "label".
public struct SSRCAttribute: Sendable, Equatable {
    public var ssrc: UInt32
    public var name: String
    public var value: String?

    public init(ssrc: UInt32, name: String, value: String? = nil) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    init(parsing text: String, context: SDPLine) throws {
        let fields = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard fields.count == 2, let ssrc = UInt32(fields[0]) else { throw context.invalid("not <32-bit ssrc> <attribute>") }
        let pair = fields[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(ssrc: ssrc, name: String(pair[0]).trimmingSpaces, value: pair.count > 1 ? String(pair[1]).trimmingSpaces : nil)
    }

    /// What follows "a=ssrc:".
    var text: String { "\(ssrc) \(name)" + (value.map { ":" + $0 } ?? "") }
}
